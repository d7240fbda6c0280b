"""The torture class of issue 9: one named test per way a submission broke grading.

Each student is built here from the fake exercises of
``fixtures/torture_registry.py`` (the course's own ``case`` checks). The
reference for every expectation is the exercise itself: a correct answer
must pass, a blank or cheating one must not, and nothing the student starts
may outlive grading.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_checks import assert_gone_soon
from submission_class import ADD, ADD_STUB, SHOUT, SHOUT_STUB, WORDS, WORDS_STUB, cell, read_csv, write_notebook

from reasoneval_mini import cli

pytestmark = pytest.mark.slow  # hostile notebooks graded as a class

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = Path(__file__).parent / "fixtures" / "torture_registry.py"
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX processes")
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")


def notebook(*sources):
    return [cell("code", source) for source in sources]


def student(root, name, add=(ADD,), words=(WORDS, SHOUT)):
    folder = Path(os.fsdecode(os.path.join(os.fsencode(root), os.fsencode(name))))
    folder.mkdir(parents=True)
    if add is not None:
        write_notebook(folder / "ex01_add.ipynb", notebook(*add))
    if words is not None:
        write_notebook(folder / "ex02_words.ipynb", notebook(*words))
    return folder


def argv(root, out, *extra, timeout="2"):
    return ["grade", str(root), "--out", str(out / "grades.csv"), "--feedback",
            str(out / "feedback"), "--registry", str(REGISTRY), "--timeout", timeout,
            "--no-progress", *extra]


def grade(root, out, *extra, timeout="2"):
    return cli.main(argv(root, out, *extra, timeout=timeout))


# The tests of leftovers have the student's processes write their pid where the
# test reads it; the sandbox would refuse that write, so they run with --sandbox off
# (the runner kills what a student's session starts, sandboxed or not).
OFF = ("--sandbox", "off")


def grade_in_a_process(root, out, *extra, timeout="2", wait=60, env=None):
    """The grader as its own process (a hang must fail the test, not stall it)."""
    return subprocess.run([sys.executable, "-m", "reasoneval_mini", *argv(root, out, *extra,
                                                                          timeout=timeout)],
                          capture_output=True, text=True, timeout=wait,
                          env=dict(env or os.environ, PYTHONPATH=str(ROOT)))


def rows(out):
    return {(r[0], r[1]): (r[4], r[5]) for r in read_csv(out / "grades.csv")[1:]}


def statuses(out, name):
    return {e: s for (who, e), (s, _) in rows(out).items() if who == name}


# -- wrong grades for honest students -------------------------------------------------------

def test_black_continuation_lines_starting_with_operators_grade_as_under_jupyter(tmp_path):
    add = ("def add_numbers(a, b):\n"
           "    if (\n        a\n        != a\n    ):\n        return None\n"
           "    remainder = (\n        b\n        % 1\n    )\n"
           "    return a + b + remainder\n")
    doc = 'USAGE = """\n%run this\n!not a shell line\n"""\n'
    # A magic makes the cell IPython, not Python: the continuation lines must survive too.
    shout = ("%time _ = 1\n" + doc + "def shout(text):\n    return (\n        text.upper()\n"
             "        if text\n        != ''\n        else ''\n    )\n!echo done\n")
    student(tmp_path / "subs", "ann", add=(doc + add,), words=(WORDS, shout))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "ann") == {"add": "passed", "count_words": "passed",
                                         "shout": "passed"}


def test_a_deeply_nested_notebook_costs_only_that_notebook(tmp_path):
    folder = student(tmp_path / "subs", "ann", add=None)
    (folder / "ex01_add.ipynb").write_text('{"cells": ' + "[" * 200_000 + "]" * 200_000 + "}")
    assert grade(tmp_path / "subs", tmp_path) == 0
    got = rows(tmp_path)
    assert got["ann", "add"][0] == "error" and "ex01_add.ipynb" in got["ann", "add"][1]
    assert (got["ann", "count_words"][0], got["ann", "shout"][0]) == ("passed", "passed")


def test_a_cell_too_deep_to_parse_costs_only_that_cell(tmp_path):
    huge = "x = " + " + ".join(["1"] * 200_000) + "\n"  # 0.8 MB: under MAX_CELL_CHARS
    student(tmp_path / "subs", "ann", add=(huge, ADD))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "ann") == {"add": "passed", "count_words": "passed",
                                         "shout": "passed"}


@POSIX
def test_a_folder_name_that_is_not_utf8_is_graded_under_an_escaped_name(tmp_path):
    student(tmp_path / "subs", b"caf\xe9")
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "caf\\xe9") == {"add": "passed", "count_words": "passed",
                                              "shout": "passed"}
    assert (tmp_path / "feedback" / "caf\\xe9.md").is_file()


STUBBORN = ("while True:\n    try:\n        while True:\n            pass\n"
            "    except BaseException:\n        pass\n")


def test_an_answer_whose_cell_timed_out_is_timeout_naming_the_cell(tmp_path):
    # count_words: a loop the watchdog stops, before the def; shout: a loop that
    # swallows the watchdog's alarms after the def (the process is killed, the cell skipped).
    student(tmp_path / "subs", "ann", words=("while True:\n    pass\n" + WORDS, SHOUT + STUBBORN))
    assert grade(tmp_path / "subs", tmp_path, timeout="1") == 0
    got = rows(tmp_path)
    assert got["ann", "count_words"][0] == "timeout" and "cell 1" in got["ann", "count_words"][1]
    assert got["ann", "shout"][0] == "timeout" and "cell 2" in got["ann", "shout"][1]


def test_an_answer_whose_cell_crashed_is_error_naming_the_cell(tmp_path):
    student(tmp_path / "subs", "ann", words=(WORDS, "1 / 0\n" + SHOUT))
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["ann", "shout"]
    assert status == "error" and "cell 2" in message and "ZeroDivisionError" in message


def test_a_cell_of_magic_lines_fails_naming_the_bound_and_costs_only_its_answer(tmp_path):
    # Attack 7: IPython's converter re-reads the cell per magic line (a 62 KB
    # cell of %ls: 90 s in the grader's main thread, before anyone ran).
    student(tmp_path / "subs", "ann", words=(WORDS, SHOUT + "%ls\n" * 15_500))
    student(tmp_path / "subs", "bob")
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["ann", "shout"]
    assert status == "error" and "cell 2" in message
    assert "more than 500 lines of IPython syntax" in message
    assert statuses(tmp_path, "ann")["count_words"] == "passed"
    assert set(statuses(tmp_path, "bob").values()) == {"passed"}


def test_a_cell_over_the_size_bound_is_not_run_and_costs_only_its_answer(tmp_path):
    from reasoneval_mini.grading.notebooks import MAX_CELL_CHARS
    padded = SHOUT + "x = 1\n" * (MAX_CELL_CHARS // 6 + 1)
    student(tmp_path / "subs", "ann", words=(WORDS, padded))
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["ann", "shout"]
    assert status == "error" and "cell 2" in message and f"over the {MAX_CELL_CHARS}" in message
    assert statuses(tmp_path, "ann")["count_words"] == "passed"


def test_a_notebook_over_the_size_bound_is_refused_naming_it_and_costs_only_itself(
        tmp_path, monkeypatch):
    from reasoneval_mini.grading import submissions
    monkeypatch.setattr(submissions, "MAX_NOTEBOOK_BYTES", 200_000)  # the rule, not its size
    folder = student(tmp_path / "subs", "ann")
    data = json.loads((folder / "ex01_add.ipynb").read_text())
    data["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout",
                                    "text": "y" * 300_000}]
    (folder / "ex01_add.ipynb").write_text(json.dumps(data))
    assert grade(tmp_path / "subs", tmp_path) == 0
    got = rows(tmp_path)
    assert got["ann", "add"][0] == "error"
    assert "ex01_add.ipynb refused: it is over 200,000 bytes" in got["ann", "add"][1]
    assert got["ann", "count_words"][0] == "passed"


def test_a_broken_cell_of_blank_lines_is_read_in_linear_time_and_blamed(tmp_path):
    # Attack 7: "^\s*" on 60,000 blank lines took 95 s before grading began
    # (each blank line's match read every line after it, to the broken one).
    student(tmp_path / "subs", "ann", words=(WORDS, SHOUT + "\n" * 60_000 + "x = (\n"))
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["ann", "shout"]
    assert status == "error" and "cell 2" in message and "SyntaxError" in message


# -- one student stops or spoils the class ---------------------------------------------------

LEFTOVER = """\
import os, time
pid = os.fork()
if pid == 0:
    os.setsid()
    open({pid_file!r} + ".part", "w").write(str(os.getpid()))
    os.rename({pid_file!r} + ".part", {pid_file!r})
    time.sleep({sleep})
    {then}
    os._exit(0)
