"""Issue 23 for ex01's four converted exercises: each test plays the student who tries it.

kp1_score_gsm8k, kp1_parse_rational, kp1_length_in_metres (function exercises: variant
inputs, hidden checks, refused references) and kp1_sort_disagreements (typed, keyed,
withheld). Every score is taken the way the grader takes it
(:func:`assessment_play.grade_score`: public and hidden checks, the test key).
"""

import importlib
import json
import pkgutil
import re
from fractions import Fraction
from pathlib import Path

import pytest

import reasoneval_mini
from assessment_play import IDENTITIES, check_results, grade_score, typed_answer, typed_function
from reasoneval_mini import extract_final_answer, numeric_equivalence, parse_rational
from reasoneval_mini.exercises import ex01_answer_equivalence as ex01
from reasoneval_mini.exercises.registry import (
    STATE_FAILED, STATE_NOT_ATTEMPTED, STATE_PASSED, exercise_state, get_exercise)
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.feedback import format_report

ROOT = Path(__file__).resolve().parents[2]
GSM8K, PARSE, LENGTH, SORT = ("kp1_score_gsm8k", "kp1_parse_rational", "kp1_length_in_metres",
                              "kp1_sort_disagreements")
FUNCTIONS = (GSM8K, PARSE, LENGTH)
POINTS = {exercise_id: get_exercise(exercise_id).points for exercise_id in FUNCTIONS + (SORT,)}


def _master_answer(exercise_id):
    """The master notebook's solution of *exercise_id*, run after the setup cell."""
    notebook = json.loads((ROOT / "solutions" / "ex01_answer_equivalence.ipynb").read_text())
    cells = {cell["metadata"].get("nbgrader", {}).get("grade_id"): "".join(cell["source"])
             for cell in notebook["cells"]}
    namespace = {"__name__": "__main__"}
    exec(cells["ex01_setup"], namespace)
    exec(cells[exercise_id], namespace)
    return namespace[get_exercise(exercise_id).answer_name]


def _stub(*args):
    raise NotImplementedError()


def _scores(exercise_id, answer, identities=IDENTITIES):
    return {identity: grade_score(exercise_id, answer, identity) for identity in identities}


def _at_most_a_third(exercise_id, answer):
    worst = max(_scores(exercise_id, answer).values())
    assert worst <= Fraction(POINTS[exercise_id], 3), worst


# --- the harvest: one check() run of a recording stub ------------------------------------

_RAISES = object()


def _harvest(exercise_id, identity):
    """{arguments: expected} for every public call of *identity*, read off check() results."""
    table = {}
    for check in get_exercise(exercise_id).public_checks(Variant(identity)):
        calls = []
        result = check(lambda *args: calls.append(args))
        if result.expected.startswith("raises "):
            values = [_RAISES] * len(calls)
        else:
            # The text check() printed; a number too long to print is shown approximately,
            # and the student reads it off the input (a run of digits) instead.
            text = re.sub(r"Fraction\(≈[^)]*\)", "LONG", result.expected)
            shown = eval(text, {"Fraction": Fraction, "LONG": "LONG"})
            values = shown if exercise_id == PARSE else [shown]
            values = [Fraction(int(args[0].strip(" +"))) if value == "LONG" else value
                      for args, value in zip(calls, values)]
        table.update(zip(calls, values))
    return table


def _table_answer(table):
    def answer(*args):
        value = table.get(args)
        if value is _RAISES:
            raise ValueError("the table says this one raises")
        return value
    return answer


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_a_student_who_harvests_a_lookup_table_from_check_passes_it_and_earns_nothing(exercise_id):
    for identity in IDENTITIES[:10]:
        answer = _table_answer(_harvest(exercise_id, identity))
        results = check_results(exercise_id, answer, identity)
        assert exercise_state(results) == STATE_PASSED, identity  # the table is complete
        assert grade_score(exercise_id, answer, identity) == 0, identity


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_a_student_who_hands_in_a_classmates_table_fails_check_and_earns_nothing(exercise_id):
    answer = _table_answer(_harvest(exercise_id, "ada"))
    assert exercise_state(check_results(exercise_id, answer, "bob")) == STATE_FAILED
    assert grade_score(exercise_id, answer, "bob") == 0


