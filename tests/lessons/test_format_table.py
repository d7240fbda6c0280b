"""The lessons' plain-text tables: aligned, and the last column wrapped when asked."""

import pytest

from reasoneval_mini.lessons.answer_pipelines import format_table

# Rows of the shape lesson 03 prints (short first columns, a long last one to wrap).
ROWS = [
    ("passed", "passed", "nothing, on these tests"),
    ("failed: <str(exception)>", "assertion_failed or runtime_error",
     "wrong value vs crash: no exception type, often an empty message ('failed: ')"),
    ("timed out", "timeout or runtime_error",
     "hang vs a child that died silently (os._exit, a signal)"),
    ("(no result dict)", "not_run", "the sample itself: it is not in n, so the denominator shrinks unseen"),
]


def test_a_wrapped_last_column_keeps_every_word_in_order_within_the_width():
    rows = ROWS
    text = format_table(("result", "states", "lost"), rows, last_column_width=40)
    lines = text.splitlines()
    start = max(len(row[0]) for row in rows) + 2 + max(len(row[1]) for row in rows) + 2
    assert all(len(line) <= start + 40 for line in lines)
    # Reading the last column top to bottom gives back each text, word for word.
    last_column = " ".join(line[start:].strip() for line in lines[2:])
    assert last_column.split() == " ".join(row[2] for row in rows).split()
    # A continuation line leaves the other columns blank.
    assert any(line[:start].strip() == "" for line in lines[2:])


def test_without_a_width_the_table_is_unchanged():
    rows = [("a", "x" * 80)]
    assert format_table(("k", "v"), rows).splitlines()[2] == "a  " + "x" * 80


@pytest.mark.parametrize("width", [0, 9, 40.0, "40", True])
def test_a_bad_width_is_refused_by_name(width):
    with pytest.raises(ValueError, match="last_column_width"):
        format_table(("k", "v"), [("a", "b")], last_column_width=width)