for _ in range(500):  # the cell ends once the leftover has said who it is
    if os.path.exists({pid_file!r}):
        break
    time.sleep(0.01)
"""


def _leftover(pid_file, sleep=60, then="pass"):
    return LEFTOVER.format(pid_file=str(pid_file), sleep=sleep, then=then)


def _kill(pid_file):
    try:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


@LINUX  # elsewhere a process that calls setsid escapes (README)
def test_a_setsid_leftover_neither_blocks_grading_nor_outlives_it(tmp_path):
    pid_file = tmp_path / "leftover.pid"
    student(tmp_path / "subs", "ann", add=(_leftover(pid_file), ADD))
    try:
        done = grade_in_a_process(tmp_path / "subs", tmp_path, *OFF, wait=30)
        assert done.returncode == 0, done.stderr
        assert statuses(tmp_path, "ann")["add"] == "passed"
        assert_gone_soon(int(pid_file.read_text()))
    finally:
        _kill(pid_file)


DOUBLE_FORK = """\
import os, time
if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        open({pid_file!r}, "w").write(str(os.getpid()))
        time.sleep(60)
    os._exit(0)
time.sleep(0.5)
"""


@LINUX  # elsewhere a process that calls setsid escapes (README)
def test_a_double_forked_leftover_does_not_outlive_grading(tmp_path):
    pid_file = tmp_path / "leftover.pid"
    student(tmp_path / "subs", "ann", add=(DOUBLE_FORK.format(pid_file=str(pid_file)), ADD))
    try:
        done = grade_in_a_process(tmp_path / "subs", tmp_path, *OFF, wait=30)
        assert done.returncode == 0, done.stderr
        assert statuses(tmp_path, "ann")["add"] == "passed"
        assert_gone_soon(int(pid_file.read_text()))
    finally:
        _kill(pid_file)


@LINUX  # elsewhere a process that calls setsid escapes (README)
def test_progress_neither_waits_for_nor_leaves_a_setsid_leftover(tmp_path):
    pid_file = tmp_path / "leftover.pid"
    folder = tmp_path / "mine"
    shutil.copytree(ROOT / "solutions", folder)
    path = folder / "ex01_answer_equivalence.ipynb"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cells"].insert(0, cell("code", _leftover(pid_file)))
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, "-m", "reasoneval_mini", "progress", str(folder),
                               *OFF],
                              capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == 0, done.stderr
        assert_gone_soon(int(pid_file.read_text()))
    finally:
        _kill(pid_file)


@POSIX
def test_a_symlinked_student_folder_is_refused(tmp_path):
    elsewhere = student(tmp_path / "solutions", "key")
    (tmp_path / "subs").mkdir()
    student(tmp_path / "subs", "ann")
    (tmp_path / "subs" / "eve").symlink_to(elsewhere)
    assert grade(tmp_path / "subs", tmp_path) == 0
    got = statuses(tmp_path, "eve")
    assert set(got.values()) == {"error"}
    assert "symlink" in rows(tmp_path)["eve", "add"][1]


@LINUX  # elsewhere a process that calls setsid escapes (README)
def test_a_leftover_cannot_rewrite_grades_after_the_grader_exits(tmp_path):
    pid_file = tmp_path / "leftover.pid"
    vandal = f"open({str(tmp_path / 'grades.csv')!r}, 'w').write('forged')"
    student(tmp_path / "subs", "ann", add=(_leftover(pid_file, sleep=3, then=vandal), ADD))
    try:
        done = grade_in_a_process(tmp_path / "subs", tmp_path, *OFF, wait=30)
        assert done.returncode == 0, done.stderr
        # The leftover writes 3 s after it started, unless the grader killed it: wait
        # for its death, not for its clock (gone means it can write nothing more).
        assert_gone_soon(int(pid_file.read_text()))
        assert statuses(tmp_path, "ann")["add"] == "passed"
        assert (tmp_path / "grades.csv").read_text() != "forged"
    finally:
        _kill(pid_file)


@LINUX
def test_a_killed_grader_takes_a_child_that_blocks_alarms_with_it(tmp_path):
    pid_file = tmp_path / "child.pid"
    stubborn = ("import os, signal\n"
                "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
                f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                "while True:\n    pass\n")
    student(tmp_path / "subs", "ann", add=(stubborn,))
    grader = subprocess.Popen([sys.executable, "-m", "reasoneval_mini",
                               *argv(tmp_path / "subs", tmp_path, *OFF, timeout="60")],
                              env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        grader.kill()
        grader.wait()
        assert_gone_soon(int(pid_file.read_text()))
    finally:
        grader.kill()
        _kill(pid_file)


@POSIX
@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_writes_complete_files_and_exits_130(tmp_path, presses):
    started = tmp_path / "started"
    slow = f"open({str(started)!r}, 'w').write('x')\nimport time\ntime.sleep(60)\n"
    student(tmp_path / "subs", "ann")
    student(tmp_path / "subs", "bea", add=(slow, ADD))
    student(tmp_path / "subs", "cid")
    grader = subprocess.Popen([sys.executable, "-m", "reasoneval_mini",
                               *argv(tmp_path / "subs", tmp_path, "--workers", "1", *OFF,
                                     timeout="60")],
                              env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        for _ in range(presses):
            grader.send_signal(signal.SIGINT)
            time.sleep(0.005)
        assert grader.wait(timeout=15) == 130
    finally:
        grader.kill()
    got = rows(tmp_path)
    assert sorted(got) == [(s, e) for s in ("ann", "bea", "cid")
                           for e in ("add", "count_words", "shout")]
    assert got["ann", "add"][0] == "passed"
    assert {got["bea", e][0] for e in ("add", "count_words", "shout")} == {"interrupted"}
    assert {got["cid", e][0] for e in ("add", "count_words", "shout")} == {"interrupted"}
    assert (tmp_path / "feedback" / "cid.md").is_file()


def test_a_student_graded_first_cannot_overwrite_another_students_notebook(tmp_path):
    victim = tmp_path / "subs" / "zoe" / "ex01_add.ipynb"
    overwrite = ("import json\n"
                 f"open({str(victim)!r}, 'w').write(json.dumps("
                 "{'cells': [{'cell_type': 'code', 'source': " + repr(ADD_STUB) + "}]}))\n")
    student(tmp_path / "subs", "amy", add=(overwrite, ADD))
    student(tmp_path / "subs", "zoe")
    assert grade(tmp_path / "subs", tmp_path, "--workers", "1") == 0
    assert statuses(tmp_path, "zoe")["add"] == "passed"


def test_the_child_environment_holds_no_instructor_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_API_KEY", "sk-secret-123")
    leak = ("def shout(text):\n    import os\n"
            "    return os.environ.get('INSTRUCTOR_API_KEY', text.upper())\n")
    student(tmp_path / "subs", "ann", words=(WORDS, leak))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "ann")["shout"] == "passed"
    assert "sk-secret-123" not in (tmp_path / "feedback" / "ann.md").read_text()


HIDDEN = '''\
# HIDDEN-MARKER-7 the instructor's secret file
from reasoneval_mini.exercises.checks import case

HIDDEN_CHECKS = {
    "add": [case("add_numbers(40, 2)", lambda f: f(40, 2), 42),
            case("add_numbers(1000, 337)", lambda f: f(1000, 337), 1337)],
}
'''


def test_student_code_cannot_read_the_hidden_tests_file(tmp_path):
    hidden = tmp_path / "hidden_checks.py"
    hidden.write_text(HIDDEN)
    snoop = ("import gc\ndef shout(text):\n"
             "    for o in gc.get_objects():\n"
             "        if isinstance(o, dict) and isinstance(o.get('hidden_tests'), str):\n"
             "            return open(o['hidden_tests']).read()[:60]\n"
             "    return text.upper()\n")
    student(tmp_path / "subs", "ann", words=(WORDS, snoop))
    assert grade(tmp_path / "subs", tmp_path, "--hidden-tests", str(hidden)) == 0
    assert "HIDDEN-MARKER-7" not in (tmp_path / "feedback" / "ann.md").read_text()
    assert statuses(tmp_path, "ann")["shout"] == "passed"


@POSIX
def test_a_notebook_symlinked_out_of_the_folder_is_refused_and_named(tmp_path):
    outside = tmp_path / "solutions" / "ex01_add.ipynb"
    outside.parent.mkdir()
    write_notebook(outside, notebook(ADD))
    folder = student(tmp_path / "subs", "eve", add=None)
    (folder / "ex01_add.ipynb").symlink_to(outside)
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["eve", "add"]
    assert status != "passed" and "ex01_add.ipynb" in message and "symlink" in message


# -- credit without solving ------------------------------------------------------------------

BLANK = {"add": (ADD_STUB,), "words": (WORDS_STUB, SHOUT_STUB)}


def _blank_with(tmp_path, cheat):
    student(tmp_path / "subs", "mal", add=(cheat, ADD_STUB), words=BLANK["words"])
    assert grade(tmp_path / "subs", tmp_path) == 0
    return statuses(tmp_path, "mal")


def test_patching_the_check_result_class_gives_no_credit(tmp_path):
    patch = ("from reasoneval_mini.exercises.checks import CheckResult\n"
             "_real = CheckResult.to_dict\n"
             "CheckResult.to_dict = lambda self: dict(_real(self), passed=True)\n")
    assert set(_blank_with(tmp_path, patch).values()) == {"failed"}


def test_an_always_equal_int_subclass_gives_no_credit(tmp_path):
    cheat = ("class Anything(int):\n    def __eq__(self, other):\n        return True\n"
             "    __hash__ = int.__hash__\n"
             "def add_numbers(a, b):\n    return Anything(0)\n")
    student(tmp_path / "subs", "mal", add=(cheat,))
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["mal", "add"]
    assert status == "failed" and "Anything" in message


def test_an_answer_nested_too_deeply_to_send_fails_its_checks_and_spoils_nothing_else(tmp_path):
    # Found by hand after the trust work: 300,000 nested lists cannot be encoded
    # (RecursionError in the child); the call must come back as a failed check.
    deep = ("def add_numbers(a, b):\n    value = []\n    for _ in range(300_000):\n"
            "        value = [value]\n    return value\n")
    student(tmp_path / "subs", "mal", add=(deep,))
    student(tmp_path / "subs", "ann")
    assert grade(tmp_path / "subs", tmp_path) == 0
    status, message = rows(tmp_path)["mal", "add"]
    assert status == "failed" and "nested too deeply" in message
    assert statuses(tmp_path, "mal")["count_words"] == "passed"
    assert set(statuses(tmp_path, "ann").values()) == {"passed"}


def test_reading_the_expected_value_from_a_stack_frame_gives_no_credit(tmp_path):
    cheat = ("import sys\n"
             "def add_numbers(a, b):\n"
             "    frame = sys._getframe(1)\n"
             "    while frame is not None:\n"
             "        for name in ('want', 'expected'):\n"
             "            if isinstance(frame.f_locals.get(name), int):\n"
             "                return frame.f_locals[name]\n"
             "        frame = frame.f_back\n"
             "    return None\n")
    student(tmp_path / "subs", "mal", add=(cheat,))
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert statuses(tmp_path, "mal")["add"] == "failed"


def test_calling_the_emitter_found_in_a_frame_gives_no_credit(tmp_path):
    cheat = ("import sys\n"
             "def add_numbers(a, b):\n"
             "    frame = sys._getframe(1)\n"
             "    while frame is not None:\n"
             "        emit = frame.f_locals.get('emit')\n"
             "        if callable(emit):\n"
             "            for exercise in ('add', 'count_words', 'shout'):\n"
             "                emit({'event': 'result', 'exercise': exercise, 'status': 'failed',\n"
             "                      'message': '', 'checks': [{'passed': True}] * 3})\n"
             "        frame = frame.f_back\n"
             "    return None\n")
    student(tmp_path / "subs", "mal", add=(cheat,), words=BLANK["words"])
    assert grade(tmp_path / "subs", tmp_path) == 0
    assert set(statuses(tmp_path, "mal").values()) == {"failed"}


# -- hidden tests stay hidden ----------------------------------------------------------------

def test_hidden_checks_are_reported_only_as_counts(tmp_path):
    hidden = tmp_path / "hidden_checks.py"
    hidden.write_text(HIDDEN)
    wrong = "def add_numbers(a, b):\n    return a + b if a < 100 else 0\n"
    student(tmp_path / "subs", "ann", add=(wrong,))
    assert grade(tmp_path / "subs", tmp_path, "--hidden-tests", str(hidden)) == 0
    feedback = (tmp_path / "feedback" / "ann.md").read_text()
    csv_text = (tmp_path / "grades.csv").read_text()
    for text in (feedback, csv_text):
        assert "1000" not in text and "1337" not in text and "40, 2" not in text
    assert "hidden checks: 1 of 2 passed" in feedback


def test_reveal_hidden_shows_the_hidden_checks_to_the_instructor(tmp_path):
    hidden = tmp_path / "hidden_checks.py"
    hidden.write_text(HIDDEN)
    student(tmp_path / "subs", "ann")
    assert grade(tmp_path / "subs", tmp_path, "--hidden-tests", str(hidden),
                 "--reveal-hidden") == 0
    assert "add_numbers(1000, 337)" in (tmp_path / "feedback" / "ann.md").read_text()