@pytest.mark.parametrize("exercise_id", FUNCTIONS + (SORT,))
def test_two_students_rarely_get_the_same_inputs(exercise_id):
    exercise = get_exercise(exercise_id)
    drawn = [repr(exercise.data(Variant(identity))) for identity in IDENTITIES]
    assert len(set(drawn)) >= len(IDENTITIES) - 1


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_the_solution_earns_full_marks_on_every_variant_in_check_and_in_grade(exercise_id):
    solution = _master_answer(exercise_id)
    for identity in IDENTITIES:
        results = check_results(exercise_id, solution, identity)
        assert [r.call for r in results if not r.passed] == [], identity
        assert grade_score(exercise_id, solution, identity) == POINTS[exercise_id], identity
    report = format_report(get_exercise(exercise_id), results, solution)
    assert "The grader adds hidden checks" in report and "all tests pass" not in report.lower()


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_the_untouched_stub_earns_nothing_and_is_not_attempted(exercise_id):
    for identity in IDENTITIES:
        assert exercise_state(check_results(exercise_id, _stub, identity)) == STATE_NOT_ATTEMPTED
        assert grade_score(exercise_id, _stub, identity) == 0


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_a_do_nothing_answer_earns_nothing(exercise_id):
    assert set(_scores(exercise_id, lambda *args: None, IDENTITIES[:20]).values()) == {0}


# --- kp1_score_gsm8k ---------------------------------------------------------------------

def _gsm8k(completion, reference_solution):
    return numeric_equivalence(extract_final_answer(completion),
                               extract_final_answer(reference_solution))


def test_gsm8k_a_student_who_scores_a_broken_reference_false_earns_at_most_a_third():
    def broken_is_false(completion, reference_solution):
        try:
            return _gsm8k(completion, reference_solution)
        except ValueError:
            return False
    _at_most_a_third(GSM8K, broken_is_false)


def test_gsm8k_a_student_who_scores_a_missing_marker_false_earns_at_most_a_third():
    def none_is_false(completion, reference_solution):
        verdict = _gsm8k(completion, reference_solution)
        return False if verdict is None else verdict
    _at_most_a_third(GSM8K, none_is_false)


def test_gsm8k_a_student_who_takes_the_first_marker_fails_some_hidden_bundle_everywhere():
    def first_marker(completion, reference_solution):
        match = re.search(r"#### (\-?[0-9\.\,]+)", completion)
        return numeric_equivalence(match.group(1) if match else None,
                                   extract_final_answer(reference_solution))
    assert all(score < POINTS[GSM8K] for score in _scores(GSM8K, first_marker).values())


def test_gsm8k_a_student_who_imports_the_course_scorer_earns_nothing_and_hears_its_name():
    scorer = importlib.import_module(ex01.__name__)._score_gsm8k
    answer = lambda completion, reference_solution: scorer(completion, reference_solution)  # noqa: E731
    assert set(_scores(GSM8K, answer, IDENTITIES[:10]).values()) == {0}
    results = check_results(GSM8K, answer, "ada")
    assert all(r.delegated.endswith("_score_gsm8k") for r in results)
    assert "_score_gsm8k" in format_report(get_exercise(GSM8K), results, answer)


# --- kp1_parse_rational ------------------------------------------------------------------

def _lenient(text):
    # Right on the plain forms; repeats signs, forgives a trailing dot and a decimal in a
    # fraction, strips every Unicode space.
    if not isinstance(text, str) or len(text.strip()) > 1000:
        return None
    parts = text.strip().split("/")
    values = []
    for part in parts:
        match = re.fullmatch(r"([+-]*)([0-9]*)(?:\.([0-9]*))?", part)
        if len(parts) > 2 or not match or not (match.group(2) or match.group(3)):
            return None
        value = Fraction(int(match.group(2) or 0)) + (
            Fraction(int(match.group(3)), 10 ** len(match.group(3))) if match.group(3) else 0)
        values.append(-value if match.group(1).count("-") % 2 else value)
    if len(values) == 2 and values[1] == 0:
        return None
    return values[0] if len(values) == 1 else values[0] / values[1]


