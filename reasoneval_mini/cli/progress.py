"""``reasoneval-course progress [DIR]``: the progress report of a folder of notebooks (see :func:`~reasoneval_mini.feedback.format_folder_progress`)."""

from pathlib import Path

from reasoneval_mini.cli import UsageError, planned_sandbox
from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS
from reasoneval_mini.feedback import format_folder_progress
from reasoneval_mini.grading.progress import MISSING_NOTEBOOK, evaluate_folder
from reasoneval_mini.support.i18n import _


def _no_folder(directory):
    """The message for a *directory* that is not a folder, saying what to type instead.

    A learner whose terminal stands in the folder of the notebooks themselves
    (``cd exercises``, or a copy of their own) gets "'exercises' is not a
    folder" for the default; the notebooks right here are then named.
    """
    message = _("{folder!r} is not a folder of exercise notebooks").format(folder=str(directory))
    here = [n.notebook for n in EXERCISE_NOTEBOOKS if Path(n.notebook).is_file()]
    if here:
        return message + _("; this folder holds {notebook}: to check the notebooks here, "
                           "type: reasoneval-course progress .").format(notebook=here[0])
    return message + _("; run this from the course's root folder (the one with exercises/ "
                       "in it), or name your folder: reasoneval-course progress "
                       "path/to/your/exercises")


def run(args):
    isolation = planned_sandbox(args.sandbox)
    if not Path(args.directory).is_dir():
        raise UsageError(_no_folder(args.directory))
    try:
        rows = evaluate_folder(args.directory, args.timeout, isolation=isolation)
    except ValueError as error:
        raise UsageError(error) from None
    if all(row.state == MISSING_NOTEBOOK for row in rows):
        names = ", ".join(notebook.notebook for notebook in EXERCISE_NOTEBOOKS)
        raise UsageError(_(
            "{folder!r} holds none of the exercise notebooks ({names}); run this "
            "from the course's root folder (the one with exercises/ in it), or name your "
            "folder: reasoneval-course progress path/to/your/exercises").format(
                folder=args.directory, names=names))
    print(format_folder_progress(rows))
    return 0
