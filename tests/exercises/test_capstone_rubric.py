"""The capstone's rubric and model answer (kp4_capstone_report), recomputed from a real run.

Issue 23, item 7: the rubric and the model answer used 95% normal intervals over six
problems (lesson 05 calls them too narrow) and the overlap argument ("the drop is inside
both intervals, so it is not established", the fallacy lesson 04 §3 names), for a second
run that re-scores the very same samples (same seed: coupled runs). Here every number the
model answer and the rubric state is recomputed, from the capstone's own parameter cell
and a real run of its executor, by an independent route (math.comb, statistics, a t
quantile found by integrating the t density), and the texts are read for the argument.
"""

import json
import math
import re
import statistics
from pathlib import Path

import pytest

from reasoneval_mini import (
    execute_samples, execution_summary, load_humaneval, paired_pass_at_k_difference,
    pass_at_k_interval)
from reasoneval_mini.exercises.build import RUBRIC_START
from reasoneval_mini.exercises.registry import WRITTEN_TASKS
from reasoneval_mini.lessons.evaluation_report import count_passes
from reasoneval_mini.lessons.sample_pool import build_sample_pool
from reasoneval_mini.lessons.synthetic_completions import INFINITE_LOOP

ROOT = Path(__file__).resolve().parents[2]
TASK = WRITTEN_TASKS["kp4_capstone_report"]
LESSON = ROOT / "notebooks" / "05_capstone_mini_evaluation.ipynb"
MASTER = ROOT / "solutions" / "ex05_capstone_report.ipynb"

#: The model answer's worked example: this many passing samples of this problem turn into
#: timeouts under the shorter limit (the text says so; the test checks it does).
EXAMPLE_PROBLEM, EXAMPLE_LOST = "HumanEval/0", 2
#: The changed setting of the model answer and the rubric's anchors.
NEW_TIMEOUT = 0.05


def _flat(text):
    """*text* with every run of whitespace one space (the answer wraps its lines)."""
    return " ".join(text.split())


def _lesson_parameters():
    """The capstone's settings, run from its own parameter cell (assignments only)."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    [cell] = [c for c in cells if c["cell_type"] == "code"
              and "PROBLEM_IDS =" in "".join(c["source"])]
    settings = {}
    exec("".join(cell["source"]), {}, settings)  # noqa: S102 - the course's own lesson cell
    return settings


def _model_answer():
    cells = json.loads(MASTER.read_text(encoding="utf-8"))["cells"]
    [cell] = [c for c in cells
              if c["metadata"].get("nbgrader", {}).get("grade_id") == TASK.id]
    source = "".join(cell["source"])
    assert RUBRIC_START in source
    return _flat(source[: source.index(RUBRIC_START)])


def _rubric_text():
    return _flat(" ".join([c.looks_for for c in TASK.rubric]
                          + [a for c in TASK.rubric for a in c.anchors]))


def _t_cdf_above_zero(t, df, steps=4000):
    """P(0 <= T <= t) for Student's t, by Simpson's rule on its density (an independent route)."""
    scale = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    h = t / steps
    density = [scale * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2) for i in range(steps + 1)]
    return h / 3 * (density[0] + density[-1] + 4 * sum(density[1:-1:2])
                    + 2 * sum(density[2:-1:2]))


def _t_quantile(probability, df):
    low, high = 0.0, 20.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if 0.5 + _t_cdf_above_zero(middle, df) < probability else (
            low, middle)
    return (low + high) / 2


def _by_hand_pass_at_k(n, c, k):
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def _by_hand_interval(values, lowest, highest):
    """(mean, low, high, t) of a 95% t interval over *values*, clipped, by hand."""
    m = len(values)
    mean = math.fsum(values) / m
    t = _t_quantile(0.975, m - 1)
    margin = t * statistics.stdev(values) / math.sqrt(m)
    return mean, max(lowest, mean - margin), min(highest, mean + margin), t


@pytest.fixture(scope="module")
def capstone():
    """The capstone's first run, executed for real with its own settings."""
    settings = _lesson_parameters()
    by_id = {problem["task_id"]: problem for problem in load_humaneval()}
    problems = [by_id[task_id] for task_id in settings["PROBLEM_IDS"]]
    plan = build_sample_pool(problems, n=settings["N_SAMPLES"], seed=settings["SEED"])
    records = execute_samples(plan, timeout=settings["TIMEOUT_S"],
                              workers=settings["WORKERS"], progress=False)
    return dict(settings=settings, problems=problems, plan=plan, records=records,
                summary=execution_summary(records), counts=count_passes(records))


def _example_counts(counts):
    second = dict(counts)
    n, c = counts[EXAMPLE_PROBLEM]
    second[EXAMPLE_PROBLEM] = (n, c - EXAMPLE_LOST)
    return second


