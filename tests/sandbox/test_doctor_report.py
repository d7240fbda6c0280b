"""``reasoneval-course doctor`` says what the sandbox enforces on this very machine."""

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
