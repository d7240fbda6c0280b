"""Text for reports and messages: Markdown tables whose cells cannot break them, bounded lists.

>>> print(table(["problem", "n"], [["a|b", 3]]))
| problem | n |
| --- | --- |
| a\\|b | 3 |

Surprising: a newline inside a cell would end the row, so it becomes a space.
"""


def cell(value):
    """*value* as one Markdown table cell: ``|`` escaped, line breaks as spaces, ``None`` as a dash."""
    if value is None:
        return "-"
    if isinstance(value, float):
        value = f"{value:g}"
    return " ".join(str(value).split()).replace("|", "\\|")


def table(header, rows):
    """A Markdown table with *header* and *rows* (lists of values)."""
    lines = ["| " + " | ".join(map(cell, header)) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines)


def percent(value):
    """``"61.2%"``; ``None`` (undefined) as ``"undefined"``."""
    return "undefined" if value is None else f"{value:.1%}"


def interval_text(result):
    """``0.612 [0.540, 0.684]`` for a :class:`~reasoneval_mini.estimators.PassAtKInterval` dict."""
    if result.get("low") is None:
        return f"{result['estimate']:.3f} (no interval: {result['no_interval']})"
    return f"{result['estimate']:.3f} [{result['low']:.3f}, {result['high']:.3f}]"


#: A list of names in a message or a report shows at most this many.
MAX_NAMED = 20


def listed(names, limit=MAX_NAMED):
    """``"a, b, c and 2 more"``: the first *limit* of *names*, and how many are left out.

    >>> listed(["t/1", "t/2", "t/3"], limit=2)
    't/1, t/2 and 1 more'
    """
    names = [str(name) for name in names]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
