"""Read a learner's notebook and run its code cells to define the answers.

Meant for the grading child process (it executes learner code). Robust to what
learners do to notebooks: cells deleted, retyped (code to markdown), duplicated
or reordered, ids repeated, outputs forged. Only the *code cells that exist*
are run, in file order, in one fresh namespace, as "Run All" would; cell ids,
nbgrader metadata and stored outputs are never trusted. Cells that only call
``check``/``hint``/``progress`` are skipped (the instructor runs the checks).
A failing cell is recorded and the next cells still run.
"""

import ast
import json
import re

from reasoneval_mini.support.text import shorten

#: Feedback helpers whose calls are skipped: the grader runs its own checks.
FEEDBACK_CALLS = frozenset({"check", "hint", "progress"})
#: Longest error text kept per failed cell, in characters (a message names up to three).
CELL_ERROR_CHARS = 150

_MAGIC_LINE = re.compile(r"^(\s*)[%!].*$", re.MULTILINE)


class NotebookError(ValueError):
    """The file is not a readable notebook; the message names it and why."""


def read_cells(path):
    """Return ``(code_cells, text_cells)`` of the notebook at *path*.

    Each is a list of ``(cell_number, source)``, numbered from 1 in file
    order over all cells; ``source`` may be a string or a list of strings in
    the file. Raises :class:`NotebookError` for an unreadable file, invalid
    JSON, or JSON without a ``cells`` list.
    """
    try:
        with open(path, encoding="utf-8") as stream:
            notebook = json.load(stream)
    except (OSError, UnicodeDecodeError) as error:
        raise NotebookError(f"{path.name} cannot be read: {shorten(error)}") from None
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"{path.name} is not valid notebook JSON (line {error.lineno}, "
            f"column {error.colno}: {error.msg})") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise NotebookError(f"{path.name} is JSON but not a notebook: no 'cells' list")
    code_cells, text_cells = [], []
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
    return code_cells, text_cells


def without_magics(source):
    """Replace IPython ``%magic`` and ``!shell`` lines by ``pass``.

    >>> print(without_magics("%matplotlib inline\\nx = 1"))
    pass
    x = 1
    """
    return _MAGIC_LINE.sub(r"\1pass", source)


def is_feedback_cell(source):
    """True if every statement of *source* is a bare call to a feedback helper.

    >>> is_feedback_cell('check("ex01", half)  # run the tests')
    True

    Surprising: a cell that also defines something is run, check call included.

    >>> is_feedback_cell('def half():\\n    return 0.5\\ncheck("ex01", half)')
    False
    """
    try:
        tree = ast.parse(without_magics(source))
    except SyntaxError:
        return False
    if not tree.body:
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


def cells_defining(code_cells, name):
    """Numbers of the code cells whose top level defines or assigns *name*."""
    numbers = []
    for number, source in code_cells:
        try:
            tree = ast.parse(without_magics(source))
        except SyntaxError:
            continue
        for node in tree.body:
            defined = {getattr(node, "name", None)}
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined |= {t.id for t in targets if isinstance(t, ast.Name)}
            if name in defined:
                numbers.append(number)
                break
    return numbers


def run_code_cells(code_cells, namespace, run_step, filename="notebook"):
    """Execute every non-feedback code cell in *namespace*, in order.

    ``run_step(thunk)`` runs ``thunk()`` under the caller's time limit and
    returns ``None`` or an error text; it must catch everything the cell raises
    (``SystemExit`` included). Returns the list of ``"cell N: error"`` texts.
    """
    failures = []
    for number, source in code_cells:
        if is_feedback_cell(source):
            continue

        def execute(number=number, source=source):
            code = compile(without_magics(source), f"<{filename} cell {number}>", "exec")
            exec(code, namespace)  # noqa: S102 - running learner code is the point

        error = run_step(execute)
        if error is not None:
            failures.append(f"cell {number}: {shorten(error, CELL_ERROR_CHARS)}")
    return failures


def explain_missing_answer(answer_name, code_cells, text_cells, failures):
    """A message saying why *answer_name* is not defined, with clues."""
    parts = [f"no function {answer_name}() is defined after running the notebook"]
    pattern = re.compile(rf"\bdef\s+{re.escape(answer_name)}\s*\(")
    retyped = [number for number, source in text_cells if pattern.search(source)]
    if retyped:
        parts.append(f"it is written in non-code cell {retyped[0]}; make it a code cell again")
    elif not cells_defining(code_cells, answer_name):
        parts.append("no code cell defines it (cell deleted?)")
    if failures:
        parts.append("failed cells: " + "; ".join(failures[:3]))
    return shorten("; ".join(parts))
