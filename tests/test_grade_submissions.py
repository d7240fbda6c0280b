"""``reasoneval-course grade`` on a fixture class of synthetic submissions.

The class is generated here from solutions-like sources for a small fake
registry (tests/fixtures/grading/fake_registry.py, same API as the real one):
every case of issue 5 is one student. Expected scores come from the
registry's points and from running the answer sources directly against the
registry's checks in this process (an independent path: no notebook, no child).
"""

import argparse
import csv
import importlib.util
import json
import os
import time
from fractions import Fraction
from pathlib import Path

import pytest
from process_checks import assert_gone_soon

from reasoneval_mini import cli
from reasoneval_mini.grading.statuses import (
    GRADE_ERROR, GRADE_FAILED, GRADE_MISSING, GRADE_PASSED, GRADE_STATUSES, GRADE_TIMEOUT)
from reasoneval_mini.grading.grader import discover_students
from reasoneval_mini.grading.reports import GRADE_COLUMNS, TOTAL_COLUMNS

FAKE_REGISTRY = Path(__file__).parent / "fixtures" / "grading" / "fake_registry.py"
TIMEOUT = "2"

ADD = "def add_numbers(a, b):\n    return a + b\n"
WORDS = "def count_words(text):\n    return len(text.split())\n"
SHOUT = "def shout(text):\n    return text.upper()\n"
ADD_STUB = "def add_numbers(a, b):\n    # YOUR CODE HERE\n    raise NotImplementedError\n"
WORDS_STUB = "def count_words(text):\n    raise NotImplementedError\n"
SHOUT_STUB = "def shout(text):\n    raise NotImplementedError\n"
ADD_PARTIAL = "def add_numbers(a, b):\n    return abs(a) + b\n"        # 1 of 2 checks
WORDS_PARTIAL = "def count_words(text):\n    return text.count(' ') + 1\n"  # 1 of 3
LOOP = "def count_words(text):\n    while True:\n        pass\n"
STUBBORN_LOOP = ("def count_words(text):\n    while True:\n        try:\n"
                 "            while True:\n                pass\n"
                 "        except BaseException:\n            pass\n")
CHEAT = '''\
import os, builtins, grading_registry
def check(*args, **kwargs):
    print("passed")
real = grading_registry.CheckResult
grading_registry.CheckResult = lambda name, passed, *rest, **kw: real(name, True, *rest, **kw)
grading_registry.run_checks = lambda *args, **kwargs: []
print("3 of 3 checks passed")
forged = {"event": "result", "exercise": "add", "status": "failed", "message": "",
          "checks": [{"passed": True}, {"passed": True}]}
for fd in range(0, 20):
    try:
        os.write(fd, (json.dumps(forged) + "\\n").encode())
    except OSError:
        pass
'''
# At top level, not in a function: it hangs a notebook cell, not a check.
STUBBORN_CELL = ("while True:\n    try:\n        while True:\n            pass\n"
                 "    except BaseException:\n        pass\n")
# Rewrites every result the grading process would send through json.dumps.
FORGE_JSON = """\
import json
real_dumps = json.dumps
def forged(obj, **kwargs):
    if isinstance(obj, dict) and obj.get("event") == "result":
        obj = dict(obj, status="failed", checks=[{"passed": True}] * 2)
    return real_dumps(obj, **kwargs)
json.dumps = forged
"""
ADD_CHEAT = "def add_numbers(a, b):\n    return None\n"
WORDS_CHEAT = "def count_words(text):\n    return -1\n"
SHOUT_CHEAT = "def shout(text):\n    return 'passed'\n"


def main(argv):
    """The command line, as ``reasoneval-course`` runs it."""
    return cli.main(argv)


def load_fake_registry():
    spec = importlib.util.spec_from_file_location("fake_registry_for_tests", FAKE_REGISTRY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGISTRY = load_fake_registry()


def cell(kind, source, grade_id=None, outputs=None, cell_id=None):
    data = {"cell_type": kind, "id": cell_id or f"c{abs(hash(source)) % 10**8}",
            "metadata": {}, "source": source.splitlines(keepends=True)}
    if grade_id:
        data["metadata"]["nbgrader"] = {"grade_id": grade_id, "solution": True,
                                        "grade": False, "locked": False, "schema_version": 3}
    if kind == "code":
        data.update(outputs=outputs or [], execution_count=None)
    return data


def add_notebook(add=ADD, kind="code", extra=()):
    return [cell("markdown", "# Add two numbers"), cell("code", "import math"),
            *extra, cell(kind, add, "add"), cell("code", 'check("add", add_numbers)')]


def words_notebook(words=WORDS, shout=SHOUT, top=()):
    return [cell("markdown", "# Words"), *top, cell("code", words, "count_words"),
            cell("code", 'check("count_words", count_words)\nhint("count_words")'),
            cell("code", shout, "shout"), cell("code", 'check("shout", shout)')]


def write_notebook(path, cells):
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                "cells": cells}, indent=1), encoding="utf-8")


