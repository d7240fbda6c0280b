"""nbgrader schema-3 metadata of the exercise notebooks, and its agreement with the registry."""

import json
import re
from pathlib import Path

import pytest

from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant

#: The variant the shipped notebooks are built for.
SHIPPED = Variant(DEFAULT_IDENTITY)

from reasoneval_mini.exercises.build import TEXT_STUB
from reasoneval_mini.exercises.checks import RUBRIC_LEVELS, Criterion
from reasoneval_mini.exercises.registry import EXERCISES, NOTEBOOKS, WRITTEN_TASKS

ROOT = Path(__file__).resolve().parents[2]
GRADE_ID = re.compile(r"^[a-zA-Z0-9_-]*$")  # nbgrader's rule
FOLDERS = ("solutions", "exercises")


def _cells(folder, name):
    notebook = json.loads((ROOT / folder / name).read_text(encoding="utf-8"))
    return notebook["cells"]


def _nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader")


def _source(cell):
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


ALL = [(folder, name) for folder in FOLDERS for name in NOTEBOOKS]


def test_both_folders_hold_exactly_the_registry_notebooks():
    for folder in FOLDERS:
        assert sorted(p.name for p in (ROOT / folder).glob("*.ipynb")) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("folder, name", ALL)
def test_every_cell_has_schema_3_metadata_with_a_valid_grade_id(folder, name):
    for index, cell in enumerate(_cells(folder, name), 1):
        meta = _nbgrader(cell)
        assert meta is not None, f"{folder}/{name} cell {index} has no nbgrader metadata"
        assert meta["schema_version"] == 3
        assert GRADE_ID.match(meta["grade_id"]) and meta["grade_id"], meta["grade_id"]
        assert {"solution", "grade", "locked"} <= set(meta)


