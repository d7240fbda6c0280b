"""The grading child process: run one student's notebooks, then the instructor's checks.

``python -m reasoneval_mini.grading.child`` reads one framed message
(:mod:`reasoneval_mini.support.messages`) on stdin, its job::

    {"registry": "pkg.module" or "/path/registry.py", "hidden_tests": path or null,
     "step_timeout": seconds, "nonce": "...",
     "tasks": [{"notebook": "/abs/path.ipynb", "exercises": ["id", ...],
                "skip_cells": [[cell_number, reason], ...]}, ...]}

and writes framed event messages to a *private copy* of its stdout taken
before any learner code runs; the real stdout and stderr then point to the
null device, so nothing a learner prints (``"passed"`` included) reaches the
grader, and a huge output costs no memory. Every event carries the job's
random nonce; the parent drops anything without it.

The instructor's checks and ``run_checks`` are loaded *before* learner code runs,
and the grader's modules are restored before each exercise, so a learner who
redefines ``check`` or monkeypatches the course package changes nothing; the
modules the message protocol calls (``json``, ``struct``, ``os.write``) are
restored before each event, so a learner who patches ``json.dumps`` cannot
rewrite one. A watchdog (``SIGALRM``, POSIX only) stops each cell and each
exercise's checks after ``step_timeout`` seconds; the parent's hard timeout
covers the rest. This protects against mistakes, not against a deliberate
attack on the grader.
"""

import builtins
import importlib
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from reasoneval_mini.support.messages import read_message, write_message
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.notebooks import (
    CELL_ERROR_CHARS, NotebookError, explain_missing_answer, read_cells, run_code_cells)
from reasoneval_mini.grading.statuses import GRADE_ERROR, GRADE_FAILED, GRADE_MISSING, GRADE_TIMEOUT
from reasoneval_mini.grading.instructor_checks import load_hidden_checks, load_registry

#: Modules :func:`write_message` calls into, put back before each event: a
#: notebook that mocks ``json.dumps`` must not break (or rewrite) the grader's events.
_PROTOCOL_MODULES = ("json", "struct", "reasoneval_mini.support.messages")

#: Address-space ceiling of a grading process (POSIX); a runaway list gets MemoryError.
MEMORY_LIMIT_BYTES = 4 * 2**30


class StepTimeout(BaseException):
    """Raised by the watchdog; a BaseException so that ``except Exception`` misses it."""


class Watchdog:
    """Run a step with a time limit; degrades to no limit without ``setitimer``."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.fired = self.active = False
        self.available = (hasattr(signal, "setitimer")
                          and threading.current_thread() is threading.main_thread())

    def _alarm(self, signum, frame):
        if self.active:
            self.fired = True
            raise StepTimeout()

    def run(self, thunk):
        """Return ``None`` if ``thunk()`` finished, else the error text."""
        self.fired, self.active = False, True
        if self.available:
            signal.signal(signal.SIGALRM, self._alarm)
            # Re-fires every 0.05 s: learner code that swallows one alarm meets the next.
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.05)
        try:
            thunk()
            error = None
        except BaseException as caught:  # SystemExit and KeyboardInterrupt included
            error = f"{type(caught).__name__}: {caught}"
        finally:
            self.active = False
            if self.available:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if self.fired:
            return f"did not finish within {self.seconds:g} s (endless loop?)"
        return error


def snapshot_modules(prefixes):
    """Copies of the namespaces of builtins and the grader's modules."""
    return {name: dict(vars(module)) for name, module in list(sys.modules.items())
            if name == "builtins" or name.startswith(prefixes)}


def restore_modules(snapshot):
    for name, saved in snapshot.items():
        namespace = vars(sys.modules.get(name) or importlib.import_module(name))
        namespace.clear()
        namespace.update(saved)


@dataclass(frozen=True)
class Grader:
    """The child's side of grading, set up before any learner code runs.

    *run_checks*: the registry's ``run_checks``; *hidden*: ``{exercise_id:
    checks}``; *watchdog*: the per-step time limit; *snapshot*: the grader's
    module namespaces, restored before each exercise's checks.
    """

    run_checks: object
    hidden: dict
    watchdog: Watchdog
    snapshot: dict