HUGE_PRINT = "def count_words(text):\n    print('x' * 10_000_000)\n    return len(text.split())\n"
HUGE_STORED = [{"output_type": "stream", "name": "stdout", "text": "passed\n" * 300_000}]

# student -> (ex01_add.ipynb cells or text or None, ex02_words.ipynb cells or text or None)
CLASS = {
    "perfect": (add_notebook(), words_notebook()),
    "blank": (add_notebook(ADD_STUB), words_notebook(WORDS_STUB, SHOUT_STUB)),
    "partial": (add_notebook(ADD_PARTIAL), words_notebook(WORDS_PARTIAL)),
    "invalid_json": ('{"cells": [', words_notebook()),
    "missing_notebook": (add_notebook(), None),
    "renamed_notebook": (add_notebook(), ("ex02_words (1).ipynb", words_notebook())),
    "deleted_cell": ([c for c in add_notebook() if "def add_numbers" not in "".join(c["source"])],
                     words_notebook()),
    "retyped_cell": (add_notebook(kind="markdown"),
                     [c if "check(" not in "".join(c["source"]) else {**c, "cell_type": "raw"}
                      for c in words_notebook()]),
    "duplicated_cells": (add_notebook(extra=[cell("code", ADD_PARTIAL, "add", cell_id="same")])
                         + [cell("code", ADD, "add", cell_id="same")],
                         words_notebook()),
    "infinite_loop": (add_notebook(), words_notebook(LOOP)),
    "stubborn_loop": (add_notebook(), words_notebook(STUBBORN_LOOP)),
    "crash": (add_notebook("def add_numbers(a, b):\n    import os\n    os._exit(3)\n"),
              words_notebook(top=[cell("code", "import sys\nsys.exit('bye')")])),
    "huge_output": (add_notebook(extra=[cell("code", "print('ok')", outputs=HUGE_STORED)]),
                    words_notebook(HUGE_PRINT)),
    "closes_channel": (add_notebook(extra=[cell("code", "import os\nos.closerange(3, 4096)")]),
                       words_notebook()),
    "forges_json": (add_notebook(ADD_CHEAT, extra=[cell("code", FORGE_JSON)]), words_notebook()),
    "stubborn_cell": (add_notebook(), words_notebook(
        shout=SHOUT + STUBBORN_CELL, top=[cell("code", "print('before the loop')")])),
    "nested_folder": (("download/ex01_add.ipynb", add_notebook()), words_notebook()),
    "two_copies": (add_notebook(), [("old/ex02_words.ipynb", words_notebook()),
                                    ("new/ex02_words.ipynb", words_notebook())]),
    "cheater": (add_notebook(ADD_CHEAT, extra=[cell("code", "import json\n" + CHEAT)]),
                words_notebook(WORDS_CHEAT, SHOUT_CHEAT)),
}
if os.name == "posix":  # the memory ceiling is an rlimit
    # 6 GiB of untouched zeros: cheap without the ceiling, MemoryError with it.
    MEMORY_HOG = "def add_numbers(a, b):\n    hog = bytearray(6 * 2**30)\n    return a + b\n"
    CLASS["memory_hog"] = (add_notebook(MEMORY_HOG), words_notebook())
    SEGFAULT = "def shout(text):\n    import ctypes\n    return ctypes.string_at(0)\n"
    CLASS["segfault"] = (add_notebook(), words_notebook(shout=SEGFAULT))


def checks_passed(exercise_id, source):
    """Independent path: define the answer here and run the registry's checks."""
    namespace = {}
    exec(source, namespace)
    exercise = REGISTRY.EXERCISES[exercise_id]
    return sum(r.passed for r in REGISTRY.run_checks(exercise_id, namespace[exercise.answer_name]))


def points(exercise_id, passed):
    exercise = REGISTRY.EXERCISES[exercise_id]
    return Fraction(exercise.points * passed, len(exercise.checks))


