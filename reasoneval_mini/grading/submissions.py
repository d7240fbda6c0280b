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
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, _, language, ngettext
from reasoneval_mini.support.text import MESSAGE_CHARS, shorten
from reasoneval_mini.grading.notebooks import NotebookError, parse_notebook, prepare_cells
from reasoneval_mini.grading.statuses import GRADE_FAILED

#: The learner copy's text in a written answer cell (nbgrader's text stub).
UNANSWERED_TEXT = "YOUR ANSWER HERE"
#: Largest notebook file read, in bytes: the grader holds every notebook of the
#: class in memory before any student runs (a course notebook with its plots
#: is a few MB; one of 2 GB would hold the grader, not just its student).
MAX_NOTEBOOK_BYTES = 50 << 20
# What Jupyter, Colab and file managers add to a copy's name: "-Copy1", " copy",
# "Copy of ", " (2)"; the case may differ too.
_COPY_SUFFIX = re.compile(r"(?:[-_ ]copy\d*| \(\d+\))+$")
_COPY_PREFIX = re.compile(r"^(?:copy of |copy_of_)+")


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


def copy_of(name):
    """The notebook name that *name* looks like a copy of (lower case), or ``None``.

    >>> copy_of("ex01_answer_equivalence-Copy1.ipynb"), copy_of("Copy of EX01.ipynb")
    ('ex01_answer_equivalence.ipynb', 'ex01.ipynb')

    Surprising: the same name in another letter case counts as a copy.

    >>> copy_of("EX01.ipynb"), copy_of("ex01.ipynb")
    ('ex01.ipynb', 'ex01.ipynb')
    """
    stem = Path(name).stem.casefold()
    original = _COPY_PREFIX.sub("", _COPY_SUFFIX.sub("", stem))
    return f"{original}.ipynb" if original else None


def find_copies(student_dir, notebook_names):
    """``{notebook name: (relative paths of look-alike copies, ...)}`` in *student_dir*."""
    student_dir = Path(student_dir)
    wanted = {name.casefold(): name for name in notebook_names}
    copies = {}
    for path in _notebook_files(student_dir):
        original = wanted.get(copy_of(path.name))
        if original is not None and path.name != original:
            copies.setdefault(original, []).append(
                display_name(path.relative_to(student_dir).as_posix()))
    return {name: tuple(paths) for name, paths in copies.items()}


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
    hint = _(" (found instead: {names}; renamed?)").format(names=", ".join(others)) if others else ""
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
                task["error"] = shorten(_("{notebook} refused: {where} is a symlink to {target}, "
                                          "outside {folder}/").format(
                                              notebook=notebook, where=where,
                                              target=display_name(str(target)), folder=folder))
            tasks.append(task)
            continue
        if paths:
            where = ", ".join(display_name(p.relative_to(student_dir).as_posix()) for p in paths)
            message = _("{count} copies of {notebook} in {folder}/ ({where}); keep one").format(
                count=len(paths), notebook=notebook, folder=folder, where=where)
        else:
            message = _("no notebook {notebook} in {folder}/{hint}").format(
                notebook=notebook, folder=folder, hint=hint)
        missing.update(dict.fromkeys(ids, shorten(message)))
    return tasks, missing


@dataclass(frozen=True)
class Notebook:
    """One notebook of a student, read into memory.

    *cells*: ``[(cell_number, python_source, defined_names)]`` to run;
    *text_cells*: ``[(cell_number, source)]``; *grade_ids*: ``((cell_number,
    grade_id), ...)`` of the text cells that carry an nbgrader id; *error*:
    why it cannot be graded (then no cells), else ``""``; *built_for*: the
    identity the build recorded in it (never graded on; see
    :func:`~reasoneval_mini.grading.notebooks.built_variant`), or ``None``.
    """

    name: str
    exercises: tuple
    cells: tuple = ()
    text_cells: tuple = ()
    error: str = ""
    grade_ids: tuple = ()
    built_for: str | None = None
    language: str = "en"


@dataclass(frozen=True)
class Submission:
    """One student's work, read before any student code runs.

    *copies* maps a notebook's name to the look-alike copies beside it
    (``ex01-Copy1.ipynb``), which are never graded but named in messages.
    """

    folder: Path
    student: str  # the display name (see display_name)
    notebooks: tuple = ()
    missing: dict = field(default_factory=dict)
    copies: dict = field(default_factory=dict)

    def notebook(self, name):
        """The :class:`Notebook` called *name*, or ``None`` if it was not found."""
        return next((n for n in self.notebooks if n.name == name), None)

    @property
    def language(self):
        """The language of this student's feedback: the first notebook's that records one.

        A class works in one edition; a student who mixes them hears the first
        notebook's (in file order) language, English when none records one.
        """
        return next((n.language for n in self.notebooks if n.language != "en"), "en")