def test_parse_a_lenient_parser_earns_at_most_a_third_on_every_variant():
    for text in ("7", "0.5", ".5", "1/2", "-10/20", "1/0", "", "1e3"):  # not a strawman
        assert _lenient(text) == parse_rational(text), text
    _at_most_a_third(PARSE, _lenient)


def test_parse_a_student_who_reads_through_float_earns_at_most_a_third():
    def through_float(text):
        return Fraction(float(text)) if isinstance(text, str) and text.strip() else None
    _at_most_a_third(PARSE, through_float)


@pytest.mark.parametrize("named, answer", [
    ("parse_rational", parse_rational),
    ("parse_rational", lambda text: reasoneval_mini.parse_rational(text)),
    ("numeric_equivalence", lambda text: parse_rational(text) if numeric_equivalence(text, "1")
     is not None else None),
    ("normalised_verdict", lambda text: None if importlib.import_module(
        "reasoneval_mini.normalise").normalised_verdict("#### " + str(text), "1") is None
     else Fraction(1)),
    ("eval", lambda text: Fraction(eval(text)) if isinstance(text, str) else None),
])
def test_parse_a_student_who_delegates_to_a_course_parser_earns_nothing_and_hears_which(named,
                                                                                      answer):
    assert set(_scores(PARSE, answer, IDENTITIES[:5]).values()) == {0}
    results = check_results(PARSE, answer, "ada")
    delegated = {r.delegated for r in results}
    assert len(delegated) >= 1 and all(name.endswith(named) for name in delegated), delegated
    assert f"your function calls " in format_report(get_exercise(PARSE), results, answer)


# --- kp1_length_in_metres ----------------------------------------------------------------

_FLOAT_METRES = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0}


def _length_float(text):
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2 or parts[1] not in _FLOAT_METRES or parse_rational(parts[0]) is None:
        return None
    return float(parse_rational(parts[0])) * _FLOAT_METRES[parts[1]]


def _length_glued(text):
    match = re.fullmatch(r"\s*(\S+?)\s*(mm|cm|km|m)\s*", text) if isinstance(text, str) else None
    number = parse_rational(match.group(1)) if match else None
    return None if number is None else number * ex01.METRES_PER_UNIT[match.group(2)]


def _length_zero(text):
    parts = text.split() if isinstance(text, str) else []
    number = parse_rational(parts[0]) if len(parts) == 2 else None
    return 0 if number is None or parts[1] not in ex01.METRES_PER_UNIT else \
        number * ex01.METRES_PER_UNIT[parts[1]]


@pytest.mark.parametrize("what, answer", [("float factors", _length_float),
                                          ("a missing space forgiven", _length_glued),
                                          ("0 instead of None", _length_zero)])
def test_length_a_misconception_earns_at_most_a_third_on_every_variant(what, answer):
    _at_most_a_third(LENGTH, answer)


def test_length_the_reference_converter_is_not_public_and_importing_it_earns_nothing():
    assert not hasattr(ex01, "reference_length")
    converter = importlib.import_module(ex01.__name__)._length_in_metres
    answer = lambda text: converter(text)  # noqa: E731
    assert set(_scores(LENGTH, answer, IDENTITIES[:10]).values()) == {0}
    results = check_results(LENGTH, answer, "ada")
    assert "_length_in_metres" in format_report(get_exercise(LENGTH), results, answer)


# --- kp1_sort_disagreements --------------------------------------------------------------

def _right(identity):
    exercise = get_exercise(SORT)
    return exercise.solve(exercise.data(Variant(identity)))


def test_sort_no_module_of_the_package_holds_the_kinds_or_computes_them():
    right = _right("ada")
    for info in pkgutil.walk_packages(reasoneval_mini.__path__, "reasoneval_mini."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        assert not hasattr(module, "reference_disagreement_kind"), info.name
        for name, value in vars(module).items():
            if isinstance(value, dict) and value and all(
                    isinstance(item, str) for item in value) and set(value) <= set(
                    dict(ex01.DISAGREEMENT_POOL)):
                assert not all(isinstance(kind, str) and kind in ex01.DISAGREEMENT_KINDS
                               for kind in value.values()), (info.name, name)
            if isinstance(value, (tuple, list)):
                assert not any(isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str)
                               and row[0] in right
                               and row[1] in ex01.DISAGREEMENT_KINDS for row in value), name


