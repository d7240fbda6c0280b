"""The cheat sheet's mastery table names an exercise only where one of its checks asks the criterion.

Issue 23, item 7: the "checked" column said that "a supervising subprocess is not a sandbox"
was checked by `kp3_possible_states`, which no item of it asks. Here the table is parsed,
every exercise id in its last column must be in the registry (a written task where the row
says "written task"), and what each named exercise asks (its title, statement, what its
checks test, its hint; a written task's rubric) must mention the row's concept.
"""

import re
from pathlib import Path

import pytest

from reasoneval_mini.exercises import ex03_execution_states
from reasoneval_mini.exercises.registry import EXERCISES, WRITTEN_TASKS
from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant

SHEET = Path(__file__).resolve().parents[2] / "docs" / "cheatsheet.md"
HEADING = "## 5. Mastery table"

#: Per row (the start of its first column): a pattern that what every exercise named in
#: the row asks must contain (case-insensitive).
ROW_CONCEPTS = {
    "State your answer space": r"answer space",
    "Explain `None` vs `False`": r"\bNone\b",
    "Derive pass@k from combinatorial counting": r"subset|draw",
    "Recognise that `k > n` is invalid": r"k > n|n < k",
    "Trace HumanEval's call chain": r"check_correctness|human-eval|result",
    "Do not take the supervising subprocess for a full sandbox":
        r"security boundary|reliability_guard",
    "A report holds each problem's sampling budget": r"per.problem|budget|interval|both runs",
    "Task: compare `0.5`, `1/2`, `0.5001`": r"spelling|close number",
    "Task: enumerate the ten 2-subsets": r"subset",
    "Task: build logs with all five states": r"five states|denominator|coverage",
    "Task: write which isolation and dependency conditions": r"isolation|conditions",
    "GSM8K's `####` protocol": r"GSM8K|####",
    # Every lesson's objectives (issue 25), as its first cell lists them: each row names
    # the exercise or written task that checks it.
    "Lesson 01 objective: compare final answers as exact": r"exact",
    "Lesson 01 objective: keep `False`, `None` and `ValueError`": r"ValueError|broken reference",
    "Lesson 01 objective: apply GSM8K's": r"comma|unit",
    "Lesson 01 objective: declare an answer space": r"answer space",
    "Lesson 01 objective: a tolerance only": r"tolerance",
    "Lesson 01 objective (Going further)": r"false positive",
    "Lesson 02 objective: derive pass@k": r"subset|draw",
    "Lesson 02 objective: the combinatorial estimator is unbiased": r"plug-in",
    "Lesson 02 objective: per problem, then the mean": r"pool",
    "Lesson 02 objective: refuse `k > n`": r"k > n",
    "Lesson 02 objective: report pass@k with its budget": r"budget",
    "Lesson 03 objective: run a generated program": r"execute_program|result",
    "Lesson 03 objective: the five execution states": r"assertion_failed|five states",
    "Lesson 03 objective: coverage, success rate": r"attempted success",
    "Lesson 03 objective: `timeout` and `not_run`": r"denominator|dropped|not_run",
    "Lesson 03 objective: trace HumanEval's": r"check_correctness|human-eval",
    "Lesson 03 objective: a reliability guard": r"security boundary|reliability_guard",
    "Lesson 03 objective: passing the tests": r"not whether it is correct|passing the tests",
    "Lesson 05 objective: build a deterministic": r"seed",
    "Lesson 05 objective: summarise a run": r"coverage|denominator",
    "Lesson 05 objective: pass@k per problem": r"per problem|per-problem",
    "Lesson 05 objective: report the budget": r"budget",
    "Lesson 05 objective: compare two independently": r"paired",
    "Lesson 05 objective: score GSM8K-style": r"no marker",
    "Lesson 05 objective: write a short report": r"limit",
    # Lesson 04's objectives (issue 25): each names the exercise of ex04 that checks it.
    "Lesson 04 objective: compute a standard deviation": r"standard deviation",
    "Lesson 04 objective: the standard error over problems": r"standard error over problems",
    "Lesson 04 objective: the interval,": r"95% interval",
    "Lesson 04 objective: compare two independently": r"paired",
    "Lesson 04 objective: the number of problems": r"power",
    "Lesson 04 objective: t for few problems": r"degrees of freedom",
}

#: Menus an exercise's statement points to (the notebook prints them): part of what it asks.
MENUS = {"kp3_conditions_to_fix": lambda: list(ex03_execution_states.CONDITIONS.values())}

NAMED = re.compile(r"(written task )?`(kp\d_\w+)`")


