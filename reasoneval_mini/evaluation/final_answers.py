"""Scoring a file of final answers: exact rational equivalence, with the three outcomes kept apart.

One JSON object a line: ``id`` (a string or an integer), ``prediction``
(the model's text, or ``null``), and either ``reference`` (the answer, used
as is) or ``answer`` (GSM8K's solution text, whose final answer follows
``####``). With ``extract="gsm8k"`` the prediction goes through GSM8K's
protocol (:func:`~reasoneval_mini.answers.extract_final_answer`) first;
with ``"none"`` it is compared as it is.

Each item ends as ``True`` (the same number), ``False`` (another number),
``None`` (the prediction is outside the answer space: no number) or
``reference_error`` (the reference itself is not a number: a data bug,
left out of the accuracy and named).

>>> score_item({"prediction": "so #### 1,080", "answer": "... #### 1080"}, "gsm8k")
(True, '1080', '1080')
>>> score_item({"prediction": "42", "reference": "41"}, "none")
(False, '42', '41')

Surprising: without ``####`` the GSM8K protocol finds no answer at all,
even when the text ends with the right number.

>>> score_item({"prediction": "The answer is 1080", "reference": "1080"}, "gsm8k")
(None, None, '1080')
"""

from pathlib import Path

from reasoneval_mini.answers import extract_final_answer, numeric_equivalence
from reasoneval_mini.estimators import paired_pass_at_k_difference, pass_at_k_interval
from reasoneval_mini.evaluation.budget import CONFIDENCE, DISTRIBUTION, environment
from reasoneval_mini.evaluation.input_files import BadInputFile, describe_value, read_json_lines
from reasoneval_mini.evaluation.code_report import check_same_problems
from reasoneval_mini.evaluation.markdown import table
from reasoneval_mini.evaluation.output_files import output_paths, write_reports

#: The ways a prediction is read before comparing.
EXTRACTIONS = ("gsm8k", "none")
#: The verdicts, in report order.
CORRECT, WRONG, NO_ANSWER, REFERENCE_ERROR = "correct", "wrong", "no_answer", "reference_error"
VERDICTS = (CORRECT, WRONG, NO_ANSWER, REFERENCE_ERROR)
#: How many items of each kind a report lists.
SHOWN = 5
PREDICTION_KEYS = ("id", "prediction", ("reference", "answer"))


def read_predictions(path):
    """``[(line, row)]`` for every prediction of *path*; ``BadInputFile`` lists every bad line.

    Bad: not JSON, not an object, a key missing, an ``id`` that is not a
    non-empty string or an integer, or that repeats, a ``prediction`` that
    is neither a string nor null, a ``reference``/``answer`` that is not a string.
    """
    rows, first = [], {}
    usable, bad = read_json_lines(path, PREDICTION_KEYS)
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


def score_item(row, extract):
    """``(verdict, prediction read, reference read)``; verdict True, False, None or "reference_error"."""
    if extract not in EXTRACTIONS:
        raise ValueError(f"extract must be one of {', '.join(EXTRACTIONS)}, got {extract!r}")
    if "reference" in row:
        reference = row["reference"]
    else:  # GSM8K's answer field: the protocol is part of that format
        reference = extract_final_answer(row["answer"])
    prediction = row["prediction"]
    if prediction is not None and extract == "gsm8k":
        prediction = extract_final_answer(prediction)
    if reference is None:
        return REFERENCE_ERROR, prediction, reference
    try:
        return numeric_equivalence(prediction, reference), prediction, reference
    except ValueError:
        return REFERENCE_ERROR, prediction, reference


def _verdict_name(verdict):
    return {True: CORRECT, False: WRONG, None: NO_ANSWER}.get(verdict, verdict)


def score_predictions(rows, extract):
    """``{id: item}`` with ``line``, ``verdict`` (a :data:`VERDICTS` name) and what was compared."""
    items = {}
    for line, row in rows:
        verdict, prediction, reference = score_item(row, extract)
        items[str(row["id"])] = {"line": line, "verdict": _verdict_name(verdict),
                                 "prediction": row["prediction"], "read_as": prediction,
                                 "reference": reference if reference is not None
                                 else row.get("answer")}
    return items


def answers_report(items, budget):
    """The report dict: counts of each verdict, accuracy with interval, the first few of each kind."""
    counts = {verdict: sum(item["verdict"] == verdict for item in items.values())
              for verdict in VERDICTS}
    scored = {i: item for i, item in items.items() if item["verdict"] != REFERENCE_ERROR}
    accuracy = _accuracy(scored)
    examples = {verdict: [dict(id=i, **item) for i, item in items.items()
                          if item["verdict"] == verdict][:SHOWN]
                for verdict in (NO_ANSWER, WRONG, REFERENCE_ERROR)}
    return {"kind": "answers", "budget": dict(budget, items=len(items), scored=len(scored)),
            "counts": counts, "accuracy": accuracy, "examples": examples}


def _accuracy(scored):
    if not scored:
        return {"estimate": None, "no_interval": "no item has a usable reference"}
    counts = {i: (1, int(item["verdict"] == CORRECT)) for i, item in scored.items()}
    if len(counts) < 2:
        (_, c), = counts.values()
        return {"estimate": float(c), "low": None, "high": None, "items": 1,
                "no_interval": "one item"}
    # The mean of 0/1 outcomes is pass@1 with n = 1: the same interval over items.
    result = pass_at_k_interval(counts, 1, confidence=CONFIDENCE, distribution=DISTRIBUTION)
    return {"estimate": result.estimate, "standard_error": result.standard_error,
            "low": result.low, "high": result.high, "items": result.problems,
            "confidence": CONFIDENCE, "interval": "Student's t interval over items, m - 1 degrees of freedom"}


