"""Each lesson's stated time is measured, not guessed, and a challenge comes at least every 15 minutes.

The measure (one model for every lesson, so that the lessons compare):

* reading: the markdown's words (HTML tags left out, folded answers in) at
  :data:`WORDS_PER_MINUTE`;
* each code cell: :data:`MINUTES_PER_CODE_CELL` to read it, run it and read its output;
* each "your turn" cell (a cell whose learner writes the computation, ending in a
  ``check_*`` call of ``reasoneval_mini.lessons.in_lesson_checks``):
  :data:`MINUTES_PER_YOUR_TURN` more, to write and fix it;
* each other challenge (answered by thinking, or in a cell the learner adds):
  :data:`MINUTES_PER_PREDICTION`.

Words are counted per cell, so the same measure places each challenge in
measured time: no stretch of a lesson may go 15 minutes without one.

A challenge is a markdown ``> **Challenge.**`` block with a folded answer,
``<details><summary>Answer</summary>``. The stated time is the first cell's
``*Time: about N minutes``, plus M for an optional part stated as ``plus M``.
"""

import json
import math
import re
from pathlib import Path

import pytest

from reasoneval_mini.course_map import LESSONS

ROOT = Path(__file__).resolve().parents[2]
WORDS_PER_MINUTE = 200
MINUTES_PER_CODE_CELL = 1
MINUTES_PER_YOUR_TURN = 3
MINUTES_PER_PREDICTION = 2
#: A stated time may be this much above or below the measured one (reading speeds differ).
TOLERANCE = 0.25
CHALLENGE_EVERY_MINUTES = 15

WORD = re.compile(r"[^\W_]+(?:['’.,/-][^\W_]+)*")
STATED = re.compile(r"\*Time: about (\d+) minutes(?:[^*]*?\bplus (\d+))?")
CHALLENGE = re.compile(r"\*\*Challenge\.\*\*(.*?)(?=\*\*Challenge\.\*\*|\Z)", re.DOTALL)
FOLDED = "<details><summary>Answer</summary>"
YOUR_TURN = re.compile(r"^check_\w+\(", re.MULTILINE)


def cells_of(lesson):
    return json.loads((ROOT / "notebooks" / lesson.notebook).read_text(encoding="utf-8"))["cells"]


def source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def stated_minutes(cells):
    found = STATED.search(source(cells[0]))
    assert found, "the first cell states no '*Time: about N minutes'"
    return int(found.group(1)) + int(found.group(2) or 0)


def challenges(cells):
    """The challenge blocks of the markdown cells that fold their answer."""
    markdown = "\n".join(source(c) for c in cells if c["cell_type"] == "markdown")
    return [block for block in CHALLENGE.findall(markdown) if FOLDED in block]


def your_turn_cells(cells):
    return [c for c in cells if c["cell_type"] == "code" and YOUR_TURN.search(source(c))]


def cell_minutes(cells, index):
    """Measured minutes of ``cells[index]``; a challenge answered in the your-turn cell after it
    is counted there (writing it), not as a prediction as well."""
    cell = cells[index]
    if cell["cell_type"] == "code":
        written = bool(YOUR_TURN.search(source(cell)))
        return MINUTES_PER_CODE_CELL + written * MINUTES_PER_YOUR_TURN
    words = len(WORD.findall(re.sub(r"<[^>]+>", " ", source(cell))))
    following = cells[index + 1] if index + 1 < len(cells) else None
    answered_below = bool(following and following["cell_type"] == "code"
                          and YOUR_TURN.search(source(following)))
    predicted = max(len(challenges([cell])) - answered_below, 0)
    return words / WORDS_PER_MINUTE + predicted * MINUTES_PER_PREDICTION


def measured_minutes(cells):
    return sum(cell_minutes(cells, index) for index in range(len(cells)))


def lesson_params(skip_before="01"):
    return [pytest.param(lesson, id=lesson.notebook)
            for lesson in LESSONS if lesson.number >= skip_before]


@pytest.mark.parametrize("lesson", lesson_params())
def test_a_challenge_with_a_folded_answer_at_least_every_15_minutes(lesson):
    cells = cells_of(lesson)
    needed = math.ceil(stated_minutes(cells) / CHALLENGE_EVERY_MINUTES)
    found = len(challenges(cells))
    assert found >= needed, (f"{lesson.notebook}: {found} challenges in {stated_minutes(cells)} "
                             f"stated minutes; at least {needed} needed")


@pytest.mark.parametrize("lesson", lesson_params(skip_before="00"))
def test_the_stated_time_is_the_measured_time(lesson):
    cells = cells_of(lesson)
    stated, measured = stated_minutes(cells), measured_minutes(cells)
    assert (1 - TOLERANCE) * measured <= stated <= (1 + TOLERANCE) * measured, (
        f"{lesson.notebook} states {stated} minutes and measures {measured:.0f}")


def challenge_gaps(cells):
    """Measured minutes from the start to the first challenge, between challenges, and from the last to the end."""
    elapsed, marks = 0.0, []
    for index, cell in enumerate(cells):
        elapsed += cell_minutes(cells, index)
        marks += [elapsed] * len(challenges([cell]))
    return [later - earlier for earlier, later in zip([0.0, *marks], [*marks, elapsed])]


@pytest.mark.parametrize("lesson", lesson_params())
def test_no_stretch_of_a_lesson_goes_15_measured_minutes_without_a_challenge(lesson):
    gaps = challenge_gaps(cells_of(lesson))
    assert max(gaps) <= CHALLENGE_EVERY_MINUTES, (
        f"{lesson.notebook}: stretches of {[round(gap) for gap in gaps]} measured minutes")


def test_the_measure_counts_what_it_says():
    cells = [
        {"cell_type": "markdown", "source": "*Time: about 10 minutes (plus 5 for the rest)*\n"
                                            + "word " * 196},
        {"cell_type": "markdown", "source": "> **Challenge.** Why?\n> <details><summary>Answer"
                                            "</summary>\n> Because.\n> </details>"},
        {"cell_type": "markdown", "source": "> **Challenge.** Unfolded, so it does not count."},
        {"cell_type": "code", "source": "x = ...\ncheck_thing(x)"},
        {"cell_type": "code", "source": "print(1)"},
    ]
    assert stated_minutes(cells) == 15
    assert len(challenges(cells)) == 1 and len(your_turn_cells(cells)) == 1
    # 200 words after dropping the tags (196 + "Time about minutes plus for the rest" etc.)
    words = len(WORD.findall(re.sub(r"<[^>]+>", " ", "\n".join(source(c) for c in cells[:3]))))
    # the folded challenge is not just above the your-turn cell: it is a prediction too
    assert measured_minutes(cells) == pytest.approx(words / 200 + 2 + 2 * 1 + 1 * 3)
    gaps = challenge_gaps(cells)
    assert len(gaps) == 2 and sum(gaps) == pytest.approx(measured_minutes(cells))
