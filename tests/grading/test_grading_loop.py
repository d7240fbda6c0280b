"""The grading loop: child processes, time limits, what a stopped child costs."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from process_checks import assert_gone_soon
from submission_class import (
    FAKE_REGISTRY, REGISTRY, STUBBORN_LOOP, add_notebook, cell, grade, main, read_csv,
    words_notebook, write_notebook)

from reasoneval_mini.grading.grader import Blame, Grade, blame, grade_student, killed_from_outside
from reasoneval_mini.grading.process import (
    ENDING_DIED, ENDING_DONE, ENDING_INTERRUPTED, ENDING_TIMEOUT, ENDINGS, ChildRun, GradingJob,
    Step, Task, run_grading_process)
from reasoneval_mini.grading.statuses import GRADE_ERROR, GRADE_MISSING, GRADE_PASSED, GRADE_TIMEOUT

pytestmark = pytest.mark.slow  # time limits and killed processes, waited out in real time

ROOT = Path(__file__).resolve().parents[2]


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
                 "--registry", str(FAKE_REGISTRY), "--timeout", "1", "--no-progress",
                 "--sandbox", "off"]) == 0  # off: the learner's process writes its pid here
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


def test_a_grader_failure_on_one_student_keeps_the_student(tmp_path, monkeypatch):
    from reasoneval_mini.grading import grader

    real = grader.grade_student

    def flaky(student_dir, *args, **kwargs):
        if Path(student_dir).name == "bea":
            raise PermissionError("cannot read bea/")
        return real(student_dir, *args, **kwargs)

    monkeypatch.setattr(grader, "grade_student", flaky)
    for name in ("ann", "bea"):
        (tmp_path / "subs" / name).mkdir(parents=True)
        write_notebook(tmp_path / "subs" / name / "ex01_add.ipynb", add_notebook())
    assert grade(tmp_path / "subs", tmp_path) == 0
    rows = {(r[0], r[1]): (r[4], r[5]) for r in read_csv(tmp_path / "grades.csv")[1:]}
    assert rows["ann", "add"][0] == GRADE_PASSED
    assert rows["bea", "add"] == (
        GRADE_ERROR, "the grader failed on this student: PermissionError: cannot read bea/")


def test_the_progress_bar_is_optional_without_tqdm(tmp_path):
    # A Python where tqdm cannot be imported: a package of that name that refuses to load.
    (tmp_path / "no_tqdm" / "tqdm").mkdir(parents=True)
    (tmp_path / "no_tqdm" / "tqdm" / "__init__.py").write_text("raise ImportError('no tqdm')\n")
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    script = ("from reasoneval_mini.grading.grader import grade_class\n"
              f"grades = grade_class({str(tmp_path / 'subs')!r}, registry={str(FAKE_REGISTRY)!r}, "
              "progress=True)\n"
              "print(sorted({(g.student, g.status) for g in grades}), len(grades))\n")
    path = os.pathsep.join([str(tmp_path / "no_tqdm"), str(ROOT)])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=path), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[('ann',", "'missing')]", "3"]


ADD_TASK = Task("ex01_add.ipynb", ((1, "x = 1"),), {"add": "add_numbers"})
WORDS_TASK = Task("ex02_words.ipynb", ((1, "x = 1"), (4, "y = 2")),
                  {"count_words": "count_words", "shout": "shout"})


def test_blame_for_a_stuck_cell_skips_that_cell():
    run = ChildRun(ENDING_TIMEOUT, step=Step("ex02_words.ipynb", cell=4))
    verdict = blame(run, [ADD_TASK, WORDS_TASK], 2.0)
    assert verdict == Blame(GRADE_TIMEOUT, "not run: the grading process made no progress for "
                            "over 2 s and was stopped while running it",
                            skip_cell=("ex02_words.ipynb", 4))


def test_blame_for_a_crash_during_checks_costs_that_exercise_only():
    run = ChildRun(ENDING_DIED, "it was killed by signal SIGSEGV",
                   Step("ex02_words.ipynb", exercise="shout"))
    verdict = blame(run, [WORDS_TASK], 2.0)
    assert (verdict.status, verdict.exercises, verdict.skip_cell) == (GRADE_ERROR, ("shout",), None)
    assert "crashed (it was killed by signal SIGSEGV; " in verdict.message


def test_blame_before_the_first_cell_costs_the_notebook():
    run = ChildRun(ENDING_TIMEOUT, step=Step("ex02_words.ipynb"))
    verdict = blame(run, [WORDS_TASK], 1.0)
    assert (verdict.exercises, verdict.skip_cell) == (("count_words", "shout"), None)
    assert verdict.message.endswith("while running the cells of ex02_words.ipynb")


def test_only_a_kill_signal_counts_as_killed_from_outside():
    import signal
    assert killed_from_outside(ChildRun(ENDING_DIED, "it was killed by signal SIGKILL",
                                        signal=signal.SIGKILL))
    assert not killed_from_outside(ChildRun(ENDING_DIED, "it was killed by signal SIGSEGV",
                                            signal=signal.SIGSEGV))
    assert not killed_from_outside(ChildRun(ENDING_DIED, "it exited with code 3"))
    assert not killed_from_outside(ChildRun(ENDING_TIMEOUT))


def test_grade_student_gives_one_grade_per_exercise_in_course_order(tmp_path):
    (tmp_path / "ann").mkdir()
    write_notebook(tmp_path / "ann" / "ex02_words.ipynb", words_notebook())
    exercises = dict(REGISTRY.EXERCISES)
    job = GradingJob(str(FAKE_REGISTRY), None, 2.0)
    counts = {i: len(e.checks) for i, e in exercises.items()}
    grades = grade_student(tmp_path / "ann", exercises, job, counts)
    assert all(isinstance(g, Grade) for g in grades)
    assert [(g.exercise, g.status) for g in grades] == [
        ("add", GRADE_MISSING), ("count_words", GRADE_PASSED), ("shout", GRADE_PASSED)]


def test_every_child_run_ends_in_a_declared_ending():
    task = Task("ex01_add.ipynb", ((1, "def add_numbers(a, b):\n    return a + b\n"),),
                {"add": "add_numbers"})
    calls = []

    def judge(exercise_id, defined, answer, failures):
        calls.append((exercise_id, defined, answer(20, 22), failures))
        return {"status": "failed", "message": "", "checks": []}

    run = run_grading_process(GradingJob(str(FAKE_REGISTRY), None, 2.0), [task], judge)
    assert (run.ending, run.how) == (ENDING_DONE, "")
    assert ENDINGS == (ENDING_DONE, ENDING_TIMEOUT, ENDING_DIED, ENDING_INTERRUPTED)
    assert calls == [("add", True, 42, [])]
    assert run.results == {"add": {"status": "failed", "message": "", "checks": []}}


def test_a_sandbox_the_kernel_refuses_leaves_the_student_not_graded_never_unconfined(tmp_path):
    from reasoneval_mini.sandbox import Isolation

    (tmp_path / "ann").mkdir()
    write_notebook(tmp_path / "ann" / "ex01_add.ipynb", add_notebook())
    exercises = dict(REGISTRY.EXERCISES)
    refused = Isolation("auto", 0, ("files",), ())  # files enforced on a kernel without Landlock
    job = GradingJob(str(FAKE_REGISTRY), None, 2.0, refused)
    counts = {i: len(e.checks) for i, e in exercises.items()}
    add = grade_student(tmp_path / "ann", exercises, job, counts)[0]
    assert add.status == "interrupted"
    assert add.message.startswith("not graded: the grader failed: ")
    assert "the sandbox could not be applied" in add.message