def test_the_model_answers_first_run_gives_the_t_intervals_recomputed_by_hand(capstone):
    answer, counts = _model_answer(), capstone["counts"]
    for k in capstone["settings"]["KS"]:
        values = [_by_hand_pass_at_k(n, c, k) for n, c in counts.values()]
        mean, low, high, t = _by_hand_interval(values, 0.0, 1.0)
        library = pass_at_k_interval(counts, k, distribution="t")
        assert (round(library.low, 6), round(library.high, 6)) == (round(low, 6), round(high, 6))
        assert f"pass@{k} = {mean:.3f} [{low:.3f}, {high:.3f}]" in answer, k
    df = len(counts) - 1
    assert f"{len(counts)} problems, t = {t:.3f} with {df} degrees of freedom" in answer


def test_the_rubrics_top_anchor_for_numbers_is_the_t_interval_of_pass_at_1(capstone):
    values = [_by_hand_pass_at_k(n, c, 1) for n, c in capstone["counts"].values()]
    mean, low, high, t = _by_hand_interval(values, 0.0, 1.0)
    numbers = TASK.rubric[0]
    top = _flat(numbers.anchors[2])
    assert f"pass@1 = {mean:.3f} [{low:.3f}, {high:.3f}] (95% t interval, t = {t:.3f}" in top
    assert "t interval" in numbers.looks_for
    assert "normal" in numbers.anchors[1] and "too narrow" in numbers.anchors[1]


def test_the_normal_intervals_over_six_problems_are_gone_from_answer_and_rubric(capstone):
    texts = _model_answer() + " " + _rubric_text()
    assert "normal intervals over" not in texts
    for k in capstone["settings"]["KS"]:
        normal = pass_at_k_interval(capstone["counts"], k)
        t = pass_at_k_interval(capstone["counts"], k, distribution="t")
        assert (normal.low, normal.high) != (t.low, t.high)
        assert f"[{normal.low:.3f}, {normal.high:.3f}]" not in texts, k


def test_the_state_counts_budget_and_denominators_are_the_runs(capstone):
    summary, settings = capstone["summary"], capstone["settings"]
    counts = summary["counts"]
    states = ", ".join(f"{state} {counts[state]}" for state in
                       ("passed", "assertion_failed", "timeout", "runtime_error", "not_run"))
    planned, attempted = summary["planned"], summary["attempted"]
    assert planned == len(settings["PROBLEM_IDS"]) * settings["N_SAMPLES"]
    answer, anchor = _model_answer(), _flat(TASK.rubric[1].anchors[2])
    for text in (answer, anchor):
        assert f"{states} of {planned} planned; success {counts['passed']}/{planned}" in text
        assert f"coverage {attempted}/{planned}" in text
    assert f"{planned} samples planned from a synthetic pool, {attempted} executed" in answer
    assert f"{planned} samples planned, {attempted} executed" in _flat(TASK.rubric[0].anchors[2])
    timeout = settings["TIMEOUT_S"]
    assert f"{timeout:g} s wall-time limit" in answer and f"{settings['WORKERS']} workers" in answer
    # The six time-outs are the endless loops, which stay time-outs under any limit.
    loops = sum(item["variant"] == INFINITE_LOOP for item in capstone["plan"])
    looped = {r["sample_id"] for r in capstone["records"] if r["status"] == "timeout"}
    assert loops == counts["timeout"] == len(looped)
    assert f"the {loops} endless loops are timeouts in both runs" in answer


def test_the_same_seed_gives_the_same_programs_so_the_timeout_run_is_coupled(capstone):
    settings, plan = capstone["settings"], capstone["plan"]
    again = build_sample_pool(capstone["problems"], n=settings["N_SAMPLES"], seed=settings["SEED"])
    other = build_sample_pool(capstone["problems"], n=settings["N_SAMPLES"],
                              seed=settings["SEED"] + 1)
    assert [(s["sample_id"], s["program"]) for s in again] == [
        (s["sample_id"], s["program"]) for s in plan]
    assert [s["program"] for s in other] != [s["program"] for s in plan]
    answer = _model_answer()
    old = f"{settings['TIMEOUT_S']:.1f} -> {NEW_TIMEOUT:g}"
    assert f"`TIMEOUT_S` {old}, nothing else" in answer
    assert f"same {len(plan)} programs: the two runs are coupled" in answer
    assert "sample by sample" in answer and "samples whose state changed" in answer
    changed = _flat(TASK.rubric[2].anchors[2])
    assert f"TIMEOUT_S {old}" in changed and f"same {len(plan)} programs" in changed
    assert "samples whose state changed" in changed


