"""The synthetic pool: deterministic, faithful to its variant names, and runnable."""

import ast
import copy

import pytest

from reasoneval_mini import ASSERTION_FAILED, NOT_RUN, PASSED, RUNTIME_ERROR, TIMEOUT
from reasoneval_mini.lessons.synthetic_completions import (
    CANONICAL,
    DEFAULT_WEIGHTS,
    EARLY_EXIT,
    INFINITE_LOOP,
    NOT_GENERATED,
    OFF_BY_ONE,
    SYNTAX_ERROR,
    VARIANTS,
    WRONG_RETURN,
    build_completion,
)
from reasoneval_mini.lessons.sample_pool import build_sample_pool
from reasoneval_mini.executor.samples import execute_samples
from reasoneval_mini.datasets.humaneval import build_humaneval_program, load_humaneval


@pytest.fixture(scope="module")
def problems():
    return load_humaneval()


def parses(source):
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def entry_function(problem, completion):
    module = ast.parse(problem["prompt"] + completion)
    return [n for n in module.body if isinstance(n, ast.FunctionDef)
            and n.name == problem["entry_point"]][-1]


def own_returns(function):
    """Return statements of *function* itself, not of nested functions or lambdas."""
    found, stack = [], list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def test_only_the_syntax_error_variant_fails_to_parse_on_all_164_problems(problems):
    for problem in problems:
        for variant in VARIANTS:
            completion = build_completion(problem, variant)
            if completion is None:
                assert variant == NOT_GENERATED
                continue
            program = build_humaneval_program(problem, completion)
            assert parses(program) == (variant != SYNTAX_ERROR), (problem["task_id"], variant)


def test_off_by_one_changes_the_code_on_all_164_problems(problems):
    for problem in problems:
        canonical = ast.dump(entry_function(problem, problem["canonical_solution"]))
        shifted = ast.dump(entry_function(problem, build_completion(problem, OFF_BY_ONE)))
        assert shifted != canonical, problem["task_id"]


def test_wrong_return_gives_back_the_first_argument_on_all_164_problems(problems):
    for problem in problems:
        function = entry_function(problem, build_completion(problem, WRONG_RETURN))
        first = function.args.args[0].arg
        returns = own_returns(function)
        assert returns, problem["task_id"]
        assert all(isinstance(r.value, ast.Name) and r.value.id == first for r in returns)


def test_mutations_never_need_ast_unparse_so_the_text_is_the_same_on_every_python(
        problems, monkeypatch):
    # ast.unparse spaces tuples differently on 3.10 (for (a, b) in ...); the
    # lessons store these texts, so the splice must succeed on every problem.
    def refuse(node):
        raise AssertionError("ast.unparse was used")

    monkeypatch.setattr(ast, "unparse", refuse)
    for problem in problems:
        for variant in (OFF_BY_ONE, WRONG_RETURN):
            assert build_completion(problem, variant) is not None


def test_off_by_one_changes_one_line_and_keeps_the_layout(problems):
    canonical = problems[0]["canonical_solution"].splitlines()
    mutated = build_completion(problems[0], OFF_BY_ONE).splitlines()
    changed = [(a, b) for a, b in zip(canonical, mutated) if a != b]
    assert len(canonical) == len(mutated)
    assert [(a.strip(), b.strip()) for a, b in changed] == [
        ("if distance < threshold:", "if distance <= threshold:")]


def test_canonical_is_verbatim_and_early_exit_keeps_the_correct_body(problems):
    problem = problems[0]
    assert build_completion(problem, CANONICAL) == problem["canonical_solution"]
    early = build_completion(problem, EARLY_EXIT)
    assert early.startswith(problem["canonical_solution"])
    assert "sys.exit(0)" in early.splitlines()[-1]


def test_unknown_variant_is_refused(problems):
    with pytest.raises(ValueError, match="unknown variant 'typo'"):
        build_completion(problems[0], "typo")


def test_same_seed_same_pool_and_other_seeds_differ(problems):
    chosen = problems[:6]
    first = build_sample_pool(chosen, n=8, seed=0)
    assert first == build_sample_pool(copy.deepcopy(chosen), n=8, seed=0)
    variants = [[s["variant"] for s in build_sample_pool(chosen, n=8, seed=s)] for s in range(4)]
    assert len({tuple(v) for v in variants}) == 4


def test_pool_items_are_the_plan_the_executor_needs(problems):
    chosen = problems[:3]
    plan = build_sample_pool(chosen, n=7, seed=5)
    assert len(plan) == 21 and len({s["sample_id"] for s in plan}) == 21
    for index, sample in enumerate(plan):
        problem = chosen[index // 7]
        assert sample["task_id"] == problem["task_id"]
        assert sample["sample_id"] == f"{problem['task_id']}/s{index % 7}-{sample['variant']}"
        completion = build_completion(problem, sample["variant"])
        expected = None if completion is None else build_humaneval_program(problem, completion)
        assert sample["program"] == expected


def test_draws_follow_the_weights_roughly(problems):
    plan = build_sample_pool(problems, n=10, seed=0)  # 1640 draws
    share = sum(s["variant"] == CANONICAL for s in plan) / len(plan)
    expected = DEFAULT_WEIGHTS[CANONICAL] / sum(DEFAULT_WEIGHTS.values())
    assert abs(share - expected) < 0.05
    only = build_sample_pool(problems[:2], n=4, weights={NOT_GENERATED: 1})
    assert all(s["program"] is None for s in only)


@pytest.mark.parametrize("kwargs, message", [
    ({"n": 0}, "n must be an int >= 1"),
    ({"n": 2.0}, "n must be an int >= 1"),
    ({"weights": {"typo": 1}}, "unknown variant"),
    ({"weights": {CANONICAL: -1}}, "weight of 'canonical' must be an int >= 0"),
    ({"weights": {CANONICAL: 0}}, "must not all be zero"),
])
def test_bad_settings_are_refused(problems, kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_sample_pool(problems[:1], **kwargs)


def test_bad_problem_lists_are_refused(problems):
    with pytest.raises(ValueError, match="non-empty list"):
        build_sample_pool([])
    with pytest.raises(ValueError, match="repeats task_id 'HumanEval/0'"):
        build_sample_pool([problems[0], problems[0]])
    with pytest.raises(ValueError, match="problems\\[0\\] must be a dict with keys"):
        build_sample_pool([{"task_id": "x"}])


# Real runs on a few problems: each variant ends in the state it was written
# to produce there (elsewhere an off-by-one may pass, as it would for a model).
EXPECTED_ON_HUMANEVAL_2 = {
    CANONICAL: PASSED, OFF_BY_ONE: ASSERTION_FAILED, WRONG_RETURN: ASSERTION_FAILED,
    INFINITE_LOOP: TIMEOUT, SYNTAX_ERROR: RUNTIME_ERROR, EARLY_EXIT: RUNTIME_ERROR,
    NOT_GENERATED: NOT_RUN,
}


def test_each_variant_reaches_its_state_in_a_real_run(problems):
    problem = problems[2]
    plan = [{"sample_id": v, "task_id": problem["task_id"],
             "program": None if build_completion(problem, v) is None
             else build_humaneval_program(problem, build_completion(problem, v))}
            for v in VARIANTS]
    records = execute_samples(plan, timeout=0.5, workers=2, progress=False)
    assert {r["sample_id"]: r["status"] for r in records} == EXPECTED_ON_HUMANEVAL_2
    details = {r["sample_id"]: r["detail"] for r in records}
    assert "SyntaxError" in details[SYNTAX_ERROR]
    assert "exit" in details[EARLY_EXIT].lower()
