"""ex01 shows a long run of one character in a call as ``'1' * 1000``: run by run, in order.

The reference walks the text one character at a time, as the definition reads;
``_shown_text`` finds the runs with a regular expression. Both must show every
text alike, line breaks, quotes, lone surrogates and short texts included.
"""

import random

from reasoneval_mini.exercises.ex01_answer_equivalence import _shown_text


def _runs_one_by_one(text):
    if not isinstance(text, str) or len(text) <= 24:
        return repr(text)
    runs, start = [], 0
    for end in range(1, len(text) + 1):
        if end == len(text) or text[end] != text[start]:
            runs.append(repr(text[start]) + (f" * {end - start}" if end - start > 1 else ""))
            start = end
    return " + ".join(runs)


def test_a_text_is_shown_as_its_runs_one_after_the_other():
    assert _shown_text("-" + "1" * 1000) == "'-' + '1' * 1000"
    assert _shown_text("ab" * 13) == " + ".join(["'a'", "'b'"] * 13)


def test_any_text_is_shown_as_walking_it_character_by_character_shows_it():
    rng = random.Random(5)
    pieces = ["1", "-", "\n", "\r", "a", "\u3000", "\ud800", "'", '"', "\\", "\x00", "é"]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) * rng.choice((1, 1, 2, 5, 30, 1000))
                       for _ in range(rng.randint(0, 8)))
        assert _shown_text(text) == _runs_one_by_one(text), repr(text)[:80]


def test_what_is_not_a_text_is_shown_as_its_repr():
    for value in (None, 1.5, 3, b"1" * 40, ["1"] * 30):
        assert _shown_text(value) == repr(value)
