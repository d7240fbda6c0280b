"""Exercises for knowledge point 1: final-answer equivalence (ex01).

Expected values come from the library's contracts (:func:`numeric_equivalence`,
:func:`parse_rational`, :func:`extract_final_answer`), which have their own
tests, never from numbers typed in here.
"""

from fractions import Fraction

from reasoneval_mini.exercises.checks import (
    Exercise, Withheld, WrittenTask, case, rejects, same_set, withheld_choice)
from reasoneval_mini.answers import extract_final_answer
from reasoneval_mini.answers import numeric_equivalence
from reasoneval_mini.answers import parse_rational
from reasoneval_mini.course_map import exercise_notebook_for

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook

#: The source page's practice task: these predictions against the reference "1/2".
PRACTICE_PREDICTIONS = ("0.5", "1/2", "0.5001", "0.5 kg")
PRACTICE_REFERENCE = "1/2"

#: Outcome names for :func:`classify_outcome`-style answers, one per owner.
OUTCOMES = ("correct", "wrong", "format failure", "broken reference")

#: The declared units of the length exercise, in metres.
METRES_PER_UNIT = {"mm": Fraction(1, 1000), "cm": Fraction(1, 100), "m": Fraction(1), "km": Fraction(1000)}


def reference_outcome(prediction, reference):
    """Which of :data:`OUTCOMES` a (prediction, reference) pair is.

    >>> reference_outcome("100 cm", "1"), reference_outcome("1", "1 m")
    ('format failure', 'broken reference')
    """
    try:
        verdict = numeric_equivalence(prediction, reference)
    except ValueError:
        return "broken reference"
    return {True: "correct", False: "wrong", None: "format failure"}[verdict]


def reference_length(text):
    """Length in metres of ``"<number> <unit>"``, or ``None`` outside that space."""
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2 or parts[1] not in METRES_PER_UNIT:
        return None
    number = parse_rational(parts[0])
    return None if number is None else number * METRES_PER_UNIT[parts[1]]


def _score_gsm8k(completion, reference_solution):
    return numeric_equivalence(extract_final_answer(completion),
                               extract_final_answer(reference_solution))


def _calls(name, args_list, reference):
    """One :func:`case` per argument tuple, expected = ``reference(*args)``."""
    return tuple(
        case(f"{name}({', '.join(map(repr, args))})",
             lambda f, args=args: f(*args), reference(*args))
        for args in args_list
    )


_PRACTICE = Exercise(
    id="kp1_practice_verdicts", notebook=NOTEBOOK, answer_name="practice_verdicts", points=1,
    title="Warm-up: 0.5, 1/2, 0.5001 and a text with units",
    statement=(
        "Complete `practice_verdicts()` so that it returns a dict mapping each of the "
        "predictions `\"0.5\"`, `\"1/2\"`, `\"0.5001\"` and `\"0.5 kg\"` to the verdict "
        "`numeric_equivalence(prediction, \"1/2\")` gives: `True`, `False` or `None`. "
        "Predict each verdict first and type it in; then run the check."),
    checks_what=("One test per prediction: the exact verdict (None is not False). A wrong "
                 "verdict is named, never corrected: the feedback says which predictions are "
                 "wrong, not what they should be."),
    hint=("A verdict is None when the prediction is outside the declared answer space "
          "(integers, decimals, a/b): units are outside it. 0.5001 is a different rational."),
    checks=(
        case("sorted(practice_verdicts())", lambda f: sorted(f()),
             Withheld(sorted(PRACTICE_PREDICTIONS), "the four predictions of the statement"),
             compare=lambda actual, expected: same_set(actual, expected.value)),
    ) + tuple(
        case(f"practice_verdicts()[{p!r}]", lambda f, p=p: f()[p],
             Withheld(numeric_equivalence(p, PRACTICE_REFERENCE), "withheld: the verdict"),
             compare=withheld_choice((True, False, None), "wrong verdict: think again about "
                                     "the declared answer space"))
        for p in PRACTICE_PREDICTIONS
    ),
    reveal_expected=False,
)

_OUTCOME_CASES = (
    ("0.5", "1/2"), ("0.5001", "1/2"), ("100 cm", "1"), ("1e3", "1000"),
    (7, "7"), (None, "3"), ("3", "1,080"), ("3", ""),
)

_CLASSIFY = Exercise(
    id="kp1_classify_outcome", notebook=NOTEBOOK, answer_name="classify_outcome", points=2,
    title="None, False or ValueError: who owns the outcome?",
    statement=(
        "Complete `classify_outcome(prediction, reference)`. Use `numeric_equivalence` and "
        "return `\"correct\"` (True), `\"wrong\"` (False: the model's number is wrong), "
        "`\"format failure\"` (None: the prediction is outside the answer space; the task's "
        "protocol decides how to count it) or `\"broken reference\"` (ValueError: a bug in "
        "the data set, not the model's fault)."),
    checks_what="Eight (prediction, reference) pairs, including non-string predictions and broken references.",
    hint="Call numeric_equivalence inside try/except ValueError; map True/False/None to names.",
    checks=_calls("classify_outcome", _OUTCOME_CASES, reference_outcome),
)

