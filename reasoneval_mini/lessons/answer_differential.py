"""The course's answer pipeline against a lenient peer, math-verify, on labelled pairs (lesson 01).

Two questions, one per half of the module:

1. What does declaring normalisation rules buy? :func:`score_pairs` runs the
   course's pipeline (:func:`reasoneval_mini.normalise.normalised_verdict`) on
   the labelled pairs of :mod:`reasoneval_mini.datasets.answer_pairs`, and
   :func:`compare_raw_and_normalised` puts accuracy, the ``None`` rate and the
   false positives of the raw and the normalised pipeline side by side.
2. Where does a lenient checker differ? :func:`differential` runs
   HuggingFace's math-verify (``pip install math-verify``; optional) on the
   same pairs, and :func:`verdicts_in_fresh_processes` scores a slice again
   in new Python processes, to see whether a verdict depends on the run.
"""

import importlib.util
import json
import subprocess
import sys

from reasoneval_mini.datasets.answer_pairs import EQUAL, NOT_EQUAL, answer_pairs
from reasoneval_mini.normalise import RULES, UNITS, normalised_verdict

#: The two configurations the lesson compares: nothing declared, and every rule.
PIPELINE_RULES = {"raw": (), "normalised": RULES}

#: The checkers :func:`verdicts_in_fresh_processes` can run.
CHECKERS = ("course", "math_verify")

MATH_VERIFY_HINT = 'math-verify is not installed: pip install -e ".[course]" (or pip install math-verify==0.9.0)'


def course_verdict(pair, rules=RULES):
    """The course's verdict on one :class:`AnswerPair` with *rules* (the pair's unit declared).

    >>> from reasoneval_mini.datasets.answer_pairs import answer_pairs
    >>> [course_verdict(pair) for pair in answer_pairs(["currency-dollar", "thousands-one-two"])]
    [True, None]
    """
    units = [pair.unit] if UNITS in rules else []
    return normalised_verdict(pair.output, pair.reference, rules=rules, units=units)


def score_pairs(pairs, rules=RULES):
    """One row per pair: ``pair_id``, ``label`` and the course's ``verdict`` under *rules*."""
    return [{"pair_id": pair.pair_id, "label": pair.label, "verdict": course_verdict(pair, rules)}
            for pair in pairs]


