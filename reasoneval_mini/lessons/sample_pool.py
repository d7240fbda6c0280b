"""A deterministic synthetic sample pool per problem, as a plan for the executor.

Which variants (see :mod:`reasoneval_mini.lessons.synthetic_completions`) land in a
problem's pool is drawn with a seeded random generator, so the pool, and
every number computed from it, is identical on every run and on every
Python version (``random.Random`` seeded with a ``str`` is stable).
"""

import random

from reasoneval_mini.lessons.synthetic_completions import DEFAULT_WEIGHTS, VARIANTS, build_completion
from reasoneval_mini.datasets.humaneval import build_humaneval_program
from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.support.text import cut


#: Longest text of a refused argument shown in an error message.
SHOWN_CHARS = 80
#: What each problem dict must hold (HumanEval's keys).
PROBLEM_KEYS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")


def check_problems(problems):
    """Raise unless *problems* is a non-empty list of HumanEval problem dicts with unique task ids.

    A value of the wrong type raises :class:`ArgumentTypeError` (a
    ``ValueError``); a repeated task id raises ``ValueError``.
    """
    if not isinstance(problems, list) or not problems:
        raise ArgumentTypeError(f"problems must be a non-empty list of problem dicts, "
                                f"got {cut(repr(problems), SHOWN_CHARS)}")
    seen = set()
    for index, problem in enumerate(problems):
        if not isinstance(problem, dict) or any(key not in problem for key in PROBLEM_KEYS):
            raise ArgumentTypeError(f"problems[{index}] must be a dict with keys {PROBLEM_KEYS}, "
                                    f"got {cut(repr(problem), SHOWN_CHARS)}")
        if problem["task_id"] in seen:
            raise ValueError(f"problems[{index}] repeats task_id {problem['task_id']!r}")
        seen.add(problem["task_id"])


def _check_weights(weights):
    unknown = set(weights) - set(VARIANTS)
    if unknown:
        raise ValueError(f"unknown variant(s) in weights: {sorted(unknown)}; expected {list(VARIANTS)}")
    for variant, weight in weights.items():
        if type(weight) is not int:
            raise ArgumentTypeError(f"weight of {variant!r} must be an int >= 0, got {weight!r}")
        if weight < 0:
            raise ValueError(f"weight of {variant!r} must be an int >= 0, got {weight!r}")
    if not any(weights.values()):
        raise ValueError(f"weights must not all be zero, got {weights!r}")


def build_sample_pool(problems, *, n=8, seed=0, weights=None):
    """Draw *n* synthetic samples per problem; return a plan for the executor.

    *problems* is a non-empty list of HumanEval problem dicts with distinct
    ``task_id``; *weights* maps variant names to non-negative int weights
    (default :data:`DEFAULT_WEIGHTS`). Each problem's variants are drawn
    from its own generator seeded with ``f"{seed}:{task_id}"``, so a
    problem's pool does not change when other problems are added.

    Returns one dict per sample, problems in the given order: ``sample_id``
    (``"<task_id>/s<i>-<variant>"``), ``task_id``, ``variant`` and
    ``program`` (prompt + completion + tests, or ``None`` when the variant
    is ``NOT_GENERATED``, which the executor records as ``not_run``).

    Raises ``ValueError`` for an empty or malformed problem list, repeated
    task ids, ``n`` not an int >= 1, or bad weights.

    >>> problem = {"task_id": "demo/0", "entry_point": "add", "test": "",
    ...            "prompt": "def add(a, b):\\n", "canonical_solution": "    return a + b\\n"}
    >>> [s["sample_id"] for s in build_sample_pool([problem], n=3, seed=1)]
    ['demo/0/s0-wrong_return', 'demo/0/s1-off_by_one', 'demo/0/s2-canonical']

    Surprising: only the seed and the problem decide a pool, never the
    position of the problem in the list.

    >>> other = dict(problem, task_id="demo/1")
    >>> build_sample_pool([other, problem], n=3, seed=1)[3:] == build_sample_pool([problem], n=3, seed=1)
    True
    """
    check_problems(problems)
    if type(n) is not int:
        raise ArgumentTypeError(f"n must be an int >= 1 (samples per problem), got {n!r}")
    if n < 1:
        raise ValueError(f"n must be an int >= 1 (samples per problem), got {n!r}")
    weights = DEFAULT_WEIGHTS if weights is None else weights
    _check_weights(weights)
    names = list(weights)
    plan = []
    for problem in problems:
        rng = random.Random(f"{seed}:{problem['task_id']}")
        for index, variant in enumerate(rng.choices(names, [weights[v] for v in names], k=n)):
            completion = build_completion(problem, variant)
            program = None if completion is None else build_humaneval_program(problem, completion)
            plan.append({
                "sample_id": f"{problem['task_id']}/s{index}-{variant}",
                "task_id": problem["task_id"],
                "variant": variant,
                "program": program,
            })
    return plan
