import subprocess
import sys

import pytest

import reasoneval_mini
from reasoneval_mini.lessons import doctor
from reasoneval_mini.cli import main


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert reasoneval_mini.__version__ in capsys.readouterr().out


def test_doctor_reports_versions_and_isolation_and_succeeds_when_complete(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}" in out
    assert "POSIX isolation:" in out
    for name in doctor.COURSE_PACKAGES:
        assert name in out


def test_doctor_names_a_missing_required_package_and_fails(monkeypatch, capsys):
    real = doctor.installed_version
    monkeypatch.setattr(doctor, "installed_version",
                        lambda name: None if name == "ipywidgets" else real(name))
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "MISSING required package(s): ipywidgets" in out


def test_doctor_explains_missing_posix_isolation(monkeypatch, capsys):
    monkeypatch.setattr(doctor, "posix_isolation", lambda: (False, "no 'resource' module"))
    main(["doctor"])
    assert "POSIX isolation: no - no 'resource' module" in capsys.readouterr().out


def test_python_dash_m_runs_the_same_command_line():
    done = subprocess.run([sys.executable, "-m", "reasoneval_mini", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert reasoneval_mini.__version__ in done.stdout


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "doctor" in capsys.readouterr().out


def test_doctor_says_macos_does_not_enforce_the_memory_limit(monkeypatch):
    pytest.importorskip("resource")
    monkeypatch.setattr(doctor.sys, "platform", "darwin")
    available, why = doctor.posix_isolation()
    assert available and "does not enforce the memory limit" in why