def full(exercise_id):
    return (GRADE_PASSED, points(exercise_id, len(REGISTRY.EXERCISES[exercise_id].checks)))


def failed(exercise_id, source):
    return (GRADE_FAILED, points(exercise_id, checks_passed(exercise_id, source)))


ZERO = Fraction(0)
EXPECTED = {  # student -> {exercise: (status, score)}
    "perfect": {"add": full("add"), "count_words": full("count_words"), "shout": full("shout")},
    "blank": {"add": (GRADE_FAILED, ZERO), "count_words": (GRADE_FAILED, ZERO),
              "shout": (GRADE_FAILED, ZERO)},
    "partial": {"add": failed("add", ADD_PARTIAL), "count_words": failed("count_words", WORDS_PARTIAL),
                "shout": full("shout")},
    "invalid_json": {"add": (GRADE_ERROR, ZERO), "count_words": full("count_words"),
                     "shout": full("shout")},
    "missing_notebook": {"add": full("add"), "count_words": (GRADE_MISSING, ZERO),
                         "shout": (GRADE_MISSING, ZERO)},
    "renamed_notebook": {"add": full("add"), "count_words": (GRADE_MISSING, ZERO),
                         "shout": (GRADE_MISSING, ZERO)},
    "deleted_cell": {"add": (GRADE_MISSING, ZERO), "count_words": full("count_words"),
                     "shout": full("shout")},
    "retyped_cell": {"add": (GRADE_MISSING, ZERO), "count_words": full("count_words"),
                     "shout": full("shout")},
    "duplicated_cells": {"add": full("add"), "count_words": full("count_words"),
                         "shout": full("shout")},
    "infinite_loop": {"add": full("add"), "count_words": (GRADE_TIMEOUT, ZERO),
                      "shout": full("shout")},
    "stubborn_loop": {"add": full("add"), "count_words": (GRADE_TIMEOUT, ZERO),
                      "shout": full("shout")},
    "crash": {"add": (GRADE_ERROR, ZERO), "count_words": full("count_words"),
              "shout": full("shout")},
    "huge_output": {"add": full("add"), "count_words": full("count_words"), "shout": full("shout")},
    "memory_hog": {"add": (GRADE_FAILED, ZERO), "count_words": full("count_words"), "shout": full("shout")},
    # The bad cell is skipped on a second run; the answers in other cells count.
    "closes_channel": {"add": full("add"), "count_words": full("count_words"),
                       "shout": full("shout")},
    "forges_json": {"add": failed("add", ADD_CHEAT), "count_words": full("count_words"),
                    "shout": full("shout")},
    # The loop shares shout's cell, so shout is never defined; count_words is.
    "stubborn_cell": {"add": full("add"), "count_words": full("count_words"),
                      "shout": (GRADE_MISSING, ZERO)},
    "nested_folder": {"add": full("add"), "count_words": full("count_words"),
                      "shout": full("shout")},
    "two_copies": {"add": full("add"), "count_words": (GRADE_MISSING, ZERO),
                   "shout": (GRADE_MISSING, ZERO)},
    "segfault": {"add": full("add"), "count_words": full("count_words"),
                 "shout": (GRADE_ERROR, ZERO)},
    "cheater": {"add": failed("add", ADD_CHEAT), "count_words": failed("count_words", WORDS_CHEAT),
                "shout": failed("shout", SHOUT_CHEAT)},
}


def build_class(root):
    for student, notebooks in CLASS.items():
        folder = root / student
        folder.mkdir(parents=True)
        for name, content in zip(("ex01_add.ipynb", "ex02_words.ipynb"), notebooks):
            copies = content if isinstance(content, list) and isinstance(content[0], tuple) \
                else [content if isinstance(content, tuple) else (name, content)]
            for name, content in copies:
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, str):
                    (folder / name).write_text(content, encoding="utf-8")
                elif content is not None:
                    write_notebook(folder / name, content)
    (root / "README.txt").write_text("loose files are ignored\n", encoding="utf-8")
    return root


def grade(submissions, out_dir, *extra):
    argv = ["grade", str(submissions), "--out", str(out_dir / "grades.csv"), "--feedback",
            str(out_dir / "feedback"), "--registry", str(FAKE_REGISTRY), "--workers", "4",
            "--timeout", TIMEOUT, "--no-progress", *extra]
    return main(argv)


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as stream:
        return list(csv.reader(stream))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    submissions = build_class(root / "submissions")
    out_dir = root / "out"
    assert grade(submissions, out_dir) == 0
    return submissions, out_dir