def read_regular_file(path):
    """The bytes of *path*; :class:`NotebookError` if it is not a regular file.

    Opened without blocking and checked on the open file: a named pipe or a
    device in place of a notebook is refused and named, never waited on; so
    is a file over :data:`MAX_NOTEBOOK_BYTES`, of which no more is read.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a named pipe" if stat.S_ISFIFO(mode) else "a device" if
                    stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if
                    stat.S_ISSOCK(mode) else "not a regular file")
            raise NotebookError(f"{display_name(path.name)} refused: it is {kind}, "
                                "not a notebook file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_NOTEBOOK_BYTES + 1)
        if len(data) > MAX_NOTEBOOK_BYTES:
            raise NotebookError(f"{display_name(path.name)} refused: it is over "
                                f"{MAX_NOTEBOOK_BYTES:,} bytes, the most the grader reads; "
                                "clear its outputs (Edit > Clear All Outputs) and save it")
        return data
    finally:
        os.close(fd)


def read_notebook(task):
    """The :class:`Notebook` of one planned task: read, parsed and converted, or its error."""
    path = Path(task["notebook"])
    name = display_name(path.name)
    if task.get("error"):
        return Notebook(name, tuple(task["exercises"]), error=task["error"])
    try:
        data = read_regular_file(path)
        code_cells, text_cells, grade_ids, built_for, language = parse_notebook(data, name)
        del data
        cells = prepare_cells(code_cells)
    except NotebookError as error:
        return Notebook(name, tuple(task["exercises"]), error=str(error))
    except (OSError, MemoryError, RecursionError) as error:
        return Notebook(name, tuple(task["exercises"]),
                        error=shorten(f"{name} cannot be read: {type(error).__name__}: {error}"))
    return Notebook(name, tuple(task["exercises"]), tuple(cells), tuple(text_cells),
                    grade_ids=tuple(sorted(grade_ids.items())), built_for=built_for,
                    language=language)


def read_student(student_dir, exercises, written=()):
    """The :class:`Submission` of *student_dir*: every notebook it needs, in memory.

    *written* as for :func:`plan_notebooks`.
    """
    student_dir = Path(student_dir)
    tasks, missing = plan_notebooks(student_dir, exercises, written)
    names = {Path(e.notebook).name for e in exercises.values()}
    names |= {Path(task.notebook).name for task in written}
    notebooks = tuple(read_notebook(task) for task in tasks)
    submission = Submission(student_dir, display_name(student_dir.name), notebooks, missing,
                            find_copies(student_dir, names))
    if missing and submission.language != DEFAULT_LANGUAGE:
        # The language is known only once a notebook is read: say what is missing in it.
        with language(submission.language):
            submission = replace(submission, missing=plan_notebooks(student_dir, exercises,
                                                                    written)[1])
    return submission


def written_answer(notebook, task_id):
    """``(cell_number, text)`` of written task *task_id*'s answer cell in *notebook*, or ``None``.

    The text cell whose nbgrader ``grade_id`` is *task_id*; failing that
    (metadata lost by another editor), the first text cell after the task
    cell, which names the task ("Written task id: `ID`").
    """
    by_number = dict(notebook.text_cells)
    for number, grade_id in notebook.grade_ids:
        if grade_id == task_id and number in by_number:
            return number, by_number[number]
    marker = f"Written task id: `{task_id}`"
    numbers = [n for n, _ in notebook.text_cells]
    for index, (number, source) in enumerate(notebook.text_cells):
        if marker in source and index + 1 < len(numbers):
            following = notebook.text_cells[index + 1]
            return following if "Written task id:" not in following[1] else None
    return None


def is_unanswered(text):
    """True if a written answer is empty or still the stub (``YOUR ANSWER HERE``, any emphasis).

    >>> is_unanswered("*YOUR ANSWER HERE*"), is_unanswered("  "), is_unanswered("Because")
    (True, True, False)
    """
    return text.strip().strip("*_ \n").strip() in ("", UNANSWERED_TEXT)


def with_copy_note(grade, submission, notebook_name, untouched):
    """*grade* with its message naming the look-alike copies of *notebook_name*, if *untouched*.

    A learner who worked in ``ex01-Copy1.ipynb`` left ``ex01.ipynb``
    untouched; only the original is graded, so the message says where the
    work probably is.
    """
    copies = submission.copies.get(notebook_name, ())
    if not untouched or not copies:
        return grade
    # "; " first, outside the message: progress() finds the note after it.
    note = "; " + ngettext(
        "{notebook} is untouched, but {copies} is a copy of it: only {notebook} is graded, so "
        "save your work under that name",
        "{notebook} is untouched, but {copies} are copies of it: only {notebook} is graded, so "
        "save your work under that name", len(copies)).format(
            notebook=notebook_name, copies=", ".join(copies))
    # The note is what the learner must do, so the message before it is cut, not the note.
    room = max(MESSAGE_CHARS - len(note), MESSAGE_CHARS // 3)
    return replace(grade, message=shorten(shorten(grade.message, room) + note))


def note_copies(grades, submission, exercises):
    """*grades* (of *exercises*) with a copy named where the notebook's answer is an untouched stub."""
    noted = []
    for grade in grades:
        untouched = grade.status == GRADE_FAILED and not any(
            check.get("attempted", True) for check in grade.checks)
        noted.append(with_copy_note(grade, submission,
                                    Path(exercises[grade.exercise].notebook).name, untouched))
    return noted
