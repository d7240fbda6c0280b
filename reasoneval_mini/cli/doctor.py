"""``reasoneval-course doctor``: print the setup report (see :mod:`reasoneval_mini.lessons.doctor`)."""

from reasoneval_mini.lessons.doctor import run_doctor


def run(args):
    return run_doctor()