def compare_answers(items_a, items_b, names=("this file", "other file")):
    """Paired accuracy difference (a - b) over the same ids; ``ValueError`` naming differing ids."""
    check_same_problems([repr(i) for i in items_a], [repr(i) for i in items_b], names, "ids")
    broken = [i for i in items_a if REFERENCE_ERROR in (items_a[i]["verdict"],
                                                        items_b[i]["verdict"])]
    ids = [i for i in items_a if i not in broken]
    result = {"names": list(names), "left_out_reference_errors": broken[:SHOWN],
              "left_out": len(broken), "items": len(ids)}
    if len(ids) < 2:
        return dict(result, difference=None, no_interval="fewer than two comparable items")
    counts_a = {i: (1, int(items_a[i]["verdict"] == CORRECT)) for i in ids}
    counts_b = {i: (1, int(items_b[i]["verdict"] == CORRECT)) for i in ids}
    paired = paired_pass_at_k_difference(counts_a, counts_b, 1, confidence=CONFIDENCE,
                                         distribution=DISTRIBUTION)
    only_right = {name: sum(counts[i][1] > other[i][1] for i in ids)
                  for name, counts, other in ((names[0], counts_a, counts_b),
                                              (names[1], counts_b, counts_a))}
    return dict(result, difference=paired.estimate, standard_error=paired.standard_error,
                low=paired.low, high=paired.high, confidence=CONFIDENCE, only_right=only_right)


def render_answers_report(report):
    """The answers report as Markdown."""
    budget, counts, accuracy = report["budget"], report["counts"], report["accuracy"]
    lines = ["# Final-answer evaluation report", "", "## Budget", "",
             table(["setting", "value"], [[k, v if not isinstance(v, dict) else
                                           ", ".join(f"{a} {b}" for a, b in v.items())]
                                          for k, v in budget.items()]), "",
             "## Verdicts", "", table(["verdict", "items"], [[v, counts[v]] for v in VERDICTS]),
             "", "## Accuracy", ""]
    if accuracy["estimate"] is None or accuracy.get("low") is None:
        shown = "undefined" if accuracy["estimate"] is None else f"{accuracy['estimate']:.3f}"
        lines.append(f"- accuracy {shown} (no interval: {accuracy['no_interval']})")
    else:
        lines.append(f"- accuracy {accuracy['estimate']:.3f} [{accuracy['low']:.3f}, "
                     f"{accuracy['high']:.3f}] ({CONFIDENCE:.0%} t interval over "
                     f"{accuracy['items']} items; correct / items with a usable reference)")
    if counts[REFERENCE_ERROR]:
        lines.append(f"- {counts[REFERENCE_ERROR]} items have a reference that is not a number "
                     "in the answer space; they are left out of the accuracy: fix the data set")
    for verdict, title in ((NO_ANSWER, "No answer (outside the answer space)"),
                           (WRONG, "Wrong"), (REFERENCE_ERROR, "Broken references")):
        shown = report["examples"][verdict]
        if shown:
            lines += ["", f"## {title}: first {len(shown)} of {counts[verdict]}", "",
                      table(["id", "line", "prediction", "read as", "reference"],
                            [[e["id"], e["line"], _short(e["prediction"]), _short(e["read_as"]),
                              _short(e["reference"])] for e in shown])]
    if "comparison" in report:
        comparison = report["comparison"]
        a, b = comparison["names"]
        lines += ["", f"## Paired comparison: {a} minus {b}", ""]
        if comparison["difference"] is None:
            lines.append(f"- not defined: {comparison['no_interval']}")
        else:
            lines.append(f"- accuracy difference {comparison['difference']:+.3f} "
                         f"[{comparison['low']:+.3f}, {comparison['high']:+.3f}] over "
                         f"{comparison['items']} items; right only in {a}: "
                         f"{comparison['only_right'][a]}, only in {b}: {comparison['only_right'][b]}")
        if comparison["left_out"]:
            lines.append(f"- {comparison['left_out']} items left out: a reference is broken in "
                         "one of the files")
    return "\n".join(lines) + "\n"


def _short(value, limit=60):
    if value is None:
        return "null"
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def evaluate_answers_file(path, *, extract="gsm8k", compare=None, out_dir=None):
    """Score *path* (and *compare*, read first), write the reports; return ``(report, paths)``.

    Both files are read and checked before anything is scored (``BadInputFile``
    lists every bad line); ``ValueError`` when the two files do not have the
    same ids (named). Reports go beside *path* (or into *out_dir*) as
    ``<name>.report.md`` and ``<name>.report.json``.
    """
    rows = read_predictions(path)
    other_rows = read_predictions(compare) if compare else None
    if extract not in EXTRACTIONS:
        raise ValueError(f"extract must be one of {', '.join(EXTRACTIONS)}, got {extract!r}")
    items = score_predictions(rows, extract)
    budget = {"predictions_file": str(path), "extract": extract,
              "comparison": "exact rational equivalence (answers.numeric_equivalence)",
              **environment()}
    report = answers_report(items, budget)
    if other_rows is not None:
        report["comparison"] = compare_answers(items, score_predictions(other_rows, extract),
                                               names=(Path(path).name, Path(compare).name))
    paths = output_paths(path, out_dir)
    del paths["results"]
    write_reports(report, paths, render_answers_report)
    return report, paths