def test_sort_a_student_who_computes_the_kinds_earns_nothing():
    answer = typed_function("""
        def sort_disagreements():
            return {item: "format failure" for item in task_data("kp1_sort_disagreements")}
        """, "sort_disagreements")
    assert grade_score(SORT, answer, "ada") == 0
    assert "typed in as a literal" in check_results(SORT, answer, "ada")[0].message


def test_sort_a_blind_search_reading_the_feedback_learns_nothing():
    # Every answer with one item changed, to each other kind: all hear the same words.
    for identity in IDENTITIES[:10]:
        right = _right(identity)
        messages = set()
        for item in right:
            for kind in ex01.DISAGREEMENT_KINDS:
                if kind != right[item]:
                    answer = typed_answer(SORT, {**right, item: kind})
                    [result] = check_results(SORT, answer, identity)
                    messages.add((result.message, result.expected, format_report(
                        get_exercise(SORT), [result], answer).replace(repr(answer), "")))
        all_wrong = typed_answer(SORT, {item: next(k for k in ex01.DISAGREEMENT_KINDS
                                                   if k != right[item]) for item in right})
        [result] = check_results(SORT, all_wrong, identity)
        assert len({message for message, _, _ in messages} | {result.message}) == 1
        assert len({expected for _, expected, _ in messages}) == 1
        assert not any(item in message for item in right for message, _, _ in messages)


def test_sort_a_classmates_typed_answer_earns_nothing_on_another_variant():
    ada = typed_answer(SORT, _right("ada"))
    assert grade_score(SORT, ada, "ada") == POINTS[SORT]
    assert grade_score(SORT, ada, "bob") == 0


def test_sort_once_right_the_check_explains_every_item():
    for identity in IDENTITIES[:5]:
        right = _right(identity)
        answer = typed_answer(SORT, right)
        with_variant = Variant(identity)
        from reasoneval_mini.exercises.variants import use_variant
        use_variant(with_variant.identity)
        try:
            report = format_report(get_exercise(SORT), check_results(SORT, answer, identity), answer)
        finally:
            use_variant()
        assert "Right." in report and "Why:" in report
        for item, kind in right.items():
            assert f"{item} -> {kind}: " in report


def test_sort_a_student_who_guesses_one_kind_for_all_earns_nothing():
    for kind in ex01.DISAGREEMENT_KINDS:
        for identity in IDENTITIES:
            items = get_exercise(SORT).data(Variant(identity))
            assert grade_score(SORT, typed_answer(SORT, dict.fromkeys(items, kind)), identity) == 0


def test_sort_the_solution_earns_full_marks_on_every_variant_and_the_stub_nothing():
    stub = typed_function("""
        def sort_disagreements():
            raise NotImplementedError()
        """, "sort_disagreements")
    for identity in IDENTITIES:
        answer = typed_answer(SORT, _right(identity))
        assert exercise_state(check_results(SORT, answer, identity)) == STATE_PASSED, identity
        assert grade_score(SORT, answer, identity) == POINTS[SORT], identity
        assert exercise_state(check_results(SORT, stub, identity)) == STATE_NOT_ATTEMPTED
        assert grade_score(SORT, stub, identity) == 0


def test_sort_the_statement_names_the_lessons_going_further_section():
    notebook = json.loads((ROOT / "notebooks" / "01_answer_equivalence.ipynb").read_text())
    headings = [line for cell in notebook["cells"] if cell["cell_type"] == "markdown"
                for line in "".join(cell["source"]).splitlines() if line.startswith("#")]
    statement = get_exercise(SORT).statement_for(Variant("ada"))
    assert any(h.startswith("## Going further") for h in headings)
    assert "*Going further*" in statement and "A lenient peer: math-verify" in statement
    assert any(h == "### A lenient peer: math-verify" for h in headings)
    assert "section 8" not in statement
