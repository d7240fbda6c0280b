"""Read a learner's notebook in the grader and turn its code cells into plain Python.

Runs in the grader, before any student code runs (the grading child only gets
the resulting sources). Robust to what learners do to notebooks: cells
deleted, retyped (code to markdown), duplicated or reordered, ids repeated,
outputs forged. Only the *code cells that exist* are kept, in file order, as
"Run All" would run them; cell ids, nbgrader metadata and stored outputs are
never trusted. Cells that only call ``check``/``hint``/``progress`` are
dropped (the instructor runs the checks). IPython syntax (``%magic``,
``!shell``, ``x?``) is converted by IPython's own input transformer, so a
cell means what it means under Jupyter; a ``%%time``, ``%%timeit`` or
``%%capture`` cell is its body (the child runs ``%time`` lines and top-level
``await`` as IPython does).

All of this runs before any student does, so each step is bounded by the
text's size: a cell is read up to :data:`MAX_CELL_CHARS` characters, the
converter works one logical line at a time (IPython's own loop re-reads the
whole cell after each line it converts, which made a 62 KB cell of ``%ls``
lines cost 90 s), a notebook has
:data:`MAX_CONVERTED_CHARS` characters of IPython cells converted at most,
and every regular expression applied to its text is linear. A cell past a
bound is not run: it fails, naming the bound, and costs only the answers it
defines.

Anything that goes wrong reading one notebook (invalid JSON, nesting so deep
that ``json`` gives up, ``MemoryError``) is a :class:`NotebookError` for that
notebook only; a cell too deep for the parser stays in, and fails when the
child compiles it, costing only that cell.
"""

import ast
import re

from reasoneval_mini.exercises.build import METADATA_KEY
from reasoneval_mini.exercises.variants import MAX_IDENTITY_CHARS
from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, _, language_of_notebook
from reasoneval_mini.support.notebook_json import NotebookError, load_notebook_json
from reasoneval_mini.support.text import shorten

__all__ = ["NotebookError", "cells_defining", "explain_missing_answer", "is_feedback_cell",
           "parse_cells", "parse_notebook", "prepare_cells", "python_source", "recorded_language"]

#: Feedback helpers whose calls are skipped: the grader runs its own checks.
FEEDBACK_CALLS = frozenset({"check", "hint", "progress"})
#: Longest code cell read, in characters: a syntax tree takes tens of times its
#: source in memory, and a learner's cell is rarely over a few thousand.
MAX_CELL_CHARS = 1_000_000
#: Most characters of cells holding IPython syntax converted per notebook (in file order).
MAX_CONVERTED_CHARS = 200_000
#: Most IPython-syntax lines converted in one cell: IPython stops at the same count.
MAX_CONVERTED_LINES = 500
_TRANSFORMER = None
# A logical line holding none of these needs no conversion (IPython's escapes are
# % ! ? at a line's start or end, , ; / for autocall, and "= %"/"= !" assignments).
_ESCAPES = frozenset("%!?,;/")


def parse_cells(data, name):
    """Return ``(code_cells, text_cells)`` of the notebook whose bytes are *data*.

    Each is a list of ``(cell_number, source)``, numbered from 1 in file
    order over all cells; ``source`` may be a string or a list of strings in
    the file. Raises :class:`NotebookError` naming *name* for anything that
    is not notebook JSON, however the parser fails.
    """
    code_cells, text_cells = parse_notebook(data, name)[:2]
    return code_cells, text_cells


def parse_notebook(data, name):
    """:func:`parse_cells`, ``{cell_number: grade_id}`` of the text cells that carry one,
    the variant the build recorded (:func:`built_variant`) and the notebook's language
    (:func:`recorded_language`).

    The grade ids (nbgrader metadata) only help find a written answer's
    cell, which holds text the instructor reads; no code cell is chosen by them.
    """
    notebook = load_notebook_json(data, name)
    cells = notebook["cells"]
    code_cells, text_cells, grade_ids = [], [], {}
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            continue
        kind = code_cells if cell.get("cell_type") == "code" else text_cells
        kind.append((number, source))
        metadata = cell.get("metadata")
        nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        grade_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
        if kind is text_cells and isinstance(grade_id, str):
            grade_ids[number] = grade_id
    return code_cells, text_cells, grade_ids, built_variant(notebook), recorded_language(notebook)


def recorded_language(notebook):
    """The language *notebook* (its JSON) records, for its feedback; English when none or odd.

    A student can edit the metadata: an unknown or malformed value is not an
    error here (the notebook is still graded, the same way), only English.

    >>> recorded_language({"metadata": {"reasoneval": {"language": "zh-CN"}}})
    'zh-CN'
    >>> recorded_language({"metadata": {"reasoneval": {"language": ["zh-CN"]}}})
    'en'
    """
    try:
        return language_of_notebook(notebook if isinstance(notebook, dict) else {})
    except (ValueError, TypeError, AttributeError):
        return DEFAULT_LANGUAGE


