"""Text for messages and reports: one line, bounded, the same on every run.

>>> shorten("a\\nb")
'a / b'
>>> len(shorten("x" * 1000, 300))
300

Surprising: memory addresses are removed, because they differ from run to
run and grades, feedback and stored outputs must not.

>>> shorten("<function f at 0x7f3a2c1d0e50>")
'<function f>'
"""

import re

#: The usual length of a one-line message (a detail, a grader message).
MESSAGE_CHARS = 300

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def shorten(text, limit=MESSAGE_CHARS):
    """*text* as one line (lines joined by `` / ``) of at most *limit* characters.

    Blank lines are dropped, each line is stripped, `` at 0x...`` addresses
    are removed, and a longer result is cut to *limit* characters ending in
    ``...``.
    """
    text = str(text)
    if text.isprintable() and " at 0x" not in text:
        # One line already, the common case (the grader shortens every text of every check):
        # printable text has no line boundary that splitlines() splits at, nor an address.
        line = text.strip()
    else:
        text = _ADDRESS.sub("", text)
        line = " / ".join(part.strip() for part in text.splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def cut(text, limit):
    """*text* unchanged if it has at most *limit* characters, else cut to *limit* ending in ``...``.

    Unlike :func:`shorten` it keeps line breaks: for values shown in a table
    or a block, where the layout is part of the value.

    >>> cut("abcdef", 5)
    'ab...'
    """
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plural(count, word):
    """``"1 check"``, ``"2 checks"``.

    >>> plural(1, "check"), plural(0, "check")
    ('1 check', '0 checks')
    """
    return f"{count} {word}" + ("" if count == 1 else "s")


def display_width(text):
    """The columns *text* takes in a terminal or a notebook's output: a CJK character takes two.

    >>> display_width("points"), display_width("分值")
    (6, 4)
    """
    # Here, not at the top: a runner server's children use this module,
    # and every library a server loads is mapped again at each of its forks.
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in str(text))


def pad(text, width, align="<"):
    """*text* padded with spaces to *width* columns (:func:`display_width`), left or right (``">"``).

    Like ``f"{text:<{width}}"`` for ASCII text, so an English table is unchanged; a
    Chinese heading of a column lines up with the values under it.

    >>> pad("state", 7) + "|", pad("状态", 7) + "|", pad("6", 3, ">")
    ('state  |', '状态   |', '  6')
    """
    fill = " " * max(0, width - display_width(text))
    return fill + str(text) if align == ">" else str(text) + fill
