"""``reasoneval-course progress``: the learner's folder, checked by the grader's machinery."""

import json
import os
import shutil
from pathlib import Path

import pytest
from process_checks import assert_gone_soon

from reasoneval_mini.feedback import progress
from reasoneval_mini.cli import main
from reasoneval_mini.exercises.registry import EXERCISES
from reasoneval_mini.grading.progress import PROGRESS_STATES, evaluate_folder, row_from_grade
from reasoneval_mini.grading.grader import Grade
from reasoneval_mini.grading.statuses import GRADE_STATUSES

pytestmark = pytest.mark.slow  # real kernels per notebook, endless loops included

ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp_path, source):
    folder = tmp_path / "mine"
    # One edition: the English notebooks, without exercises/zh-CN/ (whose copies a
    # folder with a missing notebook would otherwise find one level down).
    shutil.copytree(ROOT / source, folder, ignore=shutil.ignore_patterns("zh-CN"))
    return folder


def _edit_cell(path, grade_id, edit):
    """Apply *edit* to the cell with nbgrader *grade_id* of the notebook at *path*."""
    notebook = json.loads(path.read_text())
    cells = [c for c in notebook["cells"] if c["metadata"]["nbgrader"]["grade_id"] == grade_id]
    assert len(cells) == 1, grade_id
    edit(cells[0])
    path.write_text(json.dumps(notebook))


def _set_source(*lines):
    return lambda cell: cell.update(source=[line + "\n" for line in lines])


def test_progress_command_on_fresh_exercises_and_on_solutions(capsys):
    assert main(["progress", str(ROOT / "exercises")]) == 0
    out = capsys.readouterr().out
    assert out.count("not attempted") == len(EXERCISES)
    assert {row.state for row in evaluate_folder(ROOT / "solutions")} == {"passed"}


def test_progress_reports_broken_missing_and_looping_notebooks(tmp_path):
    folder = _copy(tmp_path, "exercises")
    (folder / "ex01_answer_equivalence.ipynb").write_text("{not json")
    (folder / "ex02_pass_at_k.ipynb").unlink()
    ex03 = folder / "ex03_execution_states.ipynb"
    _edit_cell(ex03, "kp3_rates", _set_source("def rates(records):", "    while True:", "        pass"))

    def retype(cell):  # retyped to markdown by accident
        cell["cell_type"] = "markdown"
        del cell["outputs"], cell["execution_count"]
    _edit_cell(ex03, "kp3_five_state_log", retype)
    rows = {row.exercise_id: row for row in evaluate_folder(folder, timeout=2)}
    assert rows["kp1_practice_verdicts"].state == "invalid notebook"
    assert "not valid notebook JSON" in rows["kp1_practice_verdicts"].message
    assert rows["kp2_two_subsets"].state == "missing notebook"
    assert rows["kp3_five_state_log"].state == "missing answer"
    assert "non-code cell" in rows["kp3_five_state_log"].message
    assert rows["kp3_rates"].state == "timeout" and "did not finish within 2 s" in rows["kp3_rates"].message
    # The loop in rates() costs only kp3_rates: the exercises after it are still checked.
    assert rows["kp3_failure_report"].state == "not attempted"
    assert rows["kp3_predict_statuses"].state == "not attempted"


def test_progress_names_a_copy_that_holds_the_work_and_a_cell_that_stops_run_all(tmp_path,
                                                                                capsys):
    # A learner who saved their work in -Copy1 and left the original untouched, and
    # whose notebook stops in a cell after defining a (correct) answer: the table
    # alone says "not attempted" and "passed"; the lines below it say why.
    folder = _copy(tmp_path, "exercises")
    shutil.copy(ROOT / "solutions" / "ex01_answer_equivalence.ipynb",
                folder / "ex01_answer_equivalence-Copy1.ipynb")
    ex02 = folder / "ex02_pass_at_k.ipynb"
    _edit_cell(ex02, "kp2_two_subsets", _set_source(
        "import itertools", "def two_subsets(n):",
        "    return list(itertools.combinations(range(n), 2))", "1 / 0"))
    assert main(["progress", str(folder), "--timeout", "5"]) == 0
    out = capsys.readouterr().out
    states = _table_states(out)
    assert states["kp1_practice_verdicts"] == "not attempted"
    assert states["kp2_two_subsets"] == "passed"
    ex01_ids = [i for i, e in EXERCISES.items()
                if e.notebook.endswith("ex01_answer_equivalence.ipynb")]
    copy_lines = [line for line in out.splitlines()
                  if "ex01_answer_equivalence-Copy1.ipynb is a copy of it" in line]
    assert len(copy_lines) == 1 and copy_lines[0].startswith(f"  {', '.join(ex01_ids)} (")
    assert "save your work under that name" in copy_lines[0]
    assert ("  kp2_two_subsets (ex02_pass_at_k.ipynb): note: cell" in out
            and "which defines two_subsets(), failed: ZeroDivisionError" in out)
    assert "not attempted yet" not in out  # the usual words stay in the table's state