def built_variant(notebook):
    """The identity whose variant the build rendered *notebook* (its JSON) for, or ``None``.

    Read from the notebook's metadata, where ``build-exercises`` writes it.
    The grader never grades on it (a student can edit it): it only tells the
    grader that a notebook's items are not those of the variant it is
    graded on, so that its typed answers are not marked wrong for it.

    >>> built_variant({"metadata": {"reasoneval": {"variant": "ada"}}})
    'ada'
    >>> built_variant({"metadata": {"reasoneval": {"variant": ["ada"]}}}) is None
    True
    """
    metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
    ours = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    identity = ours.get("variant") if isinstance(ours, dict) else None
    return identity if isinstance(identity, str) and 0 < len(identity) <= MAX_IDENTITY_CHARS \
        else None


def _parse(source):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def python_source(source, budget=None):
    """``(python, tree)``: *source* as IPython runs it, and its syntax tree (None if none).

    Plain Python is kept as it is; anything else goes through
    ``IPython.core.inputtransformer2.TransformerManager``'s transforms, one
    logical line at a time (:func:`_converted`). *budget*, a
    :class:`ConversionBudget`, is charged the cell's size; a cell it cannot
    pay for, with over :data:`MAX_CONVERTED_LINES` lines to convert, or over
    :data:`MAX_CELL_CHARS` characters at all, becomes one
    ``raise RuntimeError(...)`` line that says why it was not run.

    >>> print(python_source("%matplotlib inline\\nx = 1")[0])  # doctest: +ELLIPSIS
    get_ipython().run_line_magic('matplotlib', 'inline')
    x = 1
    <BLANKLINE>

    Surprising: a continuation line starting with ``%`` (Black puts operators
    first) is Python, not a magic.

    >>> python_source("y = (\\n    7\\n    % 2\\n)")[0]
    'y = (\\n    7\\n    % 2\\n)'
    """
    if len(source) > MAX_CELL_CHARS:
        return _not_run(f"it has {len(source)} characters, over the {MAX_CELL_CHARS} the "
                        "grader reads in one cell; split it")
    tree = _parse(source)
    if tree is not None:
        return source, tree
    body = _cell_magic_body(source)
    if body is not None:
        return python_source(body, budget)
    budget = ConversionBudget() if budget is None else budget
    if not budget.pay(len(source)):
        return _not_run(f"IPython syntax (%, !) is converted in at most {MAX_CONVERTED_CHARS} "
                        "characters per notebook; this cell goes past that")
    try:
        converted = _converted(source)
    except ImportError:
        return source, None  # no IPython: the cell runs as written
    except _TooManyLines:
        return _not_run(f"more than {MAX_CONVERTED_LINES} lines of IPython syntax (%, !, ?) "
                        "in one cell (IPython stops there too); split the cell")
    except Exception:  # noqa: BLE001 - IPython cannot convert it: it fails as written
        return source, None
    return converted, _parse(converted)


class ConversionBudget:
    """What is left of one notebook's :data:`MAX_CONVERTED_CHARS`."""

    def __init__(self, chars=None):
        self.left = MAX_CONVERTED_CHARS if chars is None else chars

    def pay(self, chars):
        """Take *chars* from what is left; False (and nothing taken) if they are not there."""
        if chars > self.left:
            return False
        self.left -= chars
        return True


class _TooManyLines(Exception):
    """A cell has more than :data:`MAX_CONVERTED_LINES` lines to convert."""


def _not_run(why):
    """``(python, None)``: a cell that only raises, saying why it was not run."""
    return f"raise RuntimeError({'this cell was not run: ' + why!r})\n", None


def _converted(source):
    r"""*source* converted as ``TransformerManager().transform_cell`` does, in linear time.

    IPython's manager converts one piece of syntax, then tokenizes the whole
    cell again to find the next (and gives up after 500): quadratic in the
    cell. A conversion only ever rewrites one logical line, and a logical
    line starts with no bracket or string open, so each is converted on its
    own here, after the whole-cell steps (prompts, indentation, ``%%``).
    Raises :class:`_TooManyLines` past :data:`MAX_CONVERTED_LINES` conversions.

    >>> _converted("!ls\nx = (1,\n%2)\n")
    "get_ipython().system('ls')\nx = (1,\n%2)\n"
    """
    global _TRANSFORMER
    if _TRANSFORMER is None:
        from IPython.core.inputtransformer2 import TransformerManager
        _TRANSFORMER = TransformerManager()
    manager = _TRANSFORMER
    lines = (source if source.endswith("\n") else source + "\n").splitlines(keepends=True)
    for transform in manager.cleanup_transforms + manager.line_transforms:
        lines = transform(lines)
    converted, conversions = [], 0
    for chunk in _logical_lines(lines):
        while _ESCAPES.intersection("".join(chunk)):
            changed, chunk = manager.do_one_token_transform(chunk)
            if not changed:
                break
            conversions += 1
            if conversions >= MAX_CONVERTED_LINES:
                raise _TooManyLines()
        converted += chunk
    return "".join(converted)


