"""Student text in the grader's output files: printable, and inert in Markdown, HTML and CSV.

Everything a student wrote or a student's code returned (answers, wrong
values, folder and notebook names, messages quoting them) is hostile input.
It reaches the instructor in grades.csv, the feedback files, the class
report and the hand-grading pages; this module is the one place it is made
safe for each of them:

* :func:`printable`: valid UTF-8 with no control character (``\\x1b``
  would recolour a terminal, ``\\r`` hide a line, a right-to-left override
  reverse a name): each becomes a visible ``\\xNN`` or ``\\uNNNN``; line
  breaks and tabs are kept. Every output file goes through it.
* :func:`markdown_text`: text that Markdown shows as written (no emphasis,
  link, image or raw HTML, so no remote ``<img>`` that reports who opened
  the file);
* :func:`code_span`: a Markdown code span that the text cannot end early,
  whatever backticks it holds;
* :func:`html_text`: text for an HTML page.

>>> printable("ok\\x1b[31m red")
'ok\\\\x1b[31m red'
>>> markdown_text("<img src=http://x/a.png> *bold*")
'&lt;img src=http://x/a.png&gt; \\\\*bold\\\\*'

Surprising: a value holding backticks gets a longer fence, so it cannot
close the span and turn the rest of the line into live Markdown.

>>> code_span("`<img src=x>`")
'`` `<img src=x>` ``'
"""

import html
import os
import re
import unicodedata

# Bidirectional overrides and isolates: not "Cc", but they reorder what is shown.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
_KEPT = frozenset("\n\t")
# CommonMark lets any ASCII punctuation be escaped with a backslash; these are
# the ones that start or end something (emphasis, links, images, tables, code).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#!|~])")
# At the start of a line these make a list item ("- x", "+ x", "3. x", "3) x").
_LIST_START = re.compile(r"^(\s*)([-+]|\d+[.)])")


def _utf8(text):
    # Undecodable file-name bytes (surrogate escapes) as \xNN, other lone surrogates escaped.
    text = str(text)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _visible(character):
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text):
    """*text* as valid UTF-8 with every control character shown as an escape.

    Line breaks (``\\n``) and tabs are kept; ``\\r``, escape sequences, other
    C0/C1 controls, and bidirectional overrides become ``\\xNN`` or
    ``\\uNNNN``. Accepts any object (``str()`` of it).

    >>> printable("a\\rb\\u202ec")
    'a\\\\x0db\\\\u202ec'
    >>> printable(os.fsdecode(b"caf\\xe9"))
    'caf\\\\xe9'
    """
    text = _utf8(text)
    if text.isprintable():
        return text
    return "".join(_visible(c) if (c not in _KEPT and (
        unicodedata.category(c) == "Cc" or c in _BIDI)) else c for c in text)


def markdown_text(text):
    """*text* (one line) as Markdown that renders exactly as written.

    ``&``, ``<`` and ``>`` become entities (no raw HTML), Markdown's
    punctuation is backslash-escaped (no emphasis, link, image or table
    cell break), line breaks become `` / ``.

    >>> markdown_text("[x](javascript:alert(1)) | a_b")
    '\\\\[x\\\\]\\\\(javascript:alert\\\\(1\\\\)\\\\) \\\\| a\\\\_b'
    >>> markdown_text("1. not a list")
    '1\\\\. not a list'
    """
    line = " / ".join(part for part in printable(text).splitlines() if part.strip())
    line = _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(line, quote=False))
    return _LIST_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], line)


def code_span(text, in_table=False):
    """*text* (one line) as a Markdown code span whose fence no run of backticks in it matches.

    With *in_table*, ``|`` is escaped too: GitHub's tables split a row at a
    bare ``|`` even inside a code span.

    >>> code_span("x"), code_span("a``b")
    ('`x`', '``` a``b ```')
    """
    line = " / ".join(part for part in printable(text).splitlines() if part.strip())
    longest = max((len(run) for run in re.findall(r"`+", line)), default=0)
    fence = "`" * (longest + 1)
    if in_table:
        line = line.replace("|", "\\|")
    if not longest and line.strip():
        return f"`{line}`"
    # One space each side: CommonMark strips exactly one, so a value that
    # starts or ends with a backtick stays apart from the fence.
    return f"{fence} {line} {fence}"


def html_text(text):
    """*text* for an HTML page: printable, with ``& < > " '`` as entities.

    >>> html_text("<script>alert('x')</script>")
    '&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;'
    """
    return html.escape(printable(text), quote=True)

