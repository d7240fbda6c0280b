"""Collecting an LMS download: Canvas's or Moodle's submissions into ``SUBMISSIONS/<student>/``.

:func:`collect_download` reads a download as the LMS gives it (a zip, or the
folder it unzips to), places each student's exercise notebooks in
``SUBMISSIONS/<student>/<notebook>`` and returns a :class:`Collection`:
who was placed, with the LMS's own id, and every file it did not place
with the reason. :func:`roster_text` is the roster ``grade --roster``
reads. Nothing is extracted by the archive's own paths: only the course's
notebook names are written, under folder names made safe
(:func:`student_folder`), so no entry can write outside ``SUBMISSIONS``.

How each LMS names the files, from its own source:

* **Canvas** (instructure/canvas-lms, ``lib/content_zipper.rb``:
  ``get_filename``, ``sanitize_user_name``, ``add_upload_submission``): one
  flat zip; each file is ``<name>[_LATE]_<user id>_<attachment id>_<file
  name>``, where *name* is the student's ``sortable_name`` in lower case
  with everything but letters, digits and ``_`` removed (``Lovelace, Ada``
  -> ``lovelaceada``), ``LATE`` marks a late submission, and the file name
  is the one the student uploaded (``/\\:*?"<>|`` as ``_``). With
  anonymous grading there is no name and the id is ``anon_<id>``, so a late
  file starts ``LATE_anon_``. Text entries and links are ``<name>_<user
  id>_text.html`` / ``_link.html``: not notebooks. Canvas renames a second
  upload of one file name ``<stem>-1.<ext>``; attachment ids grow with
  time, so the highest one is the latest.
* **Moodle** (moodle/moodle, ``mod/assign/locallib.php``:
  ``download_submissions``): one folder per participant and plugin,
  ``<Full Name>_<participant id>_assignsubmission_file_/<file name>``
  (underscores in the name become spaces; with blind marking the name is
  ``Participant``; the id is the assignment's participant id, the
  ``Participant <id>`` of Moodle's grading worksheet, not the user id).
  Before Moodle 3.1, or with "download as folders" off, the files are flat:
  ``<Full Name>_<id>_assignsubmission_file_<file name>``. Moodle marks no
  late file in the names.

A notebook saved under a renamed copy's name (``ex01 (1).ipynb``, ``ex01-1.ipynb``,
``ex01-Copy1.ipynb``, ``Copy of ex01.ipynb``) is placed as the notebook it
copies. When one student has two files for one notebook, the latest wins
(Canvas: the higher attachment id; Moodle: the later modification time,
then the higher copy number) and the others are named as replaced. Every
other file (not a notebook of the course, an online text, a file that
names no student) is named in :attr:`Collection.not_placed`.

>>> parse_canvas_name("lovelaceada_LATE_1001_5501_ex01_add (1).ipynb")
CanvasName(name='lovelaceada', late=True, user_id='1001', attachment_id=5501, file='ex01_add (1).ipynb')

Surprising: the name cannot hold ``_<digits>_`` (Canvas removes those
underscores so that the ids can be found), so the first such pair is the ids,
even when the file name itself starts with digits.

>>> parse_canvas_name("obrienpat_1002_5502_2_ex01_add.ipynb").file
'2_ex01_add.ipynb'
>>> parse_moodle_folder("Ada Lovelace_1001_assignsubmission_file_")
('Ada Lovelace', '1001', 'file')
"""

import csv
import io
import os
import re
import zipfile
import zlib
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.grading.escaping import printable
from reasoneval_mini.grading.submissions import copy_of, display_name

LMS_CANVAS = "canvas"
LMS_MOODLE = "moodle"
#: A notebook larger than this is not placed (named instead): no exercise notebook is near it.
MAX_NOTEBOOK_BYTES = 20 * 2**20
#: An archive with more entries than this is refused: no class uploads so many files.
MAX_ENTRIES = 100_000
#: Longest student folder name made, in characters.
FOLDER_CHARS = 80

_CANVAS = re.compile(
    r"^(?:(?P<pre_late>LATE)_)?(?:(?P<anon>anon_[A-Za-z0-9]+)"
    r"|(?P<name>.*?)_(?:(?P<late>LATE|late)_)?(?P<user>\d+))_(?P<attachment>\d+)_(?P<file>.+)$",
    re.DOTALL)
_MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_$")
_MOODLE_FLAT = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)$",
                          re.DOTALL)
_CANVAS_RENAMED = re.compile(r"^(?P<stem>.+)-(?P<number>\d+)$")
_COPY_NUMBER = re.compile(r"(\d+)\D*$")
# Characters no folder name may hold on any platform the course runs on.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')


class DownloadError(ValueError):
    """The download cannot be collected; the message names the file and what was expected."""


@dataclass(frozen=True)
class CanvasName:
    """The parts of one file name in a Canvas submissions zip."""

    name: str
    late: bool
    user_id: str
    attachment_id: int
    file: str


def parse_canvas_name(name):
    """The :class:`CanvasName` of a Canvas zip entry *name*, or ``None`` if it is not one."""
    match = _CANVAS.match(name)
    if match is None:
        return None
    late = bool(match["pre_late"] or match["late"])
    if match["anon"]:
        return CanvasName("", late, match["anon"], int(match["attachment"]), match["file"])
    return CanvasName(match["name"], late, match["user"], int(match["attachment"]), match["file"])


def parse_moodle_folder(name):
    """``(full name, participant id, plugin)`` of a Moodle participant folder, or ``None``."""
    match = _MOODLE_FOLDER.match(name)
    return (match["name"], match["id"], match["plugin"]) if match else None


@dataclass(frozen=True)
class _Entry:
    """One file of the download: where it is, its size, its time, and how to read it."""

    path: str  # as in the archive, "/" separated
    size: int
    mtime: float
    read: object = field(compare=False, repr=False)


def _zip_entries(archive, opened_out):
    try:
        opened = zipfile.ZipFile(archive)
        opened_out.append(opened)
    except (zipfile.BadZipFile, OSError) as error:
        raise DownloadError(f"{display_name(str(archive))!r} is not a readable zip ({error}); "
                            "expected the LMS's submissions download (a .zip or its folder)") from None
    infos = [info for info in opened.infolist() if not info.is_dir()]
    if len(infos) > MAX_ENTRIES:
        raise DownloadError(f"{display_name(str(archive))!r} holds {len(infos)} files, more than "
                            f"{MAX_ENTRIES}; expected one assignment's submissions")
    entries = []
    for info in infos:
        try:
            mtime = datetime(*info.date_time).timestamp()
        except ValueError:
            mtime = 0.0
        entries.append(_Entry(info.filename, info.file_size, mtime,
                              lambda info=info: opened.read(info)))
    return entries


def _folder_entries(root):
    entries = []
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue  # never followed: a link could name any file of the instructor's
            stat = path.stat()
            entries.append(_Entry(path.relative_to(root).as_posix(), stat.st_size, stat.st_mtime,
                                  path.read_bytes))
            if len(entries) > MAX_ENTRIES:
                raise DownloadError(f"{display_name(str(root))!r} holds more than {MAX_ENTRIES} "
                                    "files; expected one assignment's submissions")
    return entries


def student_folder(name, lms_id):
    """A folder name for the student called *name*: one path part, printable, never hidden.

    >>> student_folder("Ada Lovelace", "1001"), student_folder("../..", "7")
    ('Ada Lovelace', 'student_7')
    """
    text = _UNSAFE.sub("_", printable(name)).strip().strip(".").strip()[:FOLDER_CHARS].strip()
    # A name of punctuation alone ("..", "_") says nothing: the id does.
    return text if any(c.isalnum() for c in text) else f"student_{lms_id}"


def notebook_for(file_name, notebooks):
    """``(notebook, copy number)`` that *file_name* is, or a renamed copy of; ``None`` if none.

    *notebooks* are the course's notebook file names. A copy number orders
    copies: 0 for the name itself, else the number in the suffix (1 when it
    has none).

    >>> notebook_for("ex01_add (2).ipynb", ["ex01_add.ipynb"])
    ('ex01_add.ipynb', 2)
    >>> notebook_for("EX01_ADD-1.ipynb", ["ex01_add.ipynb"]), notebook_for("x.ipynb", ["ex01_add.ipynb"])
    (('ex01_add.ipynb', 1), None)
    """
    by_folded = {name.casefold(): name for name in notebooks}
    if file_name in notebooks:
        return file_name, 0
    stem, dot, extension = file_name.rpartition(".")
    if not dot or f".{extension.casefold()}" not in {Path(n).suffix.casefold() for n in notebooks}:
        return None
    candidates = [copy_of(file_name)]
    renamed = _CANVAS_RENAMED.match(stem)
    if renamed:
        candidates.append(f"{renamed['stem']}.{extension}".casefold())
    for candidate in candidates:
        if candidate in by_folded:
            rest = stem.casefold().replace(Path(by_folded[candidate]).stem.casefold(), "", 1)
            number = _COPY_NUMBER.search(rest)
            return by_folded[candidate], int(number[1]) if number else 1
    return None


