"""``reasoneval-course doctor`` says what the sandbox enforces on this very machine."""

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
