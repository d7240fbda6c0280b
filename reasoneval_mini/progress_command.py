"""``reasoneval-course progress [DIR]``: the learner's progress table, from saved notebooks.

For each exercise notebook in *DIR* (default ``exercises/``), a separate
Python process with a time limit runs the notebook's code cells in file order
(cells that only call ``check``/``hint``/``progress`` are skipped, a failing
cell does not stop the next; extraction is shared with the grader, see
:mod:`reasoneval_mini.extract_answers`), then runs :func:`run_checks` for
each exercise whose function is defined. Nothing the notebook prints or
stores in its outputs counts. Besides ``passed``, ``failed`` and
``not attempted``, an exercise can be:

* ``missing notebook`` -- no file of that name in *DIR*;
* ``invalid notebook`` -- the file is not notebook JSON;
* ``missing answer`` -- the notebook ran but does not define the function;
* ``timeout`` -- the notebook or this exercise's checks ran too long;
* ``error`` -- the process died (the message says how).

This is feedback for the learner, not a sandbox: the notebook's code runs
with the learner's own rights, as it does in Jupyter.
"""

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .exercise_registry import (
    EXERCISES, NOTEBOOKS, STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED, exercise_state, run_checks)

MISSING_NOTEBOOK = "missing notebook"
INVALID_NOTEBOOK = "invalid notebook"
MISSING_ANSWER = "missing answer"
TIMEOUT = "timeout"
ERROR = "error"
#: Seconds one notebook (its cells and all its checks) may take.
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class ProgressRow:
    exercise_id: str
    notebook: str
    state: str
    message: str


def _child_main(notebook_path, result_path):
    """Run one notebook's cells, then its checks; write one JSON line per exercise."""
    from .extract_answers import NotebookError, explain_missing_answer, read_cells, run_code_cells

    with open(result_path, "w", encoding="utf-8") as results:
        def emit(**event):
            results.write(json.dumps(event) + "\n")
            results.flush()

        try:
            code_cells, text_cells = read_cells(Path(notebook_path))
        except NotebookError as error:
            emit(exercise_id=None, state=INVALID_NOTEBOOK, message=str(error))
            return
        # The learner's prints go nowhere: only the results file is read.
        sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
        namespace = {"__name__": "__main__"}
        failures = run_code_cells(code_cells, namespace, _run_step, Path(notebook_path).name)
        for exercise in EXERCISES.values():
            if exercise.notebook != Path(notebook_path).name:
                continue
            emit(exercise_id=exercise.id, state=None, message="checking")
            answer = namespace.get(exercise.answer_name)
            if not callable(answer):
                message = explain_missing_answer(exercise.answer_name, code_cells, text_cells, failures)
                emit(exercise_id=exercise.id, state=MISSING_ANSWER, message=message)
                continue
            results_list = run_checks(exercise.id, answer)
            passed = sum(result.passed for result in results_list)
            emit(exercise_id=exercise.id, state=exercise_state(results_list),
                 message=f"{passed} of {len(results_list)} tests pass")


def _run_step(thunk):
    try:
        thunk()
    except BaseException as error:  # noqa: BLE001 - the learner's cell may raise anything
        if isinstance(error, KeyboardInterrupt):
            raise
        return f"{type(error).__name__}: {error}"
    return None


def _read_events(path):
    events = []
    try:
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a line cut by the kill
    except OSError:
        pass
    return events


def evaluate_notebook(path, timeout=DEFAULT_TIMEOUT):
    """Return ``{exercise_id: (state, message)}`` for the exercises of the notebook at *path*."""
    path = Path(path)
    own = [exercise.id for exercise in EXERCISES.values() if exercise.notebook == path.name]
    if not path.is_file():
        return {eid: (MISSING_NOTEBOOK, f"{path.name} not found in {path.parent}") for eid in own}
    with tempfile.TemporaryDirectory(prefix="reasoneval-progress-") as work:
        result_path = Path(work) / "results.jsonl"
        command = [sys.executable, "-m", "reasoneval_mini.progress_command", "--child",
                   str(path.resolve()), str(result_path)]
        try:
            completed = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, timeout=timeout, cwd=path.parent)
            ended = f"the checking process exited with code {completed.returncode}"
        except subprocess.TimeoutExpired:
            ended = None
        events = _read_events(result_path)
    return _states_from_events(own, events, ended, timeout)


def _states_from_events(own, events, ended, timeout):
    states = {}
    for event in events:
        if event.get("exercise_id") is None:
            return {eid: (event["state"], event["message"]) for eid in own}
        if event["state"] is not None:
            states[event["exercise_id"]] = (event["state"], event["message"])
    running = next((e["exercise_id"] for e in events if e["exercise_id"] not in states), None)
    for eid in own:
        if eid in states:
            continue
        if ended is None:
            where = f"while checking {running}" if running else "while running the notebook's cells"
            states[eid] = (TIMEOUT, f"stopped after {timeout:g} s {where} (an endless loop?)")
        else:
            states[eid] = (ERROR, f"{ended} before this exercise was checked")
    return states


def evaluate_folder(directory, timeout=DEFAULT_TIMEOUT):
    """One :class:`ProgressRow` per exercise, in course order, for the notebooks in *directory*."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"{directory} is not a folder of exercise notebooks")
    states = {}
    for name in NOTEBOOKS:
        states.update(evaluate_notebook(directory / name, timeout))
    return [ProgressRow(e.id, e.notebook, *states[e.id]) for e in EXERCISES.values()]


def run_progress(args):
    from .check_exercise import format_progress

    try:
        rows = evaluate_folder(args.directory, args.timeout)
    except ValueError as error:
        print(f"progress: {error}", file=sys.stderr)
        return 1
    print(format_progress({row.exercise_id: row.state for row in rows}))
    problems = [row for row in rows if row.state not in (STATE_PASSED, STATE_NOT_ATTEMPTED)]
    for row in problems:
        print(f"  {row.exercise_id} ({row.notebook}): {row.message}")
    if any(row.state == STATE_FAILED for row in problems):
        print("Each test's call, expected and actual value: run the exercise's check cell in its notebook.")
    return 0


def register(subparsers):
    parser = subparsers.add_parser(
        "progress", help="show which exercises pass, from a folder of notebooks")
    parser.add_argument("directory", nargs="?", default="exercises",
                        help="folder with your exercise notebooks (default: exercises)")
    from .grade_command import positive_seconds

    parser.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT,
                        help=f"seconds per notebook (default: {DEFAULT_TIMEOUT:g})")
    parser.set_defaults(run=run_progress)


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    _child_main(sys.argv[2], sys.argv[3])