@dataclass(frozen=True)
class CollectedStudent:
    """One student placed in ``SUBMISSIONS``: the folder, the LMS's name and id, what was placed."""

    folder: str
    name: str
    lms_id: str
    late: bool = False
    notebooks: tuple = ()  # ((notebook name, source path in the download), ...)


@dataclass(frozen=True)
class Collection:
    """What :func:`collect_download` did.

    *replaced*: ``(folder, notebook, kept source, (older sources, ...))``
    where a student sent one notebook more than once; *not_placed*:
    ``(source, reason)`` for every file not placed.
    """

    lms: str
    students: tuple
    replaced: tuple = ()
    not_placed: tuple = ()


def _classify(entry):
    """``(lms, name, id, late, order, file name)`` for one entry, or ``(None, reason)``."""
    parts = entry.path.split("/")
    if parts[0] == "__MACOSX" or parts[-1].startswith("."):
        return None, "a hidden or system file"
    # A download unzipped into a folder of its own puts one more folder on top.
    top = next((i for i, part in enumerate(parts[:-1]) if parse_moodle_folder(part)), None)
    moodle = parse_moodle_folder(parts[top]) if top is not None else None
    flat = _MOODLE_FLAT.match(parts[-1]) if moodle is None else None
    if moodle or flat:
        name, lms_id, plugin = moodle if moodle else (flat["name"], flat["id"], flat["plugin"])
        if plugin != "file":
            return None, f"Moodle's {plugin} submission, not a file upload"
        return LMS_MOODLE, name, lms_id, False, entry.mtime, flat["file"] if flat else parts[-1]
    canvas = parse_canvas_name(parts[-1]) if len(parts) <= 2 else None
    if canvas is not None:
        return (LMS_CANVAS, canvas.name, canvas.user_id, canvas.late, canvas.attachment_id,
                canvas.file)
    return None, ("not named as Canvas or Moodle name a student's file "
                  "(<name>_<id>_<attachment id>_<file>, or <Full Name>_<id>_assignsubmission_file_/)")


def collect_download(source, out, notebooks):
    """Place the notebooks of the LMS download *source* (a zip or a folder) in *out*.

    *notebooks* are the course's notebook file names. Returns a
    :class:`Collection`. Raises :class:`DownloadError` when *source* is
    neither a zip nor a folder, when *out* already holds a file this run
    would write (nothing is overwritten: collect into a new folder), or
    when the download holds no student's file at all.
    """
    source, opened = Path(source), []
    try:
        if source.is_dir():
            entries = _folder_entries(source)
        elif source.is_file():
            entries = _zip_entries(source, opened)
        else:
            raise DownloadError(f"{display_name(str(source))!r} does not exist; expected the "
                                "LMS's submissions download: a .zip, or the folder it unzips to")
        return _collect(source, entries, Path(out), notebooks)
    finally:
        for archive in opened:
            archive.close()


def _gather(entries, notebooks):
    """``(found, not_placed)``: ``{(lms, id): {"name", "late", "files"}}`` and the files left out.

    *files* maps each notebook to its candidates ``(order, copy number, entry)``.
    """
    not_placed, found = [], {}
    for entry in entries:
        kind = _classify(entry)
        if kind[0] is None:
            not_placed.append((entry.path, kind[1]))
            continue
        lms, name, lms_id, late, order, file_name = kind
        target = notebook_for(file_name, notebooks)
        if target is None:
            not_placed.append((entry.path, "not a notebook of the course (expected one of "
                                           f"{', '.join(notebooks)})"))
            continue
        if entry.size > MAX_NOTEBOOK_BYTES:
            not_placed.append((entry.path, f"{entry.size} bytes, more than a notebook's "
                                           f"{MAX_NOTEBOOK_BYTES}"))
            continue
        student = found.setdefault((lms, lms_id), {"name": name, "late": False, "files": {}})
        student["late"] |= late
        student["files"].setdefault(target[0], []).append((order, target[1], entry))
    return found, not_placed