def _logical_lines(lines):
    """*lines* (physical, with their line breaks) grouped by the logical line each belongs to.

    Where tokenizing stopped (a string or bracket left open), the rest of the
    cell is one group, as IPython sees it.
    """
    import tokenize

    from IPython.core.inputtransformer2 import make_tokens_by_line
    ends = (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
    chunks, start = [], 0
    for tokens in make_tokens_by_line(lines):
        end = tokens[-1].end[0] if tokens[-1].type in ends else len(lines)
        end = min(end, len(lines))
        if end > start:
            chunks.append(lines[start:end])
            start = end
    if start < len(lines):
        chunks.append(lines[start:])
    return chunks


# A cell magic that only measures or hides its body: Jupyter runs the body in
# the notebook's namespace, so the grader runs it too (IPython's converter
# would turn the cell into one call that runs nothing here).
_BODY_MAGIC = re.compile(r"\A\s*%%(?:time|timeit|capture)\b[^\n]*(?:\n|\Z)")


def _cell_magic_body(source):
    r"""The body of a ``%%time``, ``%%timeit`` or ``%%capture`` cell, else None.

    >>> _cell_magic_body("%%capture out\nx = 1\n")
    'x = 1\n'
    """
    match = _BODY_MAGIC.match(source)
    return source[match.end():] if match else None


def is_feedback_cell(tree):
    """True if every statement of the syntax tree *tree* is a bare call to a feedback helper.

    >>> is_feedback_cell(ast.parse('check("ex01", half)  # run the tests'))
    True

    Surprising: a cell that also defines something is run, check call included.

    >>> is_feedback_cell(ast.parse('def half():\\n    return 0.5\\ncheck("ex01", half)'))
    False
    """
    if tree is None or not tree.body:
        return False
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call):
            return False
        func = call.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in FEEDBACK_CALLS:
            return False
    return True


def _defined_names(tree):
    """Names a module-level statement of *tree* may bind (blocks included, not functions)."""
    names, todo = set(), list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if isinstance(node, ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return names


# A cell with a syntax error has no tree; these still say what it meant to define,
# so that its error (naming the line) is blamed on the answer it was meant to hold.
# Spaces are [ \t\f], never \s: \s takes line breaks, so "^\s*" at each of 60,000
# blank lines read all the lines after it (95 s); within one line each is linear.
_BROKEN_DEFINITION = re.compile(r"^[ \t\f]*(?:async[ \t\f]+)?(?:def|class)[ \t\f]+([A-Za-z_]\w*)",
                                re.MULTILINE)
# Module-level imports and assignments too: a setup cell with a typo leaves its
# names undefined, and the NameErrors they cause are traced back to it.
_BROKEN_IMPORT = re.compile(r"^(?:from[ \t\f]+[\w.]+[ \t\f]+)?import[ \t\f]+([^\n#;]+)",
                            re.MULTILINE)
_BROKEN_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)[ \t\f]*(?::[^=\n]*)?=(?!=)", re.MULTILINE)


def _names_in_broken(source):
    r"""What a cell that does not parse meant to define.

    >>> sorted(_names_in_broken("from x import (a, b as c)\nimport os.path\nN = 3\ndef f(:"))
    ['N', 'a', 'c', 'f', 'os']

    Surprising: a comparison at the start of a line binds nothing.

    >>> _names_in_broken("N == 3\n(")
    set()
    """
    names = set(_BROKEN_DEFINITION.findall(source)) | set(_BROKEN_ASSIGNMENT.findall(source))
    for imported in _BROKEN_IMPORT.findall(source):
        for part in imported.strip().strip("()\\").split(","):
            words = part.split()
            if words:
                names.add(words[-1] if len(words) == 3 and words[1] == "as"
                          else words[0].split(".")[0])
    return names


def prepare_cells(code_cells):
    """The cells to run, ``[(cell_number, python_source, defined_names)]``, feedback cells dropped.

    *code_cells* are one notebook's: they share one :class:`ConversionBudget`.
    """
    prepared, budget = [], ConversionBudget()
    for number, source in code_cells:
        python, tree = python_source(source, budget)
        if is_feedback_cell(tree):
            continue
        try:
            names = _defined_names(tree) if tree is not None else _names_in_broken(source)
        except RecursionError:
            names = set()
        prepared.append((number, python, names))
    return prepared


def cells_defining(prepared, name):
    """Numbers of the prepared cells that may define *name*."""
    return [number for number, _, names in prepared if name in names]


def explain_missing_answer(answer_name, prepared, text_cells, failures):
    """A message saying why *answer_name* is not defined, with clues."""
    parts = [_("no function {function}() is defined after running the notebook").format(
        function=answer_name)]
    pattern = re.compile(rf"\bdef\s+{re.escape(answer_name)}\s*\(")
    retyped = [number for number, source in text_cells if pattern.search(source)]
    if retyped:
        parts.append(_("it is written in non-code cell {cell}; make it a code cell again").format(
            cell=retyped[0]))
    elif not cells_defining(prepared, answer_name):
        parts.append(_("no code cell defines it (cell deleted?)"))
    if failures:
        parts.append(_("failed cells: {cells}").format(cells="; ".join(failures[:3])))
    return shorten("; ".join(parts))
