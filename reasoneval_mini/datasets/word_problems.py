"""The course's own GSM8K-style word problems, shipped as package data."""

import json
from importlib import resources

from reasoneval_mini.answers import extract_final_answer
from reasoneval_mini.answers import parse_reference

_PROBLEM_KEYS = ("id", "question", "solution", "outputs")
_OUTPUT_KEYS = ("style", "text", "hand_label")


def _check_problem(index, problem, seen):
    if not isinstance(problem, dict) or any(key not in problem for key in _PROBLEM_KEYS):
        raise ValueError(f"problems[{index}] must be a dict with keys {_PROBLEM_KEYS}, got {problem!r:.80}")
    if problem["id"] in seen:
        raise ValueError(f"problems[{index}] repeats id {problem['id']!r}")
    reference = extract_final_answer(problem["solution"])
    if reference is None:
        raise ValueError(f"problem {problem['id']!r}: solution has no '####' answer line")
    parse_reference(reference)  # a broken reference is a data bug: raise now
    for number, output in enumerate(problem["outputs"]):
        if not isinstance(output, dict) or any(key not in output for key in _OUTPUT_KEYS):
            raise ValueError(
                f"problem {problem['id']!r}, outputs[{number}] must be a dict with keys "
                f"{_OUTPUT_KEYS}, got {output!r:.80}"
            )
        if output["hand_label"] not in (True, False, None):
            raise ValueError(
                f"problem {problem['id']!r}, outputs[{number}]: hand_label must be "
                f"true, false or null, got {output['hand_label']!r}"
            )


def check_word_problems(problems):
    """Raise ``ValueError`` naming the first malformed problem or output.

    A problem needs an ``id`` (unique), a ``question``, a ``solution`` whose
    ``####`` answer is in the declared answer space, and a list of
    ``outputs``, each with ``style``, ``text`` and ``hand_label``
    (``True``, ``False`` or ``None``).
    """
    if not isinstance(problems, list) or not problems:
        raise ValueError(f"problems must be a non-empty list, got {problems!r:.80}")
    seen = set()
    for index, problem in enumerate(problems):
        _check_problem(index, problem, seen)
        seen.add(problem["id"])


def load_word_problems():
    """Return the course's word problems as a list of dicts, checked.

    Each dict has ``id``, ``question``, ``solution`` (GSM8K style: ends
    with ``#### <answer>``, thousands written with commas) and ``outputs``:
    model-style answers with a ``style`` tag and a human ``hand_label``
    (``True`` correct, ``False`` wrong number, ``None`` format failure).
    The data are written for this course and ship inside the package:
    nothing is downloaded. Raises ``ValueError`` if the file is malformed.

    >>> problems = load_word_problems()
    >>> problems[0]["solution"].splitlines()[-1]
    '#### 1,000'

    Surprising: the reference itself needs GSM8K's extraction before it
    is a number in our answer space.

    >>> from reasoneval_mini import extract_final_answer, parse_rational
    >>> print(parse_rational("1,000"), parse_rational(extract_final_answer("#### 1,000")))
    None 1000
    """
    text = resources.files("reasoneval_mini.datasets").joinpath("word_problems.json").read_text(
        encoding="utf-8"
    )
    problems = json.loads(text)["problems"]
    check_word_problems(problems)
    return problems
