"""The lessons' "your turn" cells: shipped with a placeholder, answered by their folded answer.

A your-turn cell is a code cell whose learner writes the key computation
before a library function does it. It follows one pattern in every lesson:

* it starts with ``# NBVAL_CHECK_OUTPUT``, holds one or more placeholder lines
  ``name = ...`` next to each other, and ends with a ``check_*`` call of
  ``reasoneval_mini.lessons.in_lesson_checks``;
* as shipped (and stored) it prints ``Not written yet.``: nbval runs the lesson
  top to bottom, and the notebook never does what the learner is asked to do;
* the markdown cell just above it is a ``> **Challenge.**`` whose folded answer
  holds a ``python`` block: that block, put in place of the placeholder lines,
  makes the check print ``Right.``. The test runs it in a real kernel with every
  cell before it, so the answer is checked in the lesson's own state.
"""

import re
from pathlib import Path

import nbformat
import pytest

from reasoneval_mini.course_map import LESSONS
from reasoneval_mini.lessons.in_lesson_checks import NOT_WRITTEN, RIGHT

pytestmark = pytest.mark.slow  # runs each lesson's folded answers

ROOT = Path(__file__).resolve().parents[2]
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
YOUR_TURN = re.compile(r"^check_\w+\(", re.MULTILINE)
PLACEHOLDER = re.compile(r"^[A-Za-z_]\w* = \.\.\.(?:\s+#.*)?$")
ANSWER_CODE = re.compile(r"<details><summary>Answer</summary>.*?```python\n(.*?)\n```.*?</details>",
                         re.DOTALL)
#: Your-turn cells each lesson has at least (issue 25: the key computation of each lesson).
EXPECTED = {"01": 1, "02": 2, "03": 1, "04": 3, "05": 1}


def read(lesson):
    return nbformat.read(ROOT / "notebooks" / lesson.notebook, as_version=4)


def your_turn_indices(cells):
    return [i for i, cell in enumerate(cells)
            if cell.cell_type == "code" and YOUR_TURN.search(cell.source)]


def folded_answer(markdown):
    """The python block of the folded answer of a markdown cell (its blockquote marks removed)."""
    text = "\n".join(re.sub(r"^> ?", "", line) for line in markdown.splitlines())
    found = ANSWER_CODE.search(text)
    return found and found.group(1)


def answered(code, answer):
    """*code* with its block of placeholder lines replaced by *answer*."""
    lines = code.splitlines()
    holes = [i for i, line in enumerate(lines) if PLACEHOLDER.match(line)]
    assert holes and holes == list(range(holes[0], holes[-1] + 1)), (
        f"the placeholder lines must sit together: {code!r}")
    return "\n".join(lines[:holes[0]] + answer.splitlines() + lines[holes[-1] + 1:])


def stored_text(cell):
    return "".join(output.get("text", "") for output in cell.outputs)


def lesson_params():
    return [pytest.param(lesson, id=lesson.notebook)
            for lesson in LESSONS if lesson.number in EXPECTED]


@pytest.mark.parametrize("lesson", lesson_params())
def test_the_lesson_has_its_your_turn_cells(lesson):
    assert len(your_turn_indices(read(lesson).cells)) >= EXPECTED[lesson.number]


def every_your_turn_cell():
    for lesson in LESSONS:
        cells = read(lesson).cells
        for number, index in enumerate(your_turn_indices(cells)):
            yield pytest.param(lesson, index, id=f"{lesson.notebook}-{number}")


@pytest.mark.parametrize("lesson, index", list(every_your_turn_cell()))
def test_a_your_turn_cell_ships_unwritten_under_a_challenge_with_a_folded_answer(lesson, index):
    cells = read(lesson).cells
    cell, above = cells[index], cells[index - 1]
    assert cell.source.startswith(CHECK_MARKER + "\n")
    assert any(PLACEHOLDER.match(line) for line in cell.source.splitlines()), cell.source
    assert stored_text(cell).startswith(NOT_WRITTEN), stored_text(cell)
    assert above.cell_type == "markdown" and "> **Challenge.**" in above.source
    answer = folded_answer(above.source)
    assert answer, "the folded answer above the cell holds no ```python block"
    assert "..." not in answer and not YOUR_TURN.search(answer)
    answered(cell.source, answer)  # the placeholder lines sit together


def test_answered_replaces_the_placeholder_block_only():
    code = "# NBVAL_CHECK_OUTPUT\nn = 5\na = ...   # one\nb = ...\ncheck_it(a, b)"
    assert answered(code, "a, b = 1, 2\nb += 1") == (
        "# NBVAL_CHECK_OUTPUT\nn = 5\na, b = 1, 2\nb += 1\ncheck_it(a, b)")
    with pytest.raises(AssertionError, match="together"):
        answered("a = ...\nn = 5\nb = ...\ncheck_it(a, b)", "a = b = 1")


@pytest.mark.parametrize("lesson", [lesson for lesson in LESSONS
                                    if your_turn_indices(read(lesson).cells)],
                         ids=lambda lesson: lesson.notebook)
def test_the_folded_answers_make_every_check_of_the_lesson_say_right(lesson, tmp_path):
    from nbclient import NotebookClient

    notebook = read(lesson)
    indices = your_turn_indices(notebook.cells)
    for index in indices:
        cell = notebook.cells[index]
        cell.source = answered(cell.source, folded_answer(notebook.cells[index - 1].source))
    # Every cell up to the last your-turn cell, in a real kernel: the answers run in the
    # state the lesson has built, as a learner's would.
    notebook.cells = notebook.cells[: indices[-1] + 1]
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    for index in indices:
        text = stored_text(notebook.cells[index])
        assert text.startswith(RIGHT), f"{lesson.notebook} cell {index}: {text}"