def _plain(value):
    """*value* as a JSON scalar: a check built by hand may hold any object."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return shorten(value)


def grade_exercise(exercise, namespace, cells, failures, grader):
    """Return the result dict of one exercise, from the learner's namespace."""
    answer = namespace.get(exercise.answer_name)
    if not callable(answer):
        message = explain_missing_answer(exercise.answer_name, *cells, failures)
        return {"status": GRADE_MISSING, "message": message, "checks": []}
    restore_modules(grader.snapshot)
    outcome = {}
    extra = grader.hidden.get(exercise.id, ())
    error = grader.watchdog.run(
        lambda: outcome.setdefault("checks", grader.run_checks(exercise.id, answer, extra)))
    if grader.watchdog.fired:
        return {"status": GRADE_TIMEOUT, "message": f"the checks {error}", "checks": []}
    if error is not None:
        return {"status": GRADE_ERROR, "message": shorten(f"the checks crashed: {error}"),
                "checks": []}
    checks = [{key: _plain(value) for key, value in result.to_dict().items()}
              for result in outcome["checks"]]
    return {"status": GRADE_FAILED, "message": "", "checks": checks}  # parent decides passed


def run_job(job, emit):
    """Grade every task of *job*, emitting one event per step."""
    registry = load_registry(job["registry"])
    exercises = dict(registry.EXERCISES)
    hidden = load_hidden_checks(job["hidden_tests"], exercises) if job["hidden_tests"] else {}
    prefixes = ("reasoneval_mini", registry.__name__)
    grader = Grader(registry.run_checks, hidden, Watchdog(job["step_timeout"]),
                    snapshot_modules(prefixes))
    for task in job["tasks"]:
        path = Path(task["notebook"])
        emit({"event": "notebook", "notebook": path.name})
        try:
            cells = read_cells(path)
        except NotebookError as error:
            for exercise_id in task["exercises"]:
                emit({"event": "result", "exercise": exercise_id, "status": GRADE_ERROR,
                      "message": str(error), "checks": []})
            continue
        namespace = {"__name__": "__main__", "__builtins__": builtins, "display": print}
        skipped = {number: reason for number, reason in task.get("skip_cells", ())}
        failures = []
        for number, source in cells[0]:
            if number in skipped:  # it stopped an earlier grading process
                failures.append(f"cell {number}: {shorten(skipped[number], CELL_ERROR_CHARS)}")
                continue
            emit({"event": "cell", "cell": number})  # progress: the time limit is per step
            failures += run_code_cells([(number, source)], namespace, grader.watchdog.run,
                                       path.stem)
        for exercise_id in task["exercises"]:
            emit({"event": "exercise", "exercise": exercise_id})
            result = grade_exercise(exercises[exercise_id], namespace, cells, failures, grader)
            emit({"event": "result", "exercise": exercise_id, **result})
    emit({"event": "done"})


def main():
    channel = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    job = read_message(0)
    sys.stdin = open(os.devnull, encoding="utf-8")
    nonce = job["nonce"]
    protocol, os_write = snapshot_modules(_PROTOCOL_MODULES), os.write

    def emit(event):
        restore_modules(protocol)
        os.write = os_write
        write_message(channel, {**event, "nonce": nonce})

    try:  # POSIX only: no core files from crashes, a memory ceiling for runaway lists
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > MEMORY_LIMIT_BYTES:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, hard))
    except (ImportError, ValueError, OSError):
        pass  # Windows: time limits only (doctor says so)
    try:
        run_job(job, emit)
    except BaseException as error:  # report the grader's own failure, then stop
        emit({"event": "fatal", "message": shorten(f"{type(error).__name__}: {error}")})
    os.close(channel)
    os._exit(0)  # skip learner atexit handlers and non-daemon threads


if __name__ == "__main__":
    main()