def test_the_worked_example_of_changed_samples_is_recomputed(capstone):
    counts = capstone["counts"]
    planned = capstone["summary"]["planned"]
    n, c = counts[EXAMPLE_PROBLEM]
    assert c >= EXAMPLE_LOST  # the example loses passing samples the problem really has
    second = _example_counts(counts)
    differences = [(second[p][1] - counts[p][1]) / second[p][0] for p in counts]
    mean, low, high, _ = _by_hand_interval(differences, -1.0, 1.0)
    paired = paired_pass_at_k_difference(second, counts, 1, distribution="t")
    assert (round(paired.estimate, 9), round(paired.low, 9), round(paired.high, 9)) == (
        round(mean, 9), round(low, 9), round(high, 9))
    assert low < 0 < high  # six problems cannot tell: the text says so
    assert math.isclose(-mean, EXAMPLE_LOST / planned)
    answer, anchor = _model_answer(), _flat(TASK.rubric[3].anchors[2])
    drop = f"{EXAMPLE_LOST}/{planned} = {-mean:.3f}"
    interval = f"[{low:.3f}, {high:.3f}]"
    listed = ", ".join(f"{d:g}" for d in differences)
    assert f"Say {EXAMPLE_LOST} passing samples of {EXAMPLE_PROBLEM} became timeouts" in answer
    assert f"falls by exactly {drop} (per-problem differences {listed})" in answer
    assert f"{interval}, so six problems cannot tell" in answer
    assert f"{EXAMPLE_LOST} samples of {EXAMPLE_PROBLEM} went from passed to timeout" in anchor
    assert drop in anchor and interval in anchor
    assert len(counts) == 6  # "six problems" in both texts


NUMBER = re.compile(r"(?<![\w.@/-])-?\d+(?:\.\d+)?(?![\w/])")
#: Names that hold digits but state no number: problem ids, pass@k, lesson sections.
NOT_NUMBERS = re.compile(r"HumanEval/\d+|pass@\d+|§\d+|lesson \d+|\d+/\d+|\b95%")


def test_every_number_in_the_model_answer_and_rubric_is_one_recomputed_here(capstone):
    settings, counts, summary = capstone["settings"], capstone["counts"], capstone["summary"]
    allowed = {str(settings["N_SAMPLES"]), str(settings["SEED"]), str(settings["WORKERS"]),
               f"{settings['TIMEOUT_S']:g}", f"{settings['TIMEOUT_S']:.1f}", f"{NEW_TIMEOUT:g}",
               str(len(counts)), str(len(counts) - 1), str(EXAMPLE_LOST), "1.96", "0"}
    allowed |= {str(k) for k in settings["KS"]} | {str(v) for v in summary["counts"].values()}
    allowed |= {str(summary["planned"]), str(summary["attempted"])}
    for k in settings["KS"]:
        t = pass_at_k_interval(counts, k, distribution="t")
        allowed |= {f"{t.estimate:.3f}", f"{t.low:.3f}", f"{t.high:.3f}", f"{t.multiplier:.3f}"}
    second = _example_counts(counts)
    paired = paired_pass_at_k_difference(second, counts, 1, distribution="t")
    allowed |= {f"{-paired.estimate:.3f}", f"{paired.low:.3f}", f"{paired.high:.3f}"}
    allowed |= {f"{(second[p][1] - counts[p][1]) / second[p][0]:g}" for p in counts}
    for name, text in (("model answer", _model_answer()), ("rubric", _rubric_text())):
        stated = NUMBER.findall(NOT_NUMBERS.sub(" ", text))
        assert stated and set(stated) <= allowed, (name, sorted(set(stated) - allowed))
    fractions = set(re.findall(r"\b\d+/\d+\b", _model_answer() + _rubric_text()))
    planned, attempted = summary["planned"], summary["attempted"]
    assert fractions == {f"{summary['counts']['passed']}/{planned}", f"{attempted}/{planned}",
                         f"{EXAMPLE_LOST}/{planned}"}


OVERLAP_REASONS = ("overlap", "inside both intervals", "inside the other", "within both")


def test_the_rubric_never_gives_the_overlap_argument_as_a_reason_for_the_top_level():
    for criterion in TASK.rubric:
        for text in (criterion.looks_for, criterion.anchors[2]):
            assert not any(reason in text.lower() for reason in OVERLAP_REASONS), criterion.name
    # ... and the level below names it, so that a grader marks it down.
    interpretation = next(c for c in TASK.rubric if c.name == "Interpretation and limit")
    assert "overlap" in interpretation.anchors[1] and "separate intervals" in interpretation.anchors[1]
    assert "per-problem differences" in interpretation.anchors[2]


def test_the_model_answer_mentions_overlap_only_to_say_it_answers_nothing():
    answer = _model_answer()
    assert "inside both intervals" not in answer and "not established" not in answer
    sentences = [s for s in re.split(r"(?<=[.:;])\s", answer) if "overlap" in s]
    assert sentences and all("says nothing" in s for s in sentences), sentences
    assert "paired_pass_at_k_difference(second, first, 1, distribution=\"t\")" in answer


def test_the_statement_asks_for_t_and_a_problem_by_problem_comparison():
    statement = _flat(TASK.statement)
    assert "whether the change is larger than the intervals" not in statement
    assert "t interval" in statement and "problem by problem" in statement
    assert "share their samples" in statement