def _table_states(out):
    """``{exercise_id: state}`` from the printed progress table."""
    rows = (line.split(maxsplit=2) for line in out.splitlines())
    return {row[0]: row[2] for row in rows if len(row) == 3 and row[1].isdigit()}


@pytest.mark.skipif(os.name != "posix", reason="the watchdog and process groups are POSIX only")
def test_an_endless_loop_in_a_cell_costs_only_its_exercise(tmp_path, capsys):
    folder = _copy(tmp_path, "solutions")
    pid_file = tmp_path / "grandchild.pid"
    # A plain loop, stopped by the watchdog; the process goes on with the next cell.
    _edit_cell(folder / "ex03_execution_states.ipynb", "kp3_rates",
               lambda cell: cell.update(source=["while True:\n    pass\n"] + cell["source"]))
    # A loop that swallows every alarm, after starting a process of its own: the
    # whole process group is killed, and a fresh process skips this cell.
    spawn = ("import subprocess, sys\n"
             "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
             f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n")
    stubborn = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n"
    _edit_cell(folder / "ex02_pass_at_k.ipynb", "kp2_exact_pass_at_k",
               lambda cell: cell.update(source=[spawn, stubborn] + cell["source"]))
    # The limit is per cell: three slow cells of 0.6 s each are fine under 1 s.
    for grade_id in ("kp1_classify_outcome", "kp1_score_gsm8k", "kp1_parse_rational"):
        _edit_cell(folder / "ex01_answer_equivalence.ipynb", grade_id,
                   lambda cell: cell.update(source=["import time\ntime.sleep(0.6)\n"] + cell["source"]))
    # --sandbox off: the cell writes its process's pid where this test reads it.
    assert main(["progress", str(folder), "--timeout", "1", "--sandbox", "off"]) == 0
    out = capsys.readouterr().out
    states = _table_states(out)
    from reasoneval_mini.exercises.registry import WRITTEN_TASKS
    written = sum(task.points for task in WRITTEN_TASKS.values())
    assert states.pop("written") == (f"{len(WRITTEN_TASKS)} written answers, {written} points, "
                                     "graded by your instructor")
    assert set(states) == set(EXERCISES)
    assert {i for i, state in states.items() if state != "passed"} == {"kp3_rates", "kp2_exact_pass_at_k"}
    # The cells that define both answers timed out: the state says so.
    assert states["kp3_rates"] == states["kp2_exact_pass_at_k"] == "timeout"
    assert f"{len(EXERCISES) - 2} of {len(EXERCISES)} exercises passed" in out
    assert "kp3_rates (ex03_execution_states.ipynb): rates() is not defined: cell" in out
    assert "did not finish within 1 s" in out
    assert "made no progress for over 1 s and was stopped" in out
    assert_gone_soon(int(pid_file.read_text()))


def test_progress_in_the_notebook_can_evaluate_a_folder(capsys):
    progress(ROOT / "solutions")
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{len(EXERCISES)} of {len(EXERCISES)}")


def test_progress_command_refuses_a_missing_folder(tmp_path, capsys):
    assert main(["progress", str(tmp_path / "nope")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("reasoneval-course progress: error: ") and "is not a folder" in error


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan"), True, "5"])
def test_a_bad_timeout_is_refused_naming_the_value(timeout):
    with pytest.raises(ValueError, match="timeout must be a positive"):
        evaluate_folder(ROOT / "exercises", timeout=timeout)


def test_every_grade_status_maps_to_a_declared_progress_state():
    states = {row_from_grade(Grade("me", "x", 0, 1, status, "")).state for status in GRADE_STATUSES}
    assert states <= set(PROGRESS_STATES)
    assert len(set(PROGRESS_STATES)) == len(PROGRESS_STATES) == 8


def test_progress_of_a_folder_in_a_notebook_prints_what_the_command_prints(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(ROOT / "solutions" / "ex01_answer_equivalence.ipynb", folder)  # others missing
    assert main(["progress", str(folder)]) == 0
    command = capsys.readouterr().out
    progress(str(folder))
    assert capsys.readouterr().out == command
    assert "missing notebook" in command and "no notebook ex02_pass_at_k.ipynb" in command
