"""The final-answer report: counts and accuracy raw and with the declared rules, the harness beside it.

Lesson 01's rule: the same outputs give two accuracies, so an accuracy is
reported with its rule set. The report gives both side by side, each with
its no-answer rate: *raw* (the extraction protocol alone) and with the rules
in force; it counts the items each rule changed. For an lm-eval log it also
gives each filter's score as the file records it and the disagreements of
:mod:`~reasoneval_mini.evaluation.harness_agreement`.
"""

from reasoneval_mini.estimators import paired_pass_at_k_difference, pass_at_k_interval
from reasoneval_mini.evaluation.budget import CONFIDENCE, DISTRIBUTION
from reasoneval_mini.evaluation.code_report import check_same_problems
from reasoneval_mini.evaluation.final_answers import (
    CORRECT,
    NO_ANSWER,
    REFERENCE_ERROR,
    VERDICTS,
    WRONG,
)
from reasoneval_mini.evaluation.harness_agreement import DISAGREEMENTS, KINDS, MEANING, harness_summary
from reasoneval_mini.evaluation.markdown import interval_text, percent, table
from reasoneval_mini.support.text import shorten

#: How many items of each kind a report lists.
SHOWN = 5


def answers_report(items, budget):
    """The report dict: verdict counts and accuracy (raw and under the rules), examples, harness."""
    counts = _counts(items, "verdict")
    scored = {i: item for i, item in items.items() if item["verdict"] != REFERENCE_ERROR}
    report = {"kind": "answers", "budget": dict(budget, items=len(items), scored=len(scored)),
              "counts": counts, "accuracy": _accuracy(scored, "verdict"),
              "no_answer_rate": _rate(counts),
              "raw": {"counts": _counts(items, "raw_verdict"),
                      "accuracy": _accuracy(scored, "raw_verdict"),
                      "no_answer_rate": _rate(_counts(items, "raw_verdict"))},
              "rules_fired": {rule: sum(rule in item["rules_fired"] for item in items.values())
                              for rule in budget.get("rules", ())},
              "examples": {verdict: [item for item in items.values()
                                     if item["verdict"] == verdict][:SHOWN]
                           for verdict in (NO_ANSWER, WRONG, REFERENCE_ERROR)}}
    if any("harness" in item for item in items.values()):
        report["harness"] = harness_summary(items)
        report["harness_examples"] = {
            kind: [dict(_example(item), filter=name, filter_read=reading["read_as"],
                        line=reading["line"])
                   for item in items.values() for name, reading in item["harness"].items()
                   if reading["kind"] == kind][:SHOWN]
            for kind in DISAGREEMENTS}
    return report


def _counts(items, key):
    return {verdict: sum(item[key] == verdict for item in items.values()) for verdict in VERDICTS}


def _rate(counts):
    scored = sum(counts.values()) - counts[REFERENCE_ERROR]
    return counts[NO_ANSWER] / scored if scored else None


def _example(item):
    return {key: item[key] for key in ("id", "line", "prediction", "read_as", "reference")}


def _accuracy(scored, key):
    if not scored:
        return {"estimate": None, "no_interval": "no item has a usable reference"}
    counts = {i: (1, int(item[key] == CORRECT)) for i, item in scored.items()}
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


def rules_text(rules):
    """The rules in force as a report names them: ``"none (the protocol alone)"`` for none."""
    return ", ".join(rules) if rules else "none (the protocol alone)"


def render_answers_report(report):
    """The answers report as Markdown."""
    budget, counts, raw = report["budget"], report["counts"], report["raw"]
    lines = ["# Final-answer evaluation report", "", "## Budget", "",
             table(["setting", "value"], [[key, _setting(key, value)]
                                          for key, value in budget.items()]), "",
             "## Verdicts", "",
             table(["verdict", "raw (no rule)", f"rules: {rules_text(budget['rules'])}"],
                   [[v, raw["counts"][v], counts[v]] for v in VERDICTS]),
             "", "## Accuracy, raw and with the declared rules", "",
             table(["scoring", "rules", "accuracy (95% t interval over items)", "no answer"],
                   [["raw", rules_text(()), accuracy_text(raw["accuracy"]),
                     percent(raw["no_answer_rate"])],
                    ["declared rules", rules_text(budget["rules"]),
                     accuracy_text(report["accuracy"]), percent(report["no_answer_rate"])]]),
             "", "Accuracy is correct / items with a usable reference; *no answer* is the share of "
             "those items with no number in the declared answer space. Report an accuracy with "
             "its rule set."]
    if report["rules_fired"]:
        lines += ["", "## Rules that fired", "",
                  table(["rule", "items it changed"], list(report["rules_fired"].items()))]
    if counts[REFERENCE_ERROR]:
        lines += ["", f"- {counts[REFERENCE_ERROR]} items have a reference that is not a number "
                      "in the answer space; they are left out of the accuracy: fix the data set"]
    if "harness" in report:
        lines += _render_harness(report)
    for verdict, title in ((NO_ANSWER, "No answer (outside the answer space)"),
                           (WRONG, "Wrong"), (REFERENCE_ERROR, "Broken references")):
        shown = report["examples"][verdict]
        if shown:
            lines += ["", f"## {title}: first {len(shown)} of {counts[verdict]}", "",
                      table(["id", "line", "prediction", "read as", "reference"],
                            [[e["id"], e["line"], _short(e["prediction"]), _short(e["read_as"]),
                              _short(e["reference"])] for e in shown])]
    if "comparison" in report:
        lines += _render_comparison(report["comparison"])
    return "\n".join(lines) + "\n"


def _setting(key, value):
    if key == "rules":
        return rules_text(value)
    if isinstance(value, dict):
        return ", ".join(f"{a} {b}" for a, b in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return value


def accuracy_text(accuracy):
    """``0.600 [0.231, 0.969]``; ``undefined`` when no item has a usable reference."""
    return "undefined" if accuracy["estimate"] is None else interval_text(accuracy)


def _render_harness(report):
    summary = report["harness"]
    lines = ["", "## The harness's filters beside the course's verdict", "",
             "Each filter's score is the mean of its `exact_match` as the file records it; the "
             "course scores each document once, from the model's raw reply.", "",
             table(["filter", "harness score", "harness right"] + list(KINDS),
                   [[_short(name), f"{entry['harness_score']:.3f}",
                     f"{entry['harness_right']} of {entry['documents']}"]
                    + [entry["kinds"][kind] for kind in KINDS]
                    for name, entry in summary.items()]), "",
             "Disagreements, by kind:", ""]
    lines += [f"- `{kind}`: {MEANING[kind]}" for kind in DISAGREEMENTS]
    for kind in DISAGREEMENTS:
        shown = report["harness_examples"][kind]
        if shown:
            total = sum(entry["kinds"][kind] for entry in summary.values())
            lines += ["", f"### {MEANING[kind]}: first {len(shown)} of {total}", "",
                      table(["doc_id", "line", "filter", "reply", "filter read", "course read",
                             "reference"],
                            [[e["id"], e["line"], _short(e["filter"]), _short(e["prediction"]),
                              _short(e["filter_read"]), _short(e["read_as"]),
                              _short(e["reference"])] for e in shown])]
    return lines


def _render_comparison(comparison):
    a, b = comparison["names"]
    lines = ["", f"## Paired comparison: {a} minus {b}", ""]
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
    return lines


def _short(value, limit=60):
    return "null" if value is None else shorten(value, limit)