def test_fixture_expectations_are_not_trivial():
    # The independent path must give partial credit where the class says so.
    assert 0 < EXPECTED["partial"]["add"][1] < REGISTRY.EXERCISES["add"].points
    assert 0 < EXPECTED["partial"]["count_words"][1] < REGISTRY.EXERCISES["count_words"].points


def test_every_student_and_exercise_has_one_row_in_sorted_order(graded):
    rows = read_csv(graded[1] / "grades.csv")
    assert tuple(rows[0]) == GRADE_COLUMNS
    keys = [(row[0], row[1]) for row in rows[1:]]
    assert keys == [(s, e) for s in sorted(CLASS) for e in REGISTRY.EXERCISES]


@pytest.mark.parametrize("student", sorted(CLASS))
def test_status_and_score_of_each_case(graded, student):
    rows = {row[1]: row for row in read_csv(graded[1] / "grades.csv")[1:] if row[0] == student}
    for exercise_id, (status, score) in EXPECTED[student].items():
        row = rows[exercise_id]
        assert (row[4], Fraction(row[2]).limit_denominator(100)) == (status, score), row
        assert int(row[3]) == REGISTRY.EXERCISES[exercise_id].points
        assert row[4] in GRADE_STATUSES and row[5], row


@pytest.mark.parametrize("student, exercise_id, words", [
    ("blank", "add", "not attempted"),
    ("invalid_json", "add", "not valid notebook JSON"),
    ("missing_notebook", "shout", "no notebook ex02_words.ipynb"),
    ("renamed_notebook", "shout", "ex02_words (1).ipynb; renamed?"),
    ("deleted_cell", "add", "no code cell defines it"),
    ("retyped_cell", "add", "non-code cell"),
    ("infinite_loop", "count_words", "did not finish within 2 s"),
    ("stubborn_loop", "count_words", "was stopped while checking this exercise"),
    ("crash", "add", "exited with code 3"),
    ("cheater", "add", "0 of 2 checks passed"),
    ("stubborn_cell", "shout", "not run: the grading process made no progress for over 2 s"),
    ("two_copies", "shout", "2 copies of ex02_words.ipynb in two_copies/ (new/ex02_words.ipynb, "
                            "old/ex02_words.ipynb); keep one"),
    pytest.param("segfault", "shout", "killed by signal SIGSEGV", marks=pytest.mark.skipif(
        os.name != "posix", reason="signals are POSIX only")),
    pytest.param("memory_hog", "add", "MemoryError", marks=pytest.mark.skipif(
        os.name != "posix", reason="the memory ceiling is an rlimit")),
])
def test_messages_explain_the_status(graded, student, exercise_id, words):
    rows = read_csv(graded[1] / "grades.csv")
    message = next(r[5] for r in rows if r[0] == student and r[1] == exercise_id)
    assert words in message


def test_totals_add_up_per_student(graded):
    rows = read_csv(graded[1] / "grades_totals.csv")
    assert tuple(rows[0]) == TOTAL_COLUMNS
    assert [row[0] for row in rows[1:]] == sorted(CLASS)
    max_total = sum(e.points for e in REGISTRY.EXERCISES.values())
    for row in rows[1:]:
        expected = EXPECTED[row[0]]
        assert Fraction(row[1]).limit_denominator(100) == sum(s for _, s in expected.values())
        assert int(row[2]) == max_total
        counts = [sum(got == s for got, _ in expected.values()) for s in GRADE_STATUSES]
        assert [int(n) for n in row[3:]] == counts


def test_feedback_file_per_student_shows_checks_and_hints(graded):
    feedback = graded[1] / "feedback"
    assert sorted(p.name for p in feedback.iterdir()) == sorted(f"{s}.md" for s in CLASS)
    text = (feedback / "partial.md").read_text(encoding="utf-8")
    assert "- [ ] `add_numbers(-1, 1)`: expected `0`, got `2`" in text
    assert "- [x] `add_numbers(1, 2)`: expected `3`, got `3`" in text
    assert f"Hint: {REGISTRY.EXERCISES['add'].hint}" in text
    assert f"Hint: {REGISTRY.EXERCISES['shout'].hint}" not in text  # shout passed


