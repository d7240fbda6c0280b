"""Gradebook exports: the class's scores as a CSV that Canvas or Moodle imports as it is.

One column per exercise notebook (the platform's assignment or grade item),
holding the sum of that notebook's exercise scores; notebooks in the
registry's order (for the course registry, the course map's order). The
*roster* maps each student folder to the platform's identity of the student.

The roster is a UTF-8 CSV with a header row; columns, in any order
(:data:`ROSTER_COLUMNS`; ``folder`` and ``name`` are required, the others
may be left out or blank unless the export needs them):

* ``folder``: the student's folder name in ``SUBMISSIONS_DIR``;
* ``name``: the name the platform shows (Canvas: ``Last, First``);
* ``id``: the Canvas user ID (a number, from a Canvas gradebook export);
* ``sis_user_id``, ``sis_login_id``, ``section``: as in Canvas; Moodle's
  ``ID number`` is taken from ``sis_user_id``;
* ``email``: the e-mail address; Moodle matches students by it.

Canvas (:data:`CANVAS_IDENTITY`) needs ``id``, ``sis_user_id`` or
``sis_login_id`` on every row; Moodle needs ``email``. Every identity is
unique: an ``id``, ``sis_user_id``, ``sis_login_id`` or e-mail address (in
any letter case) on two lines is refused naming both, because both
platforms would write the later line's scores over the earlier student. An
``id`` is ASCII digits (Canvas reads ``١٠٠١`` as 0 and falls back to the name).

A second row ``Points Possible`` is written for Canvas, as in Canvas's own
gradebook export: Canvas skips it when it matches existing assignments and
takes the points from it for assignments the import creates. Assignment
columns carry no ``(number)`` suffix: Canvas reads such a number as an
assignment id.

Written tasks (graded by hand) count in their notebook's column, which
always has its full points. A student's cell is left blank (no score
written, never a 0) while one of that student's written answers in it
awaits the instructor; :attr:`GradebookExport.awaiting` names those cells,
and nobody else's score waits for them. Scores are added exactly and
rounded once, half up.

A roster student without a folder is left out of the export (never written
as 0: both platforms would overwrite a real grade with it), and so is one
whose grading was interrupted (Ctrl-C); a folder not on the roster is not
exported either. All are listed in the result.

>>> from types import SimpleNamespace as NS
>>> exercises = {"a": NS(notebook="ex01_x.ipynb", points=2),
...              "b": NS(notebook="ex01_x.ipynb", points=1)}
>>> notebook_columns(exercises)
[('ex01_x', ('a', 'b'), 3)]

Surprising: scores are added exactly, so three thirds make a whole point.

>>> from fractions import Fraction
>>> grades = [NS(student="ada", exercise=i, score=Fraction(1, 3)) for i in "aab"]
>>> notebook_scores(grades, exercises)["ada"]["ex01_x"]
Fraction(1, 1)
"""

import csv
import io
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.grading.escaping import csv_text
from reasoneval_mini.grading.reports import format_score
from reasoneval_mini.grading.statuses import GRADE_INSTRUCTOR_GRADED, GRADE_INTERRUPTED

EXPORT_CANVAS = "canvas"
EXPORT_MOODLE = "moodle"
#: The platforms ``grade --export`` writes for.
EXPORT_FORMATS = (EXPORT_CANVAS, EXPORT_MOODLE)

#: Every column a roster may have; the first two are required.
ROSTER_COLUMNS = ("folder", "name", "id", "sis_user_id", "sis_login_id", "section", "email")
ROSTER_REQUIRED = ("folder", "name")
#: Roster columns of which Canvas needs at least one per student.
CANVAS_IDENTITY = ("id", "sis_user_id", "sis_login_id")

CANVAS_HEADER = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: The first cell of the second row of a Canvas gradebook export (its spaces included).
CANVAS_POINTS_ROW = "    Points Possible"
MOODLE_HEADER = ("Email address", "ID number", "Full name")


class RosterError(ValueError):
    """The roster cannot be used; the message names the file, the line and the column."""


@dataclass(frozen=True)
class RosterEntry:
    """One student of the roster; ``line`` is its line in the file."""

    folder: str
    name: str
    id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    email: str = ""
    line: int = 0


