"""``reasoneval-course collect ARCHIVE --out SUBMISSIONS --roster ROSTER.csv``: an LMS download, placed.

Reads a Canvas submissions zip, or a Moodle download (zip or folder), and
writes ``SUBMISSIONS/<student>/<notebook>`` and the roster ``grade
--roster`` reads (see :mod:`reasoneval_mini.grading.lms_download`). Every
file not placed is printed with the reason, and so is every late mark and
every resubmission (the latest kept). Exit 0 when students were placed; a
usage error (2) naming the problem for an unreadable download, a roster or
notebook that already exists (nothing is overwritten), or a bad worksheet.
"""

from pathlib import Path

from reasoneval_mini.cli import UsageError
from reasoneval_mini.grading.escaping import printable
from reasoneval_mini.grading.instructor_checks import DEFAULT_REGISTRY, load_registry
from reasoneval_mini.grading.lms_download import (
    LMS_MOODLE, DownloadError, collect_download, read_worksheet_emails, roster_text)
from reasoneval_mini.support.files import write_atomically
from reasoneval_mini.support.text import plural


def course_notebooks(registry):
    """The notebook file names of *registry*'s exercises and written tasks, in course order."""
    items = [*registry.EXERCISES.values(), *getattr(registry, "WRITTEN_TASKS", {}).values()]
    return list(dict.fromkeys(Path(item.notebook).name for item in items))


def run(args):
    roster = Path(args.roster)
    if roster.exists():
        raise UsageError(f"--roster {str(roster)!r} already exists; choose a new file name "
                         "(collect overwrites nothing)")
    try:
        emails = read_worksheet_emails(args.worksheet) if args.worksheet else {}
        notebooks = course_notebooks(load_registry(args.registry or DEFAULT_REGISTRY))
        collection = collect_download(args.archive, args.out, notebooks)
    except DownloadError as error:
        raise UsageError(error) from None
    write_atomically(roster, roster_text(collection, emails))
    placed = sum(len(s.notebooks) for s in collection.students)
    lms = " and ".join(name.capitalize() for name in collection.lms.split("+"))
    print(f"collected {plural(len(collection.students), 'student')} ({plural(placed, 'notebook')}) "
          f"from a {lms} download into {args.out}")
    late = [s.folder for s in collection.students if s.late]
    if late:
        print(f"late (Canvas marked LATE): {', '.join(late)}")
    for folder, notebook, kept, older in collection.replaced:
        print(f"resubmitted: {folder}/{notebook} is the latest, {printable(kept)}; not placed "
              f"(older): {', '.join(printable(path) for path in older)}")
    if collection.not_placed:
        print(f"not placed ({plural(len(collection.not_placed), 'file')}):")
        for path, reason in collection.not_placed:
            print(f"  {printable(path)}: {reason}")
    else:
        print("not placed: none")
    without = [s.folder for s in collection.students if not s.notebooks]
    if without:
        print(f"no notebook of the course from: {', '.join(without)}")
    if LMS_MOODLE in collection.lms:
        missing = [s.folder for s in collection.students if s.lms_id not in emails]
        if missing:
            print(f"the roster's email column is blank for {', '.join(missing)}: Moodle finds "
                  "students by e-mail address; add --worksheet with Moodle's grading worksheet "
                  "(Download grading worksheet, with the e-mail field), or type them in")
    print(f"wrote {roster} ({plural(len(collection.students), 'student')}); grade with: "
          f"reasoneval-course grade {args.out} --roster {roster} --export {collection.lms.split('+')[0]}")
    return 0
