"""Scoring final answers: extraction, the declared rules, exact rational equivalence; outcomes kept apart.

A predictions file has one JSON object a line: ``id`` (a string or an
integer), ``prediction`` (the model's text, or ``null``), and either
``reference`` (the answer, used as is) or ``answer`` (GSM8K's solution
text, whose final answer follows ``####``). lm-evaluation-harness's samples
files become rows of the same shape
(:mod:`~reasoneval_mini.evaluation.lm_eval_samples`).

The protocol, for one item: with ``extract="gsm8k"`` the prediction goes
through GSM8K's protocol (:func:`~reasoneval_mini.answers.extract_final_answer`),
with ``"none"`` it is taken as it is; then the declared *rules*
(:func:`~reasoneval_mini.normalise.normalise_answer`, none by default);
then :func:`~reasoneval_mini.answers.numeric_equivalence`. Each item ends as
``True`` (the same number), ``False`` (another number), ``None`` (outside
the answer space: no number) or ``reference_error`` (the reference itself
is not a number: a data bug, left out of the accuracy and named).

>>> score_item({"prediction": "so #### 1,080", "answer": "... #### 1080"}, "gsm8k")
ItemScore(verdict=True, read_as='1080', reference='1080', fired=())
>>> score_item({"prediction": "#### $15.00", "reference": "15"}, "gsm8k", rules=["currency"])
ItemScore(verdict=True, read_as='15.00', reference='15', fired=('currency',))

Surprising: without ``####`` the GSM8K protocol finds no answer at all,
even when the text ends with the right number.

>>> score_item({"prediction": "The answer is 1080", "reference": "1080"}, "gsm8k").verdict is None
True
"""

from typing import NamedTuple

from reasoneval_mini.answers import extract_final_answer, numeric_equivalence
from reasoneval_mini.evaluation.input_files import BadInputFile, describe_value, read_json_lines
from reasoneval_mini.evaluation.lm_eval_samples import LM_EVAL_KEYS
from reasoneval_mini.normalise import normalise_answer

#: The ways a prediction is read before comparing.
EXTRACTIONS = ("gsm8k", "none")
#: The verdicts, in report order.
CORRECT, WRONG, NO_ANSWER, REFERENCE_ERROR = "correct", "wrong", "no_answer", "reference_error"
VERDICTS = (CORRECT, WRONG, NO_ANSWER, REFERENCE_ERROR)
PREDICTION_KEYS = ("id", "prediction", ("reference", "answer"))


class ItemScore(NamedTuple):
    """One item's *verdict* (True, False, None or "reference_error"), what was compared, what *fired*."""

    verdict: object
    read_as: object
    reference: object
    fired: tuple


def read_predictions(path):
    """``[(line, row)]`` for every prediction of *path*; ``BadInputFile`` lists every bad line.

    Bad: not JSON, not an object, a key missing, an ``id`` that is not a
    non-empty string or an integer, or that repeats, a ``prediction`` that
    is neither a string nor null, a ``reference``/``answer`` that is not a string.
    """
    rows, first = [], {}
    usable, bad = read_json_lines(path, PREDICTION_KEYS)
    if bad and usable == [] and _looks_like_lm_eval(path):
        bad.append((None, "this looks like lm-evaluation-harness's samples file: give --format lm-eval"))
    for line, row in usable:
        identifier = row["id"]
        reference_key = "reference" if "reference" in row else "answer"
        problem = None
        if isinstance(identifier, bool) or not isinstance(identifier, (str, int)) or identifier == "":
            problem = f"id must be a non-empty string or an integer, got {describe_value(identifier)}"
        elif str(identifier) in first:
            problem = f"id {identifier!r} again (first on line {first[str(identifier)]})"
        elif row["prediction"] is not None and not isinstance(row["prediction"], str):
            problem = (f"prediction must be a string (or null: no answer), got "
                       f"{describe_value(row['prediction'])}")
        elif not isinstance(row[reference_key], str):
            problem = f"{reference_key} must be a string, got {describe_value(row[reference_key])}"
        if problem:
            bad.append((line, problem))
            continue
        first[str(identifier)] = line
        rows.append((line, row))
    if bad:
        raise BadInputFile(path, bad)
    return rows


def _looks_like_lm_eval(path):
    # Asked only when no line was usable: some line holds lm-eval's keys.
    rows, _ = read_json_lines(path, LM_EVAL_KEYS)
    return bool(rows)


def score_item(row, extract, rules=(), units=()):
    """One *row*'s :class:`ItemScore` under *extract* and the declared *rules* (and *units*).

    ``ValueError`` for an *extract* not in :data:`EXTRACTIONS` and for bad
    rules or units (as :func:`~reasoneval_mini.normalise.normalise_answer`).
    """
    if extract not in EXTRACTIONS:
        raise ValueError(f"extract must be one of {', '.join(EXTRACTIONS)}, got {extract!r}")
    if "reference" in row:
        reference = row["reference"]
    else:  # GSM8K's answer field: the protocol is part of that format
        reference = extract_final_answer(row["answer"])
    prediction, fired = row["prediction"], ()
    if prediction is not None and extract == "gsm8k":
        prediction = extract_final_answer(prediction)
    if prediction is not None and rules:
        prediction, fired = normalise_answer(prediction, rules, units=units)
    if reference is None:
        return ItemScore(REFERENCE_ERROR, prediction, reference, fired)
    try:
        return ItemScore(numeric_equivalence(prediction, reference), prediction, reference, fired)
    except ValueError:
        return ItemScore(REFERENCE_ERROR, prediction, reference, fired)


def verdict_name(verdict):
    """The :data:`VERDICTS` name of a verdict: ``True`` is ``"correct"``, ``None`` ``"no_answer"``."""
    return {True: CORRECT, False: WRONG, None: NO_ANSWER}.get(verdict, verdict)


def score_predictions(rows, extract, rules=(), units=(), progress=None):
    """``{id: item}``: ``verdict`` under *rules*, ``raw_verdict`` under none, what was compared.

    Each item holds ``id`` (as the file gives it), ``line``, ``verdict`` and
    ``raw_verdict`` (:data:`VERDICTS` names), ``prediction``, ``read_as``,
    ``reference``, ``rules_fired``, and the row's ``harness`` readings when
    it has them. *progress* (a tqdm-like bar or ``None``) is advanced once
    per row.
    """
    items = {}
    for line, row in rows:
        scored = score_item(row, extract, rules, units)
        raw = score_item(row, extract) if rules else scored
        item = {"id": row["id"], "line": line, "verdict": verdict_name(scored.verdict),
                "raw_verdict": verdict_name(raw.verdict), "prediction": row["prediction"],
                "read_as": scored.read_as,
                "reference": scored.reference if scored.reference is not None
                else row.get("answer"), "rules_fired": list(scored.fired)}
        if "harness" in row:
            item["harness"] = {name: dict(reading) for name, reading in row["harness"].items()}
        items[str(row["id"])] = item
        if progress is not None:
            progress.update(1)
    return items