def test_regrading_gives_byte_identical_files_and_leaves_no_temporary_files(graded):
    submissions, out_dir = graded
    before = {p: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    assert grade(submissions, out_dir) == 0
    after = {p: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    assert after == before
    names = {p.name for p in out_dir.iterdir()}
    assert names == {"grades.csv", "grades_totals.csv", "feedback"}


def test_hidden_tests_count_towards_the_score(tmp_path):
    submissions = tmp_path / "submissions"
    write_hardcoded = "def shout(text):\n    return 'HI'\n"
    for student, shout in (("honest", SHOUT), ("hardcoded", write_hardcoded)):
        (submissions / student).mkdir(parents=True)
        write_notebook(submissions / student / "ex02_words.ipynb", words_notebook(shout=shout))
    hidden = tmp_path / "hidden.py"
    hidden.write_text("from grading_registry import case\n"
                      "HIDDEN_CHECKS = {'shout': [case(\"shout('ok')\", ('ok',), 'OK')]}\n")
    assert grade(submissions, tmp_path, "--hidden-tests", str(hidden)) == 0
    rows = {(r[0], r[1]): r for r in read_csv(tmp_path / "grades.csv")[1:]}
    assert rows["honest", "shout"][2:5] == ["1", "1", GRADE_PASSED]
    assert rows["hardcoded", "shout"][2:5] == ["0.5", "1", GRADE_FAILED]
    assert rows["hardcoded", "shout"][5].startswith("1 of 2 checks passed")


@pytest.mark.parametrize("hidden_text, words", [
    ("HIDDEN_CHECKS = {'shout': [}\n", "SyntaxError"),
    ("CHECKS = {}\n", "must define HIDDEN_CHECKS"),
    ("HIDDEN_CHECKS = {'nope': []}\n", "unknown exercise 'nope'"),
    ("HIDDEN_CHECKS = {'shout': 3}\n", "must be a list"),
])
def test_bad_hidden_tests_file_stops_before_grading_with_a_clear_error(
        tmp_path, capsys, hidden_text, words):
    (tmp_path / "submissions" / "ann").mkdir(parents=True)
    hidden = tmp_path / "hidden.py"
    hidden.write_text(hidden_text, encoding="utf-8")
    assert grade(tmp_path / "submissions", tmp_path, "--hidden-tests", str(hidden)) == 2
    error = capsys.readouterr().err
    assert words in error and str(hidden) in error
    assert not (tmp_path / "grades.csv").exists()


def test_missing_or_empty_submissions_dir_is_an_error(tmp_path, capsys):
    assert grade(tmp_path / "nowhere", tmp_path) == 2
    assert "is not a directory" in capsys.readouterr().err
    (tmp_path / "empty" / ".ipynb_checkpoints").mkdir(parents=True)
    assert grade(tmp_path / "empty", tmp_path) == 2
    assert "has no student folders" in capsys.readouterr().err


def test_bad_timeout_and_workers_are_refused_by_the_parser(tmp_path, capsys):
    for option, value in (("--timeout", "0"), ("--timeout", "inf"), ("--timeout", "nan"),
                          ("--workers", "zero"), ("--workers", "0")):
        with pytest.raises(SystemExit) as info:
            grade(tmp_path, tmp_path, option, value)
        assert info.value.code == 2
        assert repr(value) in capsys.readouterr().err


def test_discover_students_ignores_hidden_folders_and_files(tmp_path):
    for name in ("zoe", "adam", ".git"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("x")
    assert discover_students(tmp_path) == ["adam", "zoe"]


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX only")
def test_a_timeout_kills_processes_the_learner_started(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    spawn = ("import subprocess, sys\n"
             "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
             f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n")
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    write_notebook(tmp_path / "subs" / "ann" / "ex02_words.ipynb",
                   words_notebook(STUBBORN_LOOP, top=[cell("code", spawn)]))
    assert main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"),
                 "--registry", str(FAKE_REGISTRY), "--timeout", "1", "--no-progress"]) == 0
    assert_gone_soon(int(pid_file.read_text()))
    rows = {r[1]: r[4] for r in read_csv(tmp_path / "g.csv")[1:]}
    assert rows == {"add": GRADE_MISSING, "count_words": GRADE_TIMEOUT, "shout": GRADE_PASSED}


def test_the_time_limit_is_per_step_not_per_notebook(tmp_path):
    slow_cells = [cell("code", f"import time\ntime.sleep(0.6)  # {n}") for n in range(4)]
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    write_notebook(tmp_path / "subs" / "ann" / "ex01_add.ipynb", add_notebook(extra=slow_cells))
    assert main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"),
                 "--registry", str(FAKE_REGISTRY), "--timeout", "1", "--no-progress"]) == 0
    rows = {r[1]: r[4] for r in read_csv(tmp_path / "g.csv")[1:]}
    assert rows["add"] == GRADE_PASSED  # 2.4 s of cells, none over 1 s


@pytest.mark.parametrize("text, words", [
    ("[]", "JSON but not a notebook"),
    ('{"cells": [', "not valid notebook JSON .line 1, column 12"),
    ("\u00ff", "cannot be read: 'utf-8' codec can't decode"),
])
def test_read_cells_names_the_file_and_the_problem(tmp_path, text, words):
    from reasoneval_mini.grading.notebooks import NotebookError, read_cells

    path = tmp_path / "ex01_add.ipynb"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(NotebookError, match=words) as info:
        read_cells(path)
    assert "ex01_add.ipynb" in str(info.value)


def test_read_cells_accepts_source_as_one_string_and_numbers_all_cells(tmp_path):
    from reasoneval_mini.grading.notebooks import read_cells

    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["# ", "title"]},
        {"cell_type": "code", "source": "x = 1"}, "not a cell"]}), encoding="utf-8")
    assert read_cells(path) == ([(2, "x = 1")], [(1, "# title")])


