"""``reasoneval-course build-exercises``: generate ``exercises/`` from ``solutions/``.

The solution notebooks are the masters. In each code cell, every region ::

        ### BEGIN SOLUTION
        ...
        ### END SOLUTION

becomes a stub at the indentation of the ``BEGIN`` line::

        # YOUR CODE HERE
        raise NotImplementedError()

Task texts are not copied but rendered: a markdown cell whose nbgrader
``grade_id`` is ``<exercise id>_task`` gets
:func:`~reasoneval_mini.exercises.registry.render_task_markdown`, in
``exercises/`` and in the master too (the master is rewritten only if its
text was out of date), so an exercise's wording is edited in one place, the
registry. Outputs and execution counts are cleared; locked cells become read-only and
exercise cells undeletable in Jupyter (``editable``/``deletable`` metadata, as
nbgrader's release step sets them); everything else (markdown, nbgrader
metadata, cell ids) is copied. A marker line must be exactly one of the two
markers (surrounding whitespace aside); anything else that mentions
``BEGIN SOLUTION`` or ``END SOLUTION``, a nested or unclosed region, an
``END`` without ``BEGIN`` and a marker outside a code cell are
:class:`MarkerError`, naming the notebook and the cell.

The output is byte-for-byte deterministic (:func:`dumps_notebook`), so a
test can regenerate ``exercises/`` and compare it with the committed copy.

>>> print(strip_solution_source(
...     "def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n"))
def f():
    # YOUR CODE HERE
    raise NotImplementedError()
<BLANKLINE>
>>> strip_solution_source("    ### BEGIN SOLUTION\\n", where="ex.ipynb, cell 3")
Traceback (most recent call last):
...
reasoneval_mini.exercises.build.MarkerError: ex.ipynb, cell 3: BEGIN SOLUTION on line 1 is never closed by ### END SOLUTION
"""

import json
import re
import sys
from pathlib import Path

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
_MENTION = re.compile(r"(BEGIN|END)\s*SOLUTION", re.IGNORECASE)


class MarkerError(ValueError):
    """A malformed, nested, unclosed or misplaced solution marker."""


def strip_solution_source(source, where="<cell>"):
    """Return *source* with every solution region replaced by an indented stub."""
    out, open_line, indent = [], None, ""
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        text = line.strip()
        if text == BEGIN:
            if open_line is not None:
                raise MarkerError(f"{where}: nested {BEGIN} on line {number} "
                                  f"(the region opened on line {open_line} is still open)")
            open_line, indent = number, line[: len(line) - len(line.lstrip())]
            out.extend(f"{indent}{stub}\n" for stub in STUB)
        elif text == END:
            if open_line is None:
                raise MarkerError(f"{where}: {END} on line {number} without a {BEGIN}")
            open_line = None
        elif _MENTION.search(line):
            raise MarkerError(f"{where}: malformed marker on line {number}: {text!r}; "
                              f"write exactly {BEGIN!r} or {END!r} on a line of its own")
        elif open_line is None:
            out.append(line)
    if open_line is not None:
        raise MarkerError(f"{where}: BEGIN SOLUTION on line {open_line} is never closed by {END}")
    stripped = "".join(out)
    # A cell ending in the END line has no final newline; neither has its stub.
    if not source.endswith("\n") and stripped.endswith("\n"):
        stripped = stripped[:-1]
    return stripped


def _source_text(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _source_lines(text):
    return text.splitlines(keepends=True)


def _lock(metadata):
    # As nbgrader's release step does: Jupyter then refuses to edit locked
    # cells (checks, setup, texts) and to delete any exercise cell.
    nbgrader = metadata.get("nbgrader", {})
    metadata = dict(metadata)
    if nbgrader.get("locked"):
        metadata["editable"] = False
    if nbgrader.get("locked") or nbgrader.get("solution"):
        metadata["deletable"] = False
    return metadata


def refresh_task_cells(notebook):
    """Return *notebook* with every registry exercise's task cell re-rendered.

    Cells of unknown exercises (or without nbgrader metadata) are left alone.
    """
    from reasoneval_mini.exercises.registry import EXERCISES, render_task_markdown

    cells = []
    for cell in notebook.get("cells", []):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        exercise_id = grade_id[: -len("_task")] if grade_id.endswith("_task") else None
        if cell.get("cell_type") == "markdown" and exercise_id in EXERCISES:
            cell = dict(cell, source=_source_lines(render_task_markdown(exercise_id)))
        cells.append(cell)
    return dict(notebook, cells=cells)


def strip_notebook(notebook, name="<notebook>"):
    """Return a stripped copy of a notebook dict (the input is not changed)."""
    cells = []
    for index, cell in enumerate(notebook.get("cells", []), 1):
        where = f"{name}, cell {index}"
        cell = dict(cell)
        text = _source_text(cell)
        if cell.get("cell_type") == "code":
            text = strip_solution_source(text, where)
            cell["outputs"], cell["execution_count"] = [], None
        elif _MENTION.search(text):
            raise MarkerError(f"{where}: solution markers belong in code cells only "
                              f"(this is a {cell.get('cell_type')} cell)")
        cell["source"] = _source_lines(text)
        cell["metadata"] = _lock(cell.get("metadata", {}))
        cells.append(cell)
    return dict(notebook, cells=cells)


def dumps_notebook(notebook):
    """The one JSON layout the course writes notebooks in (nbformat's, stable)."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _write_atomically(target, text):
    temporary = target.with_suffix(".ipynb.tmp")
    temporary.write_text(text, encoding="utf-8", newline="\n")
    temporary.replace(target)


def build_exercises(solutions_dir, exercises_dir):
    """Write a stripped copy of every ``*.ipynb`` in *solutions_dir*; return the paths.

    Masters whose task texts were out of date are rewritten first (see the
    module docstring); the returned list names those too.
    """
    solutions_dir, exercises_dir = Path(solutions_dir), Path(exercises_dir)
    sources = sorted(solutions_dir.glob("*.ipynb"))
    if not sources:
        raise ValueError(f"no notebooks found in {solutions_dir}")
    # Strip every notebook before writing any, so one bad marker leaves no half-built set.
    built = []
    for path in sources:
        try:
            notebook = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"{path.name} is not valid notebook JSON: {error}") from None
        if not (isinstance(notebook, dict) and isinstance(notebook.get("cells"), list)
                and all(isinstance(cell, dict) for cell in notebook["cells"])):
            raise ValueError(f"{path.name} is JSON but not a notebook: expected an object "
                             "with a 'cells' list of cell objects")
        master = refresh_task_cells(notebook)
        built.append((path, master != notebook and dumps_notebook(master),
                      dumps_notebook(strip_notebook(master, path.name))))
    exercises_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path, master_text, text in built:
        if master_text:
            _write_atomically(path, master_text)
            written.append(path)
        _write_atomically(exercises_dir / path.name, text)
        written.append(exercises_dir / path.name)
    return written
