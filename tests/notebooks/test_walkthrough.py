"""Findings of a learner's walk-through in JupyterLab (issue 25): no step gives its answer first.

A learner runs a lesson top to bottom and meets a challenge: the page must not
have printed or stated its answer in a cell above it, and what the text points
to must exist. Each test here holds one place where the walk-through found the
opposite, read from the stored lesson (sources and outputs), so that the
answer cannot creep back above its question.
"""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cells(name):
    return json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]


def text_of(cell):
    """What the learner sees of *cell*: its source, and a code cell's stored text outputs too."""
    parts = ["".join(cell["source"])]
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def challenge_index(lesson, marker):
    found = [i for i, cell in enumerate(lesson) if cell["cell_type"] == "markdown"
             and "> **Challenge.**" in "".join(cell["source"]) and marker in "".join(cell["source"])]
    assert len(found) == 1, f"one challenge holding {marker!r} expected, found cells {found}"
    return found[0]


def above(lesson, index):
    """Everything the learner has read or run before cell *index*."""
    return "\n".join(text_of(cell) for cell in lesson[:index])


def test_capstone_prints_the_three_rates_only_after_the_challenge_that_asks_for_them():
    lesson = cells("05_capstone_mini_evaluation.ipynb")
    index = challenge_index(lesson, "(18 passed, 46 attempted, 48 planned)")
    before = above(lesson, index)
    # The counts are given (the challenge starts from them); the rates are not.
    assert "planned 48, attempted 46" in before
    for rate in ("0.958", "0.375", "0.391"):
        assert rate not in before, f"the rate {rate} is shown above the challenge that asks for it"
    # ... and right after it, the library's rates to check against.
    after = lesson[index + 1]
    assert after["cell_type"] == "code" and "execution_summary" in "".join(lesson[index]["source"])
    assert "coverage 0.958, success 0.375, attempted success 0.391" in text_of(after)


def test_capstone_22_evenings_challenge_comes_before_the_table_and_the_box_that_answer_it():
    lesson = cells("05_capstone_mini_evaluation.ipynb")
    index = challenge_index(lesson, "`#### 22 evenings`")
    before = above(lesson, index)
    assert "22 evenings" not in before
    assert "GSM8K's own script extracts" not in before
    table = next(i for i, cell in enumerate(lesson) if cell["cell_type"] == "code"
                 and "score_final_answers(word_problems)" in "".join(cell["source"]))
    assert table == index + 1, "the challenge says 'before you run the next cell': the table"
    assert re.search(r"units\s+22 evenings\s+22\s+False\s+None", text_of(lesson[table]))


def test_lesson_03_table_above_the_os_exit_challenge_does_not_name_os_exit():
    lesson = cells("03_execution_states.ipynb")
    index = challenge_index(lesson, "`os._exit(0)`")
    assert "os._exit" not in above(lesson, index)
    # The table still says what "timed out" merges, without the challenge's case.
    assert "a hang vs a child that ended without writing any result" in above(lesson, index)


def test_lesson_04_pilot_paragraph_points_to_the_challenge_below_it_not_to_missing_exercises():
    lesson = cells("04_uncertainty.ipynb")
    markdown = "\n".join("".join(c["source"]) for c in lesson if c["cell_type"] == "markdown")
    assert "next section's exercises" not in markdown
    pointer = next(i for i, cell in enumerate(lesson)
                   if "The challenge below starts from such a pilot." in "".join(cell["source"]))
    source = "".join(lesson[pointer]["source"])
    below = source[source.index("The challenge below starts from such a pilot."):]
    assert "> **Challenge.** A pilot run" in below
