"""``reasoneval-course doctor`` says what the sandbox enforces on this very machine."""

import pytest
from sandbox_runs import fill_folder

import reasoneval_mini.sandbox.landlock as landlock
from reasoneval_mini.lessons.doctor import run_doctor
from reasoneval_mini.sandbox import FEATURES


def test_doctor_names_each_sandbox_feature_as_the_kernel_enforces_it():
    lines = []
    run_doctor(out=lines.append)
    abi = landlock.abi_version()
    for name, (needed, _) in FEATURES.items():
        line = next(line for line in lines if line.startswith(f"  {name}: "))
        if abi == 0:
            continue
        assert line.startswith(f"  {name}: {'yes' if abi >= needed else 'no'}"), line
    assert any(line.startswith("Sandbox") for line in lines)


def test_doctor_says_what_an_old_kernel_leaves_open(monkeypatch):
    monkeypatch.setattr(landlock, "abi_version", lambda: 3)
    lines = []
    run_doctor(out=lines.append)
    assert "  network: no - needs Landlock ABI 4 (Linux 6.7); programs can open TCP connections" \
        in lines


def test_doctor_says_whether_the_system_call_filter_applies():
    from reasoneval_mini.sandbox import seccomp

    lines = []
    run_doctor(out=lines.append)
    line = next(line for line in lines if line.startswith("  system-call filter: "))
    assert line.startswith(f"  system-call filter: {'yes' if seccomp.supported() else 'no'}")


def test_doctor_says_the_working_folder_is_not_capped_where_user_namespaces_are_missing(monkeypatch):
    # There a memory_mb=64 program wrote 960 MB into /dev/shm, and doctor
    # still said every feature was enforced.
    from reasoneval_mini.lessons import doctor

    monkeypatch.setattr(doctor, "working_folder_capped", lambda: False)
    lines = []
    run_doctor(out=lines.append)
    head = next(line for line in lines if line.startswith("Sandbox"))
    if landlock.abi_version() >= 1:
        assert head.endswith("working folder cap NOT enforced"), head
    cap = next(line for line in lines if line.startswith("  working folder cap: "))
    assert cap.startswith("  working folder cap: no - ") and "/dev/shm" in cap, cap


def test_doctor_says_the_working_folder_is_capped_exactly_where_a_program_cannot_fill_it():
    from reasoneval_mini import PASSED, execute_program
    from reasoneval_mini.lessons import doctor

    filled = execute_program(fill_folder(96), memory_mb=64, timeout=20.0)
    assert filled.status == PASSED, filled.detail
    held = int(filled.stdout_tail)  # the oracle: what a program could write under 64 MB
    lines = []
    run_doctor(out=lines.append)
    cap = next(line for line in lines if line.startswith("  working folder cap: "))
    assert cap.startswith("  working folder cap: yes" if held <= 64 else "  working folder cap: no"), (
        held, cap)
    assert doctor.working_folder_capped() == (held <= 64)


# The machine as it is where user namespaces are off: a user namespace of
# the test's own, in which no further one may be made (its own limit, 0) and
# the process keeps no capability (so no mount namespace either).
WITHOUT_USER_NAMESPACES = ["unshare", "--user", "--map-root-user", "sh", "-c",
                           'echo 0 > /proc/sys/user/max_user_namespaces && '
                           'exec setpriv --bounding-set=-all --inh-caps=-all "$@"', "sh"]
RUN_AND_DOCTOR = """
import sys
from reasoneval_mini import execute_program
from reasoneval_mini.lessons.doctor import run_doctor
result = execute_program(sys.argv[1], memory_mb=64, timeout=20.0)
print(result.status, result.stdout_tail.strip(), result.isolation, sep="|")
run_doctor()
"""


def test_where_user_namespaces_are_off_a_real_run_and_doctor_say_the_folder_is_not_capped():
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if not sys.platform.startswith("linux") or not (shutil.which("unshare") and shutil.which("setpriv")):
        pytest.skip("needs Linux with unshare(1) and setpriv(1)")
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(WITHOUT_USER_NAMESPACES + [sys.executable, "-c", RUN_AND_DOCTOR, fill_folder(96)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=root))
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"this machine refuses a user namespace to the test: {done.stderr.strip()[:200]}")
    assert done.returncode in (0, 1), done.stderr
    status, written, isolation = done.stdout.splitlines()[0].split("|")
    assert (status, written) == ("passed", "96"), done.stdout  # the folder held 96 MB under 64
    assert isolation.endswith("; working folder NOT capped"), isolation
    assert any(line.startswith("  working folder cap: no - ") for line in done.stdout.splitlines()), (
        done.stdout)
    head = next(line for line in done.stdout.splitlines() if line.startswith("Sandbox"))
    assert "working folder cap NOT enforced" in head or head.startswith("Sandbox: none"), head


def test_an_isolation_whose_folder_was_not_capped_says_so_in_its_line_and_its_warning():
    from reasoneval_mini.sandbox import plan_isolation

    whole = plan_isolation("auto", abi=7)
    assert (str(whole), whole.warning()) == ("landlock ABI 7: files, network, signals", None)
    uncapped = whole._replace(folder_capped=False)
    assert str(uncapped) == "landlock ABI 7: files, network, signals; working folder NOT capped"
    assert "/dev/shm" in uncapped.warning() and "memory limit" in uncapped.warning()
    partial = plan_isolation("auto", abi=4)._replace(folder_capped=False)
    assert partial.warning().endswith("whatever its memory limit"), partial.warning()
    assert str(whole._replace(folder_capped=True)).endswith("; working folder capped")