def _rows():
    """``[(first column, last column)]`` of the mastery table."""
    text = SHEET.read_text(encoding="utf-8")
    section = text[text.index(HEADING):]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("| ") and not line.startswith("| source page") and "---" not in line:
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            assert len(cells) == 3, line
            rows.append((cells[0], cells[2]))
    return rows


def _asked(exercise_id, written):
    """What exercise *exercise_id* asks, as one text: statement, checks, rubric."""
    if written:
        task = WRITTEN_TASKS[exercise_id]
        return " ".join([task.title, task.statement] + [
            part for c in task.rubric for part in (c.name, c.looks_for, *c.anchors)])
    exercise = EXERCISES[exercise_id]
    menu = MENUS.get(exercise_id, lambda: [])()
    return " ".join([exercise.title, exercise.statement_for(Variant(DEFAULT_IDENTITY)),
                     exercise.checks_what, exercise.hint, *menu])


def _concept(first_column):
    [pattern] = [p for start, p in ROW_CONCEPTS.items() if first_column.startswith(start)]
    return pattern


def test_the_table_has_every_row_this_test_knows_and_each_names_a_check_or_says_lesson_only():
    rows = _rows()
    assert len(rows) == len(ROW_CONCEPTS)
    for first, last in rows:
        _concept(first)  # one concept per row
        assert NAMED.search(last) or "lesson only" in last, first


@pytest.mark.parametrize("first, last", _rows(), ids=[row[0][:40] for row in _rows()])
def test_every_exercise_named_as_checking_a_row_exists_and_asks_its_concept(first, last):
    pattern = _concept(first)
    for written, exercise_id in NAMED.findall(last):
        registry = WRITTEN_TASKS if written else EXERCISES
        assert exercise_id in registry, (
            f"{first!r} names {exercise_id!r}, which is not in the registry's "
            f"{'written tasks' if written else 'exercises'}")
        assert re.search(pattern, _asked(exercise_id, bool(written)), re.IGNORECASE), (
            f"{first!r} names {exercise_id!r}, whose statement and checks never mention "
            f"{pattern!r}")


def test_the_supervising_subprocess_is_lesson_only_and_not_claimed_for_possible_states():
    [(_, last)] = [row for row in _rows() if row[0].startswith("Do not take the supervising")]
    assert "lesson only" in last and "kp3_possible_states" not in last


def test_an_exercise_that_does_not_ask_the_concept_is_caught():
    # The check above can fail: predict_statuses never asks about a security boundary.
    # (possible_states names reliability_guard in its stated conditions, without asking
    # whether it is a boundary: the row's concept is still not claimed for it, see above.)
    pattern = _concept("Do not take the supervising subprocess for a full sandbox")
    assert not re.search(pattern, _asked("kp3_predict_statuses", False), re.IGNORECASE)


def test_each_objective_of_lesson_04_names_an_exercise_of_its_own_notebook():
    rows = [row for row in _rows() if row[0].startswith("Lesson 04 objective")]
    assert len(rows) == 6  # the six objectives of lesson 04's first cell
    for first, last in rows:
        named = [exercise_id for written, exercise_id in NAMED.findall(last) if not written]
        assert named and all(EXERCISES[exercise_id].notebook == "ex04_uncertainty.ipynb"
                             for exercise_id in named), first


LESSONS = Path(__file__).resolve().parents[2] / "notebooks"


def _objectives(lesson_number):
    """The objectives listed in lesson *lesson_number*'s first cell (one per top-level bullet)."""
    import json
    from reasoneval_mini.course_map import LESSONS as MAP
    [lesson] = [lesson for lesson in MAP if lesson.number == lesson_number]
    notebook = json.loads((LESSONS / lesson.notebook).read_text(encoding="utf-8"))
    first = "".join(notebook["cells"][0]["source"])
    block = first[first.index("**Objectives**"):].split("*Time:")[0]
    return [line for line in block.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("lesson_number", ["01", "02", "03", "04", "05"])
def test_every_objective_of_every_lesson_has_a_row_that_names_its_check(lesson_number):
    objectives = _objectives(lesson_number)
    assert objectives, f"lesson {lesson_number} lists no objectives"
    rows = [(first, last) for first, last in _rows()
            if first.startswith(f"Lesson {lesson_number} objective")]
    assert len(rows) == len(objectives), (
        f"lesson {lesson_number} lists {len(objectives)} objectives, the cheat sheet maps "
        f"{len(rows)}: {objectives}")
    for first, last in rows:
        assert NAMED.search(last), f"{first!r} names no exercise or written task"
