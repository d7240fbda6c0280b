"""The root conftest.py: the README's command is the quick check, --full (CI) runs everything.

Checked on a small project of its own (the repository's conftest.py, copied), run by a
real pytest in a subprocess: which tests each kind of run takes, and what it says.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "pyproject.toml": (
        "[tool.pytest.ini_options]\n"
        "markers = ['slow: slow', 'browser: browser']\n"),
    "tests/test_mixed.py": (
        "import pytest\n"
        "def test_fast():\n    pass\n"
        "@pytest.mark.slow\ndef test_marked_slow():\n    pass\n"
        "@pytest.mark.browser\ndef test_in_the_browser():\n    pass\n"),
    "tests/test_slow_file.py": (
        "import pytest\n"
        "pytestmark = pytest.mark.slow\n"
        "def test_in_a_slow_file():\n    pass\n"),
    "notebooks/test_lesson.py": "def test_a_lesson_cell():\n    pass\n",
}
EVERY_TEST = {"test_fast", "test_marked_slow", "test_in_the_browser", "test_in_a_slow_file",
              "test_a_lesson_cell"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    shutil.copy(ROOT / "conftest.py", root / "conftest.py")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _run(project, *args):
    # No plugin is loaded (xdist, nbval, ...): the conftest needs none, and each costs seconds.
    environment = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q", *args],
        cwd=project, capture_output=True, text=True, timeout=120, env=environment)
    assert result.returncode == 0, result.stdout + result.stderr
    ran = {line.split("::")[-1] for line in result.stdout.splitlines()
           if line.startswith("PASSED ")}
    return ran, result.stdout


def test_a_plain_run_is_the_quick_check_and_says_what_it_left_out(project):
    ran, out = _run(project)
    assert ran == {"test_fast"}
    assert "4 deselected" in out
    assert "quick check only: python -m pytest -n auto --full runs the whole suite" in out


def test_full_runs_every_test(project):
    ran, out = _run(project, "--full")
    assert ran == EVERY_TEST
    assert "quick check" not in out


def test_a_run_that_names_a_path_or_a_marker_runs_what_it_names(project):
    assert _run(project, "tests/test_slow_file.py")[0] == {"test_in_a_slow_file"}
    assert _run(project, "notebooks")[0] == {"test_a_lesson_cell"}
    assert _run(project, "-m", "slow")[0] == {"test_marked_slow", "test_in_a_slow_file"}


def test_ci_and_the_readme_name_both_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pytest -n auto --full" in ci
    assert "python -m pytest -n auto\n" in readme  # the quick start's command
    assert "python -m pytest -n auto --full" in readme  # what CI runs, in Development