def summarise_verdicts(rows, key="verdict"):
    """Count what a checker did on labelled rows; nothing is dropped from the denominator.

    Returns ``pairs``, ``accuracy`` (share of all pairs scored ``True``, as
    a harness would report it), ``none_rate`` (share scored ``None``),
    ``false_positives`` (``True`` on a pair labelled not equal) and
    ``missed`` (a pair labelled equal that was not scored ``True``).
    Raises ``ValueError`` for empty *rows* or a verdict that is not
    ``True``/``False``/``None``.

    >>> summarise_verdicts([{"label": "equal", "verdict": True},
    ...                     {"label": "equal", "verdict": None}])
    {'pairs': 2, 'accuracy': 0.5, 'none_rate': 0.5, 'false_positives': 0, 'missed': 1}
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows is empty: no pairs to summarise")
    for index, row in enumerate(rows):
        if type(row[key]) not in (bool, type(None)):
            raise ValueError(f"rows[{index}][{key!r}] is {row[key]!r}; expected True, False or None")
    total = len(rows)
    return {
        "pairs": total,
        "accuracy": sum(row[key] is True for row in rows) / total,
        "none_rate": sum(row[key] is None for row in rows) / total,
        "false_positives": sum(row[key] is True and row["label"] == NOT_EQUAL for row in rows),
        "missed": sum(row[key] is not True and row["label"] == EQUAL for row in rows),
    }


def compare_raw_and_normalised(pairs=None):
    """Per pipeline (raw, normalised): accuracy = pairs scored True / all pairs, the None rate, false positives.

    *pairs* default to the whole corpus.

    Returns ``{"raw": summary, "normalised": summary}`` (see
    :func:`summarise_verdicts`).
    """
    pairs = answer_pairs() if pairs is None else list(pairs)
    return {name: summarise_verdicts(score_pairs(pairs, rules))
            for name, rules in PIPELINE_RULES.items()}


def format_summaries(summaries):
    """A text table, one column per configuration, rates as percentages."""
    names = list(summaries)
    lines = [f"{'':16}" + "".join(f"{name:>12}" for name in names)]
    for key in ("pairs", "accuracy", "none_rate", "false_positives", "missed"):
        cells = []
        for name in names:
            value = summaries[name][key]
            cells.append(f"{value:>11.1%} " if isinstance(value, float) else f"{value:>11} ")
        lines.append(f"{key:16}" + "".join(cells).rstrip())
    return "\n".join(lines)


def math_verify_available():
    """Whether the optional ``math_verify`` package can be imported here."""
    return importlib.util.find_spec("math_verify") is not None


def math_verify_verdict(output, reference):
    """math-verify's verdict: ``verify(parse(reference), parse(output))`` with its defaults.

    Raises ``ImportError`` with an install hint when math-verify is missing.
    """
    try:
        from math_verify import parse, verify
    except ImportError as error:
        raise ImportError(MATH_VERIFY_HINT) from error
    return bool(verify(parse(reference), parse(output)))


def differential(pairs):
    """Both checkers on every pair: ``pair_id``, ``output``, ``reference``, ``label``,
    ``course`` (every rule declared), ``math_verify`` and ``agree``.

    ``agree`` is ``True`` only when both verdicts are the same value; a
    course ``None`` never agrees with a math-verify ``False``, because one
    says "unreadable" and the other "a different number". Raises
    ``ImportError`` when math-verify is missing.
    """
    rows = []
    for pair in pairs:
        course = course_verdict(pair)
        peer = math_verify_verdict(pair.output, pair.reference)
        rows.append({"pair_id": pair.pair_id, "output": pair.output, "reference": pair.reference,
                     "label": pair.label, "course": course, "math_verify": peer,
                     "agree": course is peer})
    return rows


def shown_output(text):
    r"""*text* with each character outside printable ASCII escaped, backslashes kept single.

    Look-alikes stay apart (a no-break space, a full-width digit, a Unicode
    minus), while a LaTeX command reads as the model wrote it.

    >>> print(shown_output("#### \\boxed{1e3}"))
    #### \boxed{1e3}

    Surprising: ``¢`` is printable, but outside ASCII, so it is escaped too.

    >>> print(shown_output("1\u00a0000 or 50\u00a2 or \u22125"))
    1\xa0000 or 50\xa2 or \u22125
    """
    return "".join(char if " " <= char <= "~" else ascii(char)[1:-1] for char in text)


def format_differential(rows):
    """One line per row: id, the output (non-ASCII escaped), the reference, the label and both verdicts."""
    lines = [f"{'pair_id':34} {'output':26} {'reference':>9}  {'label':10} {'course':>6} {'math_verify':>11}"]
    for row in rows:
        output = shown_output(row["output"])
        output = output if len(output) <= 26 else output[:23] + "..."
        lines.append(f"{row['pair_id']:34} {output:26} {row['reference']:>9}  {row['label']:10} "
                     f"{row['course']!s:>6} {row['math_verify']!s:>11}")
    return "\n".join(lines)


# The child process imports the package afresh, scores the named pairs and
# prints one JSON list; any error goes to stderr and a non-zero exit.
_CHILD = """
import json, sys
from reasoneval_mini.datasets.answer_pairs import answer_pairs
from reasoneval_mini.lessons.answer_differential import course_verdict, math_verify_verdict
checker, ids = sys.argv[1], json.loads(sys.argv[2])
pairs = answer_pairs(ids)
if checker == "course":
    print(json.dumps([course_verdict(pair) for pair in pairs]))
else:
    print(json.dumps([math_verify_verdict(pair.output, pair.reference) for pair in pairs]))
"""


def verdicts_in_fresh_processes(checker, pair_ids, runs=2, timeout=120):
    """Score the pairs *pair_ids* with *checker* in *runs* new Python processes.

    Each run is a separate interpreter (its own hash seed, its own caches),
    so a verdict that depends on the process shows up as two different
    lists. Returns a list of *runs* lists of verdicts. Raises ``ValueError``
    for an unknown *checker* or *runs* < 1, and ``RuntimeError`` showing
    the child's error output if a run fails.
    """
    if checker not in CHECKERS:
        raise ValueError(f"checker must be one of {CHECKERS}, got {checker!r}")
    if type(runs) is not int or runs < 1:
        raise ValueError(f"runs must be an int >= 1, got {runs!r}")
    ids = [pair.pair_id for pair in answer_pairs(pair_ids)]  # unknown ids fail here, not in a child
    results = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", _CHILD, checker, json.dumps(ids)],
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"scoring with {checker!r} in a fresh process failed "
                               f"(exit {done.returncode}):\n{done.stderr[-2000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results
