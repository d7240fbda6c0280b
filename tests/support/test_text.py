"""``shorten``: the one-line path gives what the general path gives, on any text.

``shorten`` keeps printable text without an address (one line already, the
common case) off the regular expression and the split; the reference below
is the general path alone, as the module documents it.
"""

import random
import re

from reasoneval_mini.support.text import MESSAGE_CHARS, shorten

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _general(text, limit=MESSAGE_CHARS):
    text = _ADDRESS.sub("", str(text))
    line = " / ".join(part.strip() for part in text.splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


# Every line boundary str.splitlines() knows, other white space, addresses and their parts.
PIECES = ["a", "word", " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e",
          "\x85", "\u2028", "\u2029", "\xa0", "\u3000", "\u200b", " at 0x7f3a", " at 0x", "0x1f",
          " at ", "é", "中文", "\x00", "\ud800", "x" * 40]


def test_any_text_is_shortened_as_the_general_path_shortens_it():
    rng = random.Random(3)
    for _ in range(100_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        for limit in (MESSAGE_CHARS, 12, 5):
            assert shorten(text, limit) == _general(text, limit), (text, limit)


def test_a_value_that_is_not_a_text_is_shortened_as_its_str():
    for value in (None, 12, 1.5, ValueError("bad\nvalue"), b"bytes", ["<f at 0x1>"]):
        assert shorten(value) == _general(value)