@pytest.mark.parametrize("folder, name", ALL)
def test_grade_ids_are_unique_within_a_notebook(folder, name):
    ids = [_nbgrader(cell)["grade_id"] for cell in _cells(folder, name)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_grade_ids_are_unique_across_the_course():
    ids = [_nbgrader(cell)["grade_id"] for name in NOTEBOOKS for cell in _cells("solutions", name)]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("folder, name", ALL)
def test_solution_cells_are_unlocked_code_and_graded_cells_locked_with_points(folder, name):
    # nbgrader schema 3: a solution cell is unlocked; a code solution is autograded through
    # its locked test cell; a markdown cell with grade and solution is a manually graded
    # answer and carries its points itself.
    for cell in _cells(folder, name):
        meta = _nbgrader(cell)
        if meta["solution"]:
            assert meta["locked"] is False
            assert meta["grade"] is (cell["cell_type"] == "markdown"), meta["grade_id"]
        if meta["grade"]:
            assert meta["locked"] is not meta["solution"]
            assert isinstance(meta["points"], (int, float)) and meta["points"] > 0
        if not meta["solution"] and not meta["grade"]:
            assert meta["locked"] is True, f"read-only cell {meta['grade_id']} must be locked"


@pytest.mark.parametrize("folder, name", ALL)
def test_each_exercise_has_its_solution_and_check_cell_with_registry_points(folder, name):
    cells = {(_nbgrader(c)["grade_id"]): c for c in _cells(folder, name)}
    own = [e for e in EXERCISES.values() if e.notebook == name]
    written = {task.id for task in WRITTEN_TASKS.values() if task.notebook == name}
    assert own or written, name  # the capstone's notebook holds a written task only
    graded = {gid for gid, c in cells.items() if _nbgrader(c)["grade"]}
    assert graded == {f"{e.id}_check" for e in own} | written
    for exercise in own:
        solution = cells[exercise.id]
        assert _nbgrader(solution)["solution"] is True
        assert f"def {exercise.answer_name}(" in _source(solution)
        test = cells[f"{exercise.id}_check"]
        assert _nbgrader(test)["points"] == exercise.points
        assert _source(test).strip() == f'check("{exercise.id}", {exercise.answer_name})'


@pytest.mark.parametrize("folder, name", ALL)
def test_task_cell_shows_the_registry_title_points_and_id(folder, name):
    cells = {(_nbgrader(c)["grade_id"]): c for c in _cells(folder, name)}
    for exercise in (e for e in EXERCISES.values() if e.notebook == name):
        text = _source(cells[f"{exercise.id}_task"])
        assert exercise.title in text and exercise.statement_for(SHIPPED) in text
        assert f"({exercise.points} point" in text and f"`{exercise.id}`" in text


def test_solution_cells_hold_a_marked_region_and_exercises_none():
    for name in NOTEBOOKS:
        for folder, wanted in (("solutions", True), ("exercises", False)):
            for cell in _cells(folder, name):
                if _nbgrader(cell)["solution"] and cell["cell_type"] == "code":
                    assert ("### BEGIN SOLUTION" in _source(cell)) is wanted


@pytest.mark.parametrize("folder, name", ALL)
def test_each_written_task_has_its_task_cell_and_a_manually_graded_answer_cell(folder, name):
    cells = {(_nbgrader(c)["grade_id"]): c for c in _cells(folder, name)}
    for task in (t for t in WRITTEN_TASKS.values() if t.notebook == name):
        assert task.statement in _source(cells[f"{task.id}_task"])
        answer = cells[task.id]
        meta = _nbgrader(answer)
        assert answer["cell_type"] == "markdown" and meta["points"] == task.points
        assert meta["grade"] is True and meta["solution"] is True and meta["locked"] is False


def test_written_answers_hold_the_rubric_in_the_master_and_the_stub_in_the_copy():
    for task in WRITTEN_TASKS.values():
        master = {_nbgrader(c)["grade_id"]: c for c in _cells("solutions", task.notebook)}
        copy = {_nbgrader(c)["grade_id"]: c for c in _cells("exercises", task.notebook)}
        text = _source(master[task.id])
        for criterion in task.rubric:
            assert f"**{criterion.name}** ({criterion.points} points)" in text
            assert all(f"    - {level}: {anchor}" in text
                       for level, anchor in zip(RUBRIC_LEVELS, criterion.anchors))
        assert "Model answer" in text
        assert _source(copy[task.id]) == TEXT_STUB


def test_exercise_copies_lock_read_only_cells_in_jupyter():
    for name in NOTEBOOKS:
        for cell in _cells("exercises", name):
            meta = _nbgrader(cell)
            editable = cell["metadata"].get("editable", True)
            assert editable is (not meta["locked"]), meta["grade_id"]
            assert cell["metadata"]["deletable"] is False, meta["grade_id"]


def test_exercise_notebooks_have_no_outputs():
    for name in NOTEBOOKS:
        for cell in _cells("exercises", name):
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None


def test_pytest_runs_the_solutions_but_never_the_exercise_stubs():
    # Stubs raise by design; the masters must run top to bottom under nbval.
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    testpaths = re.search(r"^testpaths\s*=\s*\[(.*?)\]", text, re.MULTILINE | re.DOTALL).group(1)
    paths = re.findall(r'"([^"]+)"', testpaths)
    assert "solutions" in paths and "exercises" not in paths


def test_every_written_task_of_the_course_has_levelled_criteria_with_an_anchor_each():
    for task in WRITTEN_TASKS.values():
        assert task.rubric and all(isinstance(c, Criterion) for c in task.rubric), task.id
        assert task.points == len(task.rubric) * RUBRIC_LEVELS[-1]
        for criterion in task.rubric:
            assert len(set(criterion.anchors)) == len(RUBRIC_LEVELS), criterion.name


def test_each_written_task_sits_after_the_lesson_that_teaches_it():
    # The capstone's report follows the capstone; no task of ex01 asks about later lessons.
    from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS, LESSONS

    lesson_of = {entry.notebook: entry.lesson for entry in EXERCISE_NOTEBOOKS}
    capstone = next(lesson for lesson in LESSONS if "capstone" in lesson.notebook)
    assert lesson_of[WRITTEN_TASKS["kp4_capstone_report"].notebook] == capstone.number
    statement = WRITTEN_TASKS["kp1_explain_answer_space"].statement
    assert "15.000" not in statement and "from this lesson" in statement


def test_the_capstone_report_asks_for_what_the_printed_report_cannot_hold():
    task = WRITTEN_TASKS["kp4_capstone_report"]
    assert "change **one** setting" in task.statement and "interpretation" in task.statement
    names = [criterion.name for criterion in task.rubric]
    assert "The changed setting" in names and "Interpretation and limit" in names


def test_the_build_writes_the_registry_points_into_nbgrader_metadata():
    for name in NOTEBOOKS:
        cells = {_nbgrader(c)["grade_id"]: c for c in _cells("solutions", name)}
        for task in (t for t in WRITTEN_TASKS.values() if t.notebook == name):
            assert _nbgrader(cells[task.id])["points"] == task.points