_PARSE_CASES = (
    ("0.5",), ("1/2",), ("-2.25",), (".5",), ("7.",), ("+7",), ("-10/20",), ("0.1",),
    (" 42 ",), ("1e3",), ("3 / 4",), ("1,080",), ("100 cm",), ("1/0",), ("nan",),
    ("\u0661\u0662",), ("",), (12,),
)

_PARSE = Exercise(
    id="kp1_parse_rational", notebook=NOTEBOOK, answer_name="my_parse_rational", points=3,
    title="Stretch: parse the declared answer space yourself",
    statement=(
        "Complete `my_parse_rational(text)`: return the exact `Fraction` for an optional sign "
        "followed by ASCII digits written as an integer (`7`, `7.`), a decimal (`0.5`, `.5`) "
        "or a fraction `a/b` (no spaces inside), with surrounding whitespace allowed and at "
        "most 1000 characters after stripping; return `None` for anything else (exponents, "
        "commas, units, non-ASCII digits, a zero denominator, a non-string). Do not use "
        "`float`, `eval` or `parse_rational`."),
    checks_what="19 inputs compared with the course's `parse_rational`, exactly (a float 0.1 is not 1/10).",
    hint=("A regular expression with [0-9] (not \\d, which matches Arabic-Indic digits) and "
          "re.fullmatch; build decimals as int(whole) + Fraction(int(digits), 10**len(digits))."),
    checks=_calls("my_parse_rational", _PARSE_CASES, parse_rational) + (
        case("my_parse_rational('1' * 1001)", lambda f: f("1" * 1001), parse_rational("1" * 1001)),
    ),
)

_GSM8K_CASES = (
    ("6 * 180 = 1,080\n#### 1,080", "#### 1080"),
    ("so the share is #### 0.5", "#### 1/2"),
    ("#### 3 wait, no.\n#### 4", "#### 4"),
    ("The answer is 42.", "#### 42"),
    ("#### $5", "#### 5"),
    ("#### 41", "#### 42"),
)

_GSM8K = Exercise(
    id="kp1_score_gsm8k", notebook=NOTEBOOK, answer_name="score_gsm8k", points=2,
    title="GSM8K's protocol: extract, then compare",
    statement=(
        "Complete `score_gsm8k(completion, reference_solution)`: extract the final answer "
        "after the last `####` from both texts with `extract_final_answer`, then compare "
        "with `numeric_equivalence`. Return its verdict (True / False / None). A reference "
        "solution without a marker is a data bug: let the `ValueError` through."),
    checks_what="Six completions (commas, last marker wins, no marker, `$5`) and a broken reference.",
    hint="Two calls to extract_final_answer and one to numeric_equivalence; no try/except needed.",
    checks=_calls("score_gsm8k", _GSM8K_CASES, _score_gsm8k) + (
        rejects("score_gsm8k('#### 5', 'five')", lambda f: f("#### 5", "five"), ValueError),
    ),
)

_LENGTH_CASES = (
    ("100 cm",), ("1 m",), ("2.5 km",), ("-3 mm",), ("1/4 km",), ("  7   m ",),
    ("5 inches",), ("100cm",), ("cm",), ("1e2 m",), ("1,000 m",), (100,),
)

_LENGTH = Exercise(
    id="kp1_length_in_metres", notebook=NOTEBOOK, answer_name="length_in_metres", points=3,
    title="Stretch: a declared answer space with units",
    statement=(
        "\"100 cm\" and \"1 m\" are equal only after unit conversion. Complete "
        "`length_in_metres(text)`: a number in the course's answer space (use "
        "`parse_rational`), whitespace, then one unit from `mm`, `cm`, `m`, `km`; return the "
        "exact length in metres as a `Fraction`, or `None` for anything else (unknown unit, "
        "missing space, no number, a non-string)."),
    checks_what="12 texts, compared exactly (Fraction) with a reference converter.",
    hint="text.split() must give exactly two parts; keep a dict unit -> Fraction metres.",
    checks=_calls("length_in_metres", _LENGTH_CASES, reference_length),
)

#: Knowledge point 1, in course order (warm-up to stretch).
EXERCISES = (_PRACTICE, _CLASSIFY, _GSM8K, _PARSE, _LENGTH)

#: Written tasks of knowledge point 1, graded by the instructor with the rubric.
WRITTEN_TASKS = (
    WrittenTask(
        id="kp1_explain_answer_space", notebook=NOTEBOOK, points=3,
        title="The answer space, and None vs False, in words",
        statement=(
            "In a short paragraph (no code), explain to a colleague who wants to score "
            "answers with `==`: what the *declared answer space* of `numeric_equivalence` "
            "is; why `\"0.5 kg\"` against `\"1/2\"` gives `None` while `\"0.5001\"` gives "
            "`False`; who decides how a `None` counts in a benchmark's score, and what goes "
            "wrong when it is silently counted as `False`. End with one *limit* of the "
            "contract: a text inside the space that is read as a different number than "
            "its writer meant."),
        rubric=(
            ("Answer space: names what is inside (integers, decimals, a/b as ASCII text) "
             "and that everything else is outside, declared before comparing", 1),
            ("None vs False: None = outside the space (a format question), False = a "
             "different number inside it; the task's protocol decides how None counts and "
             "the report says so", 1),
            ("Limit: a format ambiguity inside the space, e.g. '15.000' (a European "
             "thousands separator) read as fifteen silently becomes False", 1),
        ),
    ),
)