@dataclass(frozen=True)
class GradebookExport:
    """What :func:`write_gradebook` did: the file, who had no folder, which folders were unknown.

    *exported* counts the students in the file; *awaiting* lists the cells
    left blank because a written answer in them awaits the instructor.
    """

    path: Path
    exported: int
    without_folder: tuple
    not_on_roster: tuple
    awaiting: tuple = ()  # ((folder, column, task ids), ...): blank cells, awaiting the instructor
    not_graded: tuple = ()  # roster folders left out: their grading was interrupted
    points: tuple = ()  # ((column, points), ...): what a Moodle grade item's maximum must be


def _check_format(export_format):
    # None: a roster read for another purpose than an export (building a class's notebooks).
    if export_format is not None and export_format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {export_format!r}; expected one of: "
                         f"{', '.join(EXPORT_FORMATS)}")


#: Identity columns that must be unique across the roster; e-mails compared in any case.
UNIQUE_COLUMNS = ("folder", "id", "sis_user_id", "sis_login_id", "email")


def _identity_key(column, value):
    return value.casefold() if column == "email" else value


def _check_entry(where, entry, export_format, seen):
    for column in ROSTER_REQUIRED:
        if not getattr(entry, column):
            raise RosterError(f"{where}, column {column!r}: empty; every student needs a {column}")
    for column in UNIQUE_COLUMNS:
        value = getattr(entry, column)
        first = seen.get((column, _identity_key(column, value))) if value else None
        if first is not None:
            case = " (e-mail addresses are compared in any letter case)" if column == "email" else ""
            raise RosterError(f"{where}, column {column!r}: {value!r} is already on line "
                              f"{first.line} ({first.name!r}){case}; one line per student, "
                              "or both platforms write one student's scores over the other's")
    if entry.id and not (entry.id.isascii() and entry.id.isdigit()):
        raise RosterError(f"{where}, column 'id': {entry.id!r} is not a Canvas user ID "
                          "(ASCII digits 0-9, as in a Canvas gradebook export)")
    if entry.email and "@" not in entry.email:
        raise RosterError(f"{where}, column 'email': {entry.email!r} is not an e-mail address")
    if export_format == EXPORT_CANVAS and not any(getattr(entry, c) for c in CANVAS_IDENTITY):
        raise RosterError(f"{where}: Canvas needs one of the columns "
                          f"{', '.join(CANVAS_IDENTITY)} filled in to find {entry.name!r}")
    if export_format == EXPORT_MOODLE and not entry.email:
        raise RosterError(f"{where}, column 'email': empty; Moodle finds {entry.name!r} "
                          "by e-mail address")


