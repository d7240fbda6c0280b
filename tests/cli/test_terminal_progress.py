"""The README's words for a JupyterLab terminal, typed into a login shell whose PATH was reset.

JupyterLab may start its terminals as login shells (``bash -l``), and
Debian's ``/etc/profile`` then sets ``PATH`` afresh, so the environment's
``reasoneval-course`` is not found although ``VIRTUAL_ENV`` is still set.
The test takes the lines the README gives for that terminal (the code block
after its ``terminal-progress`` marker), types them into ``bash -l`` with
only a system ``PATH``, in a folder laid out like the repository root
(``.venv`` and ``exercises/``), and expects the progress table; then the same
in ``sh -l`` (dash on Debian), which has no ``source``. Lesson 00 and
``docs/exercises.md`` must give the same lines.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKER = "terminal-progress"


def terminal_lines(page):
    """The command lines of *page*'s ``terminal-progress`` block (comments dropped)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    block = re.search(rf"<!-- {MARKER}.*?-->\s*```bash\n(.*?)```", text, re.DOTALL)
    assert block is not None, f"{page} lost its terminal-progress block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def readme_lines():
    return terminal_lines("README.md")


def test_the_exercises_page_gives_the_same_lines_as_the_readme():
    assert terminal_lines("docs/exercises.md") == readme_lines()


def test_lesson_00_gives_the_same_lines_as_the_readme():
    notebook = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8"))
    text = "".join("".join(cell["source"]) for cell in notebook["cells"])
    for line in readme_lines():
        assert line in text


# JupyterLab's terminal runs the user's SHELL, which may be bash or plain /bin/sh
# (dash on Debian and Ubuntu), where `source` does not exist: the lines must work in both.
@pytest.mark.parametrize("shell", ["bash", "sh"])
@pytest.mark.skipif(os.name != "posix", reason="a login shell is POSIX")
@pytest.mark.skipif(not (Path(sys.prefix) / "bin" / "activate").is_file(),
                    reason="the tests do not run in a virtual environment (.venv) here")
def test_progress_works_in_a_login_shell_that_reset_path_typing_the_readmes_lines(tmp_path,
                                                                                  shell):
    if shutil.which(shell) is None:
        pytest.skip(f"no {shell} here")
    (tmp_path / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    script = " && ".join(["cd " + str(tmp_path), *readme_lines()])
    # A login shell as JupyterLab starts it: a bare system PATH, VIRTUAL_ENV inherited.
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "VIRTUAL_ENV": sys.prefix,
           "LANG": "C.UTF-8"}
    bare = subprocess.run([shell, "-lc", "command -v reasoneval-course"], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
    assert bare.returncode != 0  # the situation of the issue: not found without the lines
    done = subprocess.run([shell, "-lc", script], env=env, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "exercises passed" in done.stdout and "graded by your instructor" in done.stdout