def _collect(source, entries, out, notebooks):
    found, not_placed = _gather(entries, notebooks)
    if not found:
        raise DownloadError(f"{display_name(str(source))!r} holds no student's notebook: "
                            f"{len(not_placed)} files, none named as a Canvas or Moodle download "
                            "names them (see `reasoneval-course collect --help`)")
    lms_names = sorted({lms for lms, _ in found})
    folders = _folder_names(found)
    students, replaced, writes = [], [], []
    for key in sorted(found, key=lambda key: folders[key]):
        student = found[key]
        placed = []
        for notebook in notebooks:
            files = sorted(student["files"].get(notebook, ()), key=lambda f: (f[0], f[1], f[2].path))
            if not files:
                continue
            latest = files[-1][2]
            placed.append((notebook, latest.path))
            writes.append((out / folders[key] / notebook, latest))
            if len(files) > 1:
                replaced.append((folders[key], notebook, latest.path,
                                 tuple(f[2].path for f in files[:-1])))
        students.append(CollectedStudent(folders[key], printable(student["name"] or key[1]), key[1],
                                         student["late"], tuple(placed)))
    existing = [str(path) for path, _ in writes if path.exists()]
    if existing:
        raise DownloadError(f"--out {display_name(str(out))!r} already holds "
                            f"{display_name(existing[0])!r}; collect into a new folder (nothing "
                            "is overwritten)")
    failed = set()
    for path, entry in writes:
        try:
            data = entry.read()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, RuntimeError,
                NotImplementedError, zlib.error, EOFError) as error:
            # A damaged or encrypted entry costs that notebook, named, not the class.
            not_placed.append((entry.path, f"cannot be read ({type(error).__name__}: {error}); "
                                           "download it again"))
            failed.add(entry.path)
            continue
        write_atomically(path, data)
    students = [replace(s, notebooks=tuple(n for n in s.notebooks if n[1] not in failed))
                for s in students]
    return Collection("+".join(lms_names), tuple(students), tuple(replaced),
                      tuple(sorted(not_placed)))


def _folder_names(found):
    """``{(lms, id): folder}``: the student's name, with the id added where two names meet."""
    names = {key: student_folder(student["name"] or key[1], key[1]) for key, student in found.items()}
    taken = {}
    for key, name in names.items():
        taken.setdefault(name.casefold(), []).append(key)
    return {key: (name if len(taken[name.casefold()]) == 1 else
                  student_folder(f"{name}_{key[1]}", key[1])) for key, name in names.items()}


def read_worksheet_emails(path):
    """``{participant id: e-mail}`` from Moodle's grading worksheet (CSV: Identifier, Email address).

    The worksheet's ``Identifier`` reads ``Participant 1001``: the id in the
    download's folder names.
    """
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise DownloadError(f"worksheet {display_name(str(path))!r} cannot be read as UTF-8 CSV: "
                            f"{error}") from None
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    columns = set(rows[0]) if rows else set()
    if not {"Identifier", "Email address"} <= columns:
        raise DownloadError(f"worksheet {display_name(str(path))!r}: columns "
                            f"{', '.join(sorted(columns)) or 'none'}; expected Moodle's grading "
                            "worksheet with Identifier and Email address (add the e-mail field "
                            "when you download it)")
    emails = {}
    for row in rows:
        number = re.search(r"(\d+)\s*$", row["Identifier"] or "")
        if number and (row["Email address"] or "").strip():
            emails[number[1]] = row["Email address"].strip()
    return emails


def roster_text(collection, emails=None):
    """The roster of *collection* in the format ``grade --roster`` reads (see gradebook).

    Canvas's user id goes in ``id`` (Canvas finds the student by it; an
    anonymous ``anon_`` id is no user id, so it is left blank); Moodle's
    participant id has no roster column, and Moodle finds students by
    ``email``, taken from *emails* (``{participant id: e-mail}``).
    """
    emails = emails or {}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("folder", "name", "id", "email"))
    for student in collection.students:
        canvas_id = student.lms_id if student.lms_id.isdigit() and LMS_CANVAS in collection.lms \
            and LMS_MOODLE not in collection.lms else ""
        writer.writerow((student.folder, student.name, canvas_id, emails.get(student.lms_id, "")))
    return buffer.getvalue()