def _decode(path, data):
    """The roster's text; :class:`RosterError` naming the first line that is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise RosterError(
            f"roster {path.name} line {line}: byte 0x{data[error.start]:02x} is not UTF-8 "
            "(the file was saved in another encoding, e.g. Latin-1 or Windows-1252); save "
            "the roster as UTF-8 (in Excel: Save As, 'CSV UTF-8 (Comma delimited)')") from None


def _check_header(path, header_line, header, export_format):
    where = f"roster {path.name} line {header_line}"
    if len(header) == 1:
        separator = next((s for s in (";", "\t", "|") if s in header[0]), None)
        if separator is not None:
            shown = "tab" if separator == "\t" else repr(separator)
            raise RosterError(f"{where}: the columns are separated by {shown}, not commas; "
                              "save the roster with commas between the columns (in Excel: "
                              "'CSV UTF-8 (Comma delimited)')")
    for name in header:
        if name not in ROSTER_COLUMNS or header.count(name) > 1:
            problem = "appears twice" if name in ROSTER_COLUMNS else "is not a roster column"
            raise RosterError(f"{where}, column {name!r} {problem}; expected columns: "
                              f"{', '.join(ROSTER_COLUMNS)}")
    for name in ROSTER_REQUIRED:
        if name not in header:
            raise RosterError(f"{where}: no column {name!r}; the header needs at least "
                              f"{', '.join(ROSTER_REQUIRED)}")
    if export_format == EXPORT_MOODLE and "email" not in header:
        raise RosterError(f"{where}: no column 'email'; Moodle finds each student by e-mail "
                          "address, so the roster needs an email column")
    if export_format == EXPORT_CANVAS and not set(CANVAS_IDENTITY) & set(header):
        raise RosterError(f"{where}: no column {', '.join(CANVAS_IDENTITY[:-1])} or "
                          f"{CANVAS_IDENTITY[-1]}; Canvas finds each student by one of them "
                          "(copy them from a Canvas gradebook export)")


def read_roster(path, export_format):
    """Return the roster at *path* as a tuple of :class:`RosterEntry`, in file order.

    Raises :class:`RosterError` (a ``ValueError``) naming the line and the
    column for: a file that is not UTF-8 (the line, and "save as UTF-8"),
    columns separated by ``;`` or tabs ("use commas"), an unknown or missing
    column (an ``email`` column for Moodle, an identity column for Canvas),
    a row with the wrong number of fields, a quote left open (a line break
    inside a field), an empty ``folder`` or ``name``,
    a folder or identity listed twice (both lines named), a Canvas ``id``
    that is not ASCII digits or what *export_format* needs but is blank.
    Blank lines are skipped; a byte-order mark (Excel) is accepted.
    """
    _check_format(export_format)
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RosterError(f"roster {str(path)!r} cannot be read: {error}") from None
    text = _decode(path, data)
    rows = [(number, row) for number, row in
            enumerate(csv.reader(io.StringIO(text, newline="")), start=1)
            if any(field.strip() for field in row)]
    if not rows:
        raise RosterError(f"roster {str(path)!r} is empty; expected a header line with the "
                          f"columns {', '.join(ROSTER_COLUMNS)}")
    header_line, header = rows[0]
    header = [name.strip() for name in header]
    _check_header(path, header_line, header, export_format)
    entries, seen = [], {}
    for number, row in rows[1:]:
        where = f"roster {path.name} line {number}"
        broken = next((name for name, value in zip(header, row) if "\n" in value or "\r" in value),
                      None)
        if broken is not None or (len(row) > len(header) and any("\n" in v for v in row)):
            column = f", column {broken!r}" if broken else ""
            raise RosterError(f"{where}{column}: a line break inside a field, so a quote (\") "
                              "opened in this line is never closed and the lines after it were "
                              "read into it; close the quote")
        if len(row) != len(header):
            raise RosterError(f"{where}: {len(row)} fields, expected {len(header)} "
                              f"({', '.join(header)}); quote a name that holds a comma")
        entry = RosterEntry(**{name: value.strip() for name, value in zip(header, row)},
                            line=number)
        _check_entry(where, entry, export_format, seen)
        for column in UNIQUE_COLUMNS:
            if getattr(entry, column):
                seen[(column, _identity_key(column, getattr(entry, column)))] = entry
        entries.append(entry)
    if not entries:
        raise RosterError(f"roster {str(path)!r} lists no students, only a header")
    return tuple(entries)


def notebook_columns(exercises):
    """``[(notebook stem, exercise ids, points)]``, notebooks in the order of *exercises*."""
    columns = {}
    for exercise_id, exercise in exercises.items():
        stem = Path(exercise.notebook).stem
        ids, points = columns.get(stem, ((), 0))
        columns[stem] = (ids + (exercise_id,), points + exercise.points)
    return [(stem, ids, points) for stem, (ids, points) in columns.items()]


def notebook_scores(grades, exercises):
    """``{student: {notebook stem: exact score, or None}}``: each notebook's scores added.

    Rows of other ids add nothing. A notebook cell with a written answer
    still awaiting the instructor (no score yet) is ``None``: its sum would
    be a partial score shown as if it were the whole.
    """
    notebook_of = {i: Path(e.notebook).stem for i, e in exercises.items()}
    stems = [stem for stem, _, _ in notebook_columns(exercises)]
    scores = {}
    for grade in grades:
        row = scores.setdefault(grade.student, dict.fromkeys(stems, Fraction(0)))
        stem = notebook_of.get(grade.exercise)
        if stem is None or row[stem] is None:
            continue
        row[stem] = None if grade.score is None else row[stem] + Fraction(grade.score)
    return scores


def awaiting_cells(grades, exercises, students):
    """``((student, notebook stem, (task ids, ...)), ...)``: the cells of *students* left blank.

    A cell is blank while one of its written answers awaits the instructor;
    every other cell, that student's other notebooks and everyone else's, is exported.
    """
    notebook_of = {i: Path(e.notebook).stem for i, e in exercises.items()}
    cells = {}
    for grade in grades:
        if grade.score is None and grade.exercise in notebook_of and grade.student in students:
            cells.setdefault((grade.student, notebook_of[grade.exercise]), []).append(grade.exercise)
    return tuple((student, stem, tuple(ids)) for (student, stem), ids in cells.items())


def gradebook_rows(grades, roster, exercises, export_format, written=None):
    """``(rows, without_folder, not_on_roster, awaiting, not_graded)``: CSV rows, header first.

    Every exercise and written task has its column, with its full points.
    Roster students without a folder (no grade), and those whose grading was
    interrupted (``not_graded``: some of their zeros were never earned), get
    no row; a cell whose written answer awaits the instructor is blank
    (``awaiting``, see :func:`awaiting_cells`).
    """
    _check_format(export_format)
    items = {**exercises, **dict(written or {})}
    columns = notebook_columns(items)
    scores = notebook_scores(grades, items)
    unfinished = {g.student for g in grades if g.status == GRADE_INTERRUPTED}
    if export_format == EXPORT_CANVAS:
        rows = [[*CANVAS_HEADER, *(stem for stem, _, _ in columns)],
                [CANVAS_POINTS_ROW, "", "", "", "", *(str(points) for _, _, points in columns)]]
    else:
        rows = [[*MOODLE_HEADER, *(stem for stem, _, _ in columns)]]
    exported = []
    for entry in roster:
        if entry.folder not in scores or entry.folder in unfinished:
            continue  # no folder or not fully graded: a 0 here would overwrite a real grade
        if export_format == EXPORT_CANVAS:
            identity = [entry.name, entry.id, entry.sis_user_id, entry.sis_login_id, entry.section]
        else:
            identity = [entry.email, entry.sis_user_id, entry.name]
        rows.append(identity + [format_score(scores[entry.folder][stem])
                                for stem, _, _ in columns])
        exported.append(entry.folder)
    on_roster = {entry.folder for entry in roster}
    without_folder = tuple(e.folder for e in roster if e.folder not in scores)
    not_on_roster = tuple(sorted(set(scores) - on_roster))
    not_graded = tuple(e.folder for e in roster if e.folder in unfinished)
    awaiting = awaiting_cells(grades, items, set(exported))
    return rows, without_folder, not_on_roster, awaiting, not_graded


def exported_hand_scores(grades, roster):
    """How many hand scores (``graded_by_instructor`` cells) an export of *roster* carries.

    A student left out of the export (no folder, grading interrupted) carries none.
    """
    unfinished = {g.student for g in grades if g.status == GRADE_INTERRUPTED}
    exported = {entry.folder for entry in roster} - unfinished
    return sum(g.status == GRADE_INSTRUCTOR_GRADED and g.student in exported for g in grades)


def write_gradebook(grades, roster, exercises, export_format, out, written=None):
    """Write the *export_format* gradebook CSV to *out* atomically; return a :class:`GradebookExport`.

    *written* maps written task ids to their tasks (``notebook``,
    ``points``); see :func:`gradebook_rows`. Rows follow
    the roster's order; the file depends only on the arguments.
    """
    rows, without_folder, not_on_roster, awaiting, not_graded = gradebook_rows(
        grades, roster, exercises, export_format, written)
    write_atomically(out, csv_text(rows))
    exported = len(roster) - len(without_folder) - len(not_graded)
    items = {**exercises, **dict(written or {})}
    points = tuple((stem, total) for stem, _, total in notebook_columns(items))
    return GradebookExport(Path(out), exported, without_folder, not_on_roster, awaiting,
                           not_graded, points)


def default_export_path(grades_out, export_format):
    """Where an export goes without ``--export-out``: ``grades.csv`` -> ``grades_canvas.csv``."""
    out = Path(grades_out)
    return out.with_name(f"{out.stem}_{export_format}.csv")