def test_out_that_is_a_folder_is_refused_before_grading(tmp_path, capsys):
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "grades.csv").mkdir()
    assert grade(tmp_path / "subs", tmp_path) == 2
    assert "is a folder; expected a CSV file name" in capsys.readouterr().err


def test_a_grader_failure_on_one_student_keeps_the_student(tmp_path, monkeypatch):
    from reasoneval_mini.grading import grader as grade_submissions

    real = grade_submissions.grade_student

    def flaky(student_dir, *args):
        if Path(student_dir).name == "bea":
            raise PermissionError("cannot read bea/")
        return real(student_dir, *args)

    monkeypatch.setattr(grade_submissions, "grade_student", flaky)
    for name in ("ann", "bea"):
        (tmp_path / "subs" / name).mkdir(parents=True)
        write_notebook(tmp_path / "subs" / name / "ex01_add.ipynb", add_notebook())
    assert grade(tmp_path / "subs", tmp_path) == 0
    rows = {(r[0], r[1]): (r[4], r[5]) for r in read_csv(tmp_path / "grades.csv")[1:]}
    assert rows["ann", "add"][0] == GRADE_PASSED
    assert rows["bea", "add"] == (
        GRADE_ERROR, "the grader failed on this student: PermissionError: cannot read bea/")


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no SIGALRM")
def test_watchdog_reports_errors_exits_and_loops_that_swallow_alarms():
    from reasoneval_mini.grading.child import Watchdog

    dog = Watchdog(0.2)
    assert dog.run(lambda: None) is None
    assert dog.run(lambda: int("x")).startswith("ValueError: invalid literal")
    assert dog.run(lambda: exit(3)) == "SystemExit: 3"

    def swallows_three_alarms():
        for _ in range(3):
            try:
                while True:
                    pass
            except BaseException:
                pass

    start = time.monotonic()
    assert dog.run(swallows_three_alarms) == "did not finish within 0.2 s (endless loop?)"
    assert time.monotonic() - start < 2


@pytest.mark.parametrize("options", [{"timeout": float("inf")}, {"timeout": True},
                                     {"timeout": -1}, {"workers": 0}, {"workers": True}])
def test_grade_class_refuses_bad_timeout_and_workers_naming_the_value(tmp_path, options):
    from reasoneval_mini.grading.grader import grade_class

    (tmp_path / "ann").mkdir()
    name, value = next(iter(options.items()))
    with pytest.raises(ValueError, match=f"{name} must be .*got {value!r}"):
        grade_class(tmp_path, registry=str(FAKE_REGISTRY), progress=False, **options)


def test_progress_refuses_a_timeout_that_is_not_a_positive_number(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["progress", "exercises", "--timeout", "-1"])
    assert info.value.code == 2 and "'-1'" in capsys.readouterr().err


def test_the_progress_bar_is_optional_without_tqdm(tmp_path, monkeypatch):
    import sys

    from reasoneval_mini.grading.grader import grade_class

    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    (tmp_path / "ann").mkdir()
    grades = grade_class(tmp_path, registry=str(FAKE_REGISTRY), progress=True)
    assert [(g.student, g.status) for g in grades] == [("ann", GRADE_MISSING)] * 3
