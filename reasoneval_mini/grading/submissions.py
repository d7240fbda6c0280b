"""Find the students of a submissions folder and read each student's notebooks into memory.

``SUBMISSIONS_DIR/<student>/<notebook>.ipynb``: one folder per student, holding
copies of the exercise notebooks under their names in ``exercises/``. The
grader reads every notebook of the class (:func:`read_student`) before any
student code runs, so no student can change another's work on disk; a
notebook that is a symlink to a file outside its student's folder is
refused, and any folder or file name works (:func:`display_name`).

>>> import tempfile, types
>>> root = Path(tempfile.mkdtemp())
>>> for folder in ("zoe", "ada/download", ".ipynb_checkpoints"):
...     (root / folder).mkdir(parents=True)
>>> _ = (root / "ada/download/ex01.ipynb").write_text("{}")
>>> discover_students(root)
['ada', 'zoe']

Surprising: a notebook nested once in a subfolder is found (download tools
do that), while a missing one is recorded, not raised.

>>> exercises = {"e1": types.SimpleNamespace(id="e1", notebook="ex01.ipynb")}
>>> tasks, missing = plan_notebooks(root / "ada", exercises)
>>> [Path(t["notebook"]).relative_to(root).as_posix() for t in tasks], missing
(['ada/download/ex01.ipynb'], {})
>>> plan_notebooks(root / "zoe", exercises)
([], {'e1': 'no notebook ex01.ipynb in zoe/'})
>>> import shutil; shutil.rmtree(root)
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.notebooks import NotebookError, parse_cells, prepare_cells


def display_name(name):
    """*name* (a file or folder name) as text that any UTF-8 file can hold, the same on every run.

    Bytes that are not UTF-8 (kept by Python as surrogate escapes) are shown
    as ``\\xNN``.

    >>> display_name("ada"), display_name(os.fsdecode(b"caf\\xe9"))
    ('ada', 'caf\\\\xe9')
    """
    try:
        raw = os.fsencode(name)
    except UnicodeError:
        return str(name).encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def discover_students(submissions_dir):
    """Sorted student folder names; ``ValueError`` if there are none.

    Hidden folders (``.git``, ``.ipynb_checkpoints``) and loose files are ignored.
    """
    root = Path(submissions_dir)
    if not root.is_dir():
        raise ValueError(f"SUBMISSIONS_DIR {display_name(str(root))!r} is not a directory; "
                         "expected one folder per student")
    students = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not students:
        raise ValueError(f"SUBMISSIONS_DIR {display_name(str(root))!r} has no student folders; "
                         "expected SUBMISSIONS_DIR/<student>/<notebook>.ipynb")
    return students


def _notebook_files(student_dir):
    """Every ``*.ipynb`` under *student_dir* (symlinked folders not followed), sorted."""
    found = []
    for folder, subfolders, files in os.walk(student_dir):
        subfolders[:] = sorted(d for d in subfolders if d != ".ipynb_checkpoints")
        found += [Path(folder) / name for name in files if name.endswith(".ipynb")]
    return sorted(found)


def _outside(path, student_dir):
    """The target if *path* (or the student folder itself) is a symlink leading out of *student_dir*."""
    if student_dir.is_symlink():
        return student_dir.resolve()
    if not path.is_symlink():
        return None
    target = path.resolve()
    return None if target.is_relative_to(student_dir.resolve()) else target


def plan_notebooks(student_dir, exercises, written=()):
    """``(tasks, missing)`` for one student folder.

    *tasks*: ``[{"notebook": absolute path, "exercises": [id, ...]}]``, with an
    ``"error"`` message when the notebook must not be read (a symlink out of
    the folder). *exercises* maps ids to objects with a ``notebook`` file
    name. A notebook is found at the top of *student_dir* or, if only one
    copy exists, in a subfolder. Exercises whose notebook is absent, or
    present more than once, are in *missing* instead, ``{exercise_id:
    message}`` (the grader records them as ``missing``). *written* (objects
    with a ``notebook`` file name: the written tasks) adds the notebooks that
    hold only written answers, as tasks with no exercises (read, never run).
    """
    student_dir = Path(student_dir)
    folder = display_name(student_dir.name)
    by_notebook = {}
    for exercise in exercises.values():
        by_notebook.setdefault(Path(exercise.notebook).name, []).append(exercise.id)
    for task in written:
        by_notebook.setdefault(Path(task.notebook).name, [])
    found = {}  # file name -> paths; a folder nested by a download tool is fine
    for path in _notebook_files(student_dir):
        found.setdefault(path.name, []).append(path)
    others = sorted(display_name(name) for name in set(found) - set(by_notebook))
    hint = f" (found instead: {', '.join(others)}; renamed?)" if others else ""
    tasks, missing = [], {}
    for notebook, ids in by_notebook.items():
        paths = found.get(notebook, [])
        top = student_dir / notebook
        if top in paths or len(paths) == 1:
            chosen = top if top in paths else paths[0]
            task = {"notebook": str(chosen.absolute()), "exercises": ids}
            target = _outside(chosen, student_dir)
            if target is not None:
                where = (f"{folder}/" if student_dir.is_symlink() else
                         f"{folder}/{display_name(str(chosen.relative_to(student_dir)))}")
                task["error"] = shorten(f"{notebook} refused: {where} is a symlink to "
                                        f"{display_name(str(target))}, outside {folder}/")
            tasks.append(task)
            continue
        if paths:
            where = ", ".join(display_name(p.relative_to(student_dir).as_posix()) for p in paths)
            message = f"{len(paths)} copies of {notebook} in {folder}/ ({where}); keep one"
        else:
            message = f"no notebook {notebook} in {folder}/{hint}"
        missing.update(dict.fromkeys(ids, shorten(message)))
    return tasks, missing


@dataclass(frozen=True)
class Notebook:
    """One notebook of a student, read into memory.

    *cells*: ``[(cell_number, python_source, defined_names)]`` to run;
    *text_cells*: ``[(cell_number, source)]``; *error*: why it cannot be
    graded (then no cells), else ``""``.
    """

    name: str
    exercises: tuple
    cells: tuple = ()
    text_cells: tuple = ()
    error: str = ""


@dataclass(frozen=True)
class Submission:
    """One student's work, read before any student code runs."""

    folder: Path
    student: str  # the display name (see display_name)
    notebooks: tuple = ()
    missing: dict = field(default_factory=dict)


def read_notebook(task):
    """The :class:`Notebook` of one planned task: read, parsed and converted, or its error."""
    path = Path(task["notebook"])
    name = display_name(path.name)
    if task.get("error"):
        return Notebook(name, tuple(task["exercises"]), error=task["error"])
    try:
        data = path.read_bytes()
        code_cells, text_cells = parse_cells(data, name)
        del data
        cells = prepare_cells(code_cells)
    except NotebookError as error:
        return Notebook(name, tuple(task["exercises"]), error=str(error))
    except (OSError, MemoryError, RecursionError) as error:
        return Notebook(name, tuple(task["exercises"]),
                        error=shorten(f"{name} cannot be read: {type(error).__name__}: {error}"))
    return Notebook(name, tuple(task["exercises"]), tuple(cells), tuple(text_cells))


def read_student(student_dir, exercises, written=()):
    """The :class:`Submission` of *student_dir*: every notebook it needs, in memory.

    *written* as for :func:`plan_notebooks`.
    """
    student_dir = Path(student_dir)
    tasks, missing = plan_notebooks(student_dir, exercises, written)
    return Submission(student_dir, display_name(student_dir.name),
                      tuple(read_notebook(task) for task in tasks), missing)
