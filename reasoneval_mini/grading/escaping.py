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
* :func:`html_text`: text for an HTML page;
* :func:`csv_cell` and :func:`csv_text`: a CSV cell that no spreadsheet
  runs as a formula, and a whole CSV file of them; :func:`csv_field` reads
  such a cell back.

CSV follows OWASP's rule ("CSV Injection"): a cell that begins with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return is a formula in Excel,
LibreOffice and Google Sheets (``=HYPERLINK(...)`` in a folder name becomes a
live link in the instructor's gradebook), so such a cell gets a single quote
(``'``) in front. That convention, rather than a leading space or a tab, is
OWASP's, and it is the one spreadsheets themselves use to say "this is
text": the quote shows, the formula does not run. Two exceptions keep the
files exact: numbers we write (``int`` cells, and text that is a plain
decimal number such as ``-1.5``, which no spreadsheet reads as a formula)
are left as they are, and a cell that already begins with quotes before
such a character gets one more, so :func:`csv_field` can undo exactly what
:func:`csv_cell` did.

>>> printable("ok\\x1b[31m red")
'ok\\\\x1b[31m red'
>>> markdown_text("<img src=http://x/a.png> *bold*")
'&lt;img src=http://x/a.png&gt; \\\\*bold\\\\*'

Surprising: a value holding backticks gets a longer fence, so it cannot
close the span and turn the rest of the line into live Markdown.

>>> code_span("`<img src=x>`")
'`` `<img src=x>` ``'
"""

import csv
import html
import io
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



# OWASP's list: what makes a spreadsheet read a cell as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def csv_cell(value):
    """*value* as one CSV cell that no spreadsheet runs: printable, a formula start quoted.

    Accepts any object; an ``int`` (a count or points we write) is kept as
    it is, anything else becomes :func:`printable` text, with a single quote
    in front if it begins with ``=``, ``+``, ``-``, ``@`` or a tab (after any
    quotes of its own), unless it is a plain decimal number.

    >>> csv_cell("=HYPERLINK('http://x')"), csv_cell("@SUM(A1)"), csv_cell("ada")
    ("'=HYPERLINK('http://x')", "'@SUM(A1)", 'ada')
    >>> csv_cell(3), csv_cell("0.67"), csv_cell("-1.5")
    (3, '0.67', '-1.5')

    Surprising: a value that was quoted already gets one more quote, so
    reading it back gives it as it was.

    >>> csv_cell("'=1"), csv_field(csv_cell("'=1"))
    ("''=1", "'=1")
    """
    if type(value) is int:
        return value
    text = printable(value)
    if text.lstrip("'").startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_field(text):
    """A cell as :func:`csv_cell` wrote it, read back: its one added quote removed.

    >>> csv_field("'=SUM(A1)"), csv_field("'quoted"), csv_field("-2")
    ('=SUM(A1)', "'quoted", '-2')
    """
    if text.startswith("'") and text.lstrip("'").startswith(_FORMULA_START):
        return text[1:]
    return text


def csv_text(rows):
    """The text of a CSV file holding *rows* (sequences of cells), each cell through :func:`csv_cell`.

    Lines end with ``\\n``; the :mod:`csv` module quotes what needs it.

    >>> csv_text([["student", "score"], ["=1+1", 2]])
    "student,score\\n'=1+1,2\\n"
    """
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(
        [[csv_cell(cell) for cell in row] for row in rows])
    return buffer.getvalue()
