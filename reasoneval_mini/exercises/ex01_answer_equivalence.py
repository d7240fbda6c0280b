"""Exercises for knowledge point 1: final-answer equivalence (ex01).

Expected values come from the library's contracts (:func:`numeric_equivalence`,
:func:`parse_rational`, :func:`extract_final_answer`), which have their own
tests, never from numbers typed in here.
"""

import re
from fractions import Fraction

from reasoneval_mini.exercises.checks import (
    Criterion, Exercise, Withheld, WrittenTask, bundle, case, rejects, why_line,
    withheld_predictions)
from reasoneval_mini.answers import extract_final_answer
from reasoneval_mini.answers import numeric_equivalence
from reasoneval_mini.answers import parse_rational
from reasoneval_mini.course_map import exercise_notebook_for
from reasoneval_mini.exercises.answer_key import AnswerKeyMissing, answer_key
from reasoneval_mini.datasets.answer_pairs import NOT_EQUAL, answer_pairs
from reasoneval_mini.normalise import RULES, normalised_verdict
from reasoneval_mini.support.i18n import N_, _, join_items

#: This exercise set's notebook, as the course map names it.
NOTEBOOK = exercise_notebook_for(__name__).notebook

#: The source page's practice task: these predictions against the reference "1/2"
#: (the shipped variant's draw may differ; lesson 01 works this one).
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


#: References of the practice task: fractions with a short exact decimal, so that each has
#: a decimal spelling, a fraction spelling and a "close" neighbour.
PRACTICE_REFERENCES = tuple(Fraction(a, b) for a, b in (
    (1, 2), (1, 4), (3, 4), (2, 5), (3, 5), (1, 8), (3, 8), (5, 4), (7, 2), (9, 4), (3, 20),
    (7, 5), (5, 8), (11, 4), (13, 10), (17, 20)))
_UNITS = ("kg", "m", "cm", "%", "dollars", "hours")


def _decimal(value):
    """The exact decimal text of *value* (its denominator divides a power of ten)."""
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    whole = value * 10**digits
    text = str(whole.numerator).rjust(digits + 1, "0")
    return text if digits == 0 else f"{text[:-digits]}.{text[-digits:]}"


def _practice_predictions(rng, reference):
    """Four prediction texts for *reference*: one of each verdict, then one more of any kind.

    Each kind is a way the page's texts differ: another spelling of the same
    rational (True), a different or merely close number (False), a text outside
    the declared space (None).
    """
    decimal = _decimal(reference)
    factor = rng.choice((2, 3, 4, 5))
    same = [decimal, f"{reference.numerator}/{reference.denominator}",
            f"{reference.numerator * factor}/{reference.denominator * factor}", "+" + decimal]
    close = reference + Fraction(1, 10 ** rng.choice((3, 4, 5)))
    other = [_decimal(close), f"{reference.numerator + 1}/{reference.denominator}",
             "-" + decimal]
    outside = [f"{decimal} {rng.choice(_UNITS)}", decimal.replace(".", ",") if "." in decimal
               else decimal + " units", f"{decimal}e0", f"{reference.numerator} / "
               f"{reference.denominator}"]
    picks = [rng.choice(same), rng.choice(other), rng.choice(outside)]
    pool = [text for text in same + other + outside if text not in picks]
    picks.append(rng.choice(pool))
    rng.shuffle(picks)
    return tuple(picks)


def _draw_practice(rng):
    reference = rng.choice(PRACTICE_REFERENCES)
    return {"reference": f"{reference.numerator}/{reference.denominator}",
            "predictions": _practice_predictions(rng, reference)}


def _practice_verdicts(data):
    return {p: numeric_equivalence(p, data["reference"]) for p in data["predictions"]}


def _practice_statement(data):
    shown = join_items(f"`{p!r}`".replace("'", '"') for p in data["predictions"])
    return _(
        "Complete `practice_verdicts()` so that it returns a dict mapping each of the "
        "predictions {shown} to the verdict `numeric_equivalence(prediction, "
        "\"{reference}\")` gives: `True`, `False` or `None`. Predict each verdict "
        "first and type it in (the check reads what your function returns as you typed it: "
        "a dict written out, not computed); then run the check. `task_data"
        "(\"kp1_practice_verdicts\")` gives the same predictions as data.").format(
            shown=shown, reference=data["reference"])


def _practice_why(data):
    lines = []
    for prediction, verdict in _practice_verdicts(data).items():
        if verdict is None:
            why = _("outside the declared answer space (a unit, a comma, an exponent or spaces)")
        elif verdict:
            why = _("the same rational as {reference}, spelled another way").format(
                reference=data["reference"])
        else:
            why = _("inside the space, but a different number than {reference}").format(
                reference=data["reference"])
        lines.append(why_line(repr(prediction), verdict, why))
    return "\n".join(lines)


_PRACTICE = Exercise(
    id="kp1_practice_verdicts", notebook=NOTEBOOK, answer_name="practice_verdicts", points=1,
    title=N_("Warm-up: spellings, close numbers and texts with units"),
    statement=_practice_statement,
    checks_what=N_("All four verdicts at once, exactly (None is not False), as typed in your "
                    "function. The check answers only \"right\" or \"not yet\", never which "
                    "verdict is wrong; once right, it says why each is what it is."),
    hint=N_("For each prediction ask two questions, in this order: can the scorer read it as "
             "a number of the declared answer space (lesson 01, the answer space)? If so, is it "
             "exactly the same rational as the reference?"),
    draw=_draw_practice,
    checks=lambda data: (
        case("practice_verdicts()", lambda f: f(),
             Withheld(_practice_verdicts(data), N_("withheld: the four verdicts")),
             compare=withheld_predictions((True, False, None), noun=N_("verdict"))),
    ),
    reveal_expected=False, typed=True, solve=_practice_verdicts, explain=_practice_why,
)

def _outcome_pairs(rng, count):
    """*count* (prediction, reference) pairs, every owner of an outcome among them.

    Drawn so that each owner occurs at least twice in eight: a classifier
    that folds one owner into another (None into "wrong", a broken reference
    into "wrong") fails several pairs, each marked with the distinction it breaks.
    """
    def rational():
        return Fraction(rng.randint(1, 40), rng.choice((1, 2, 4, 5, 8, 10)))

    def spelling(value):
        return rng.choice([_decimal(value), f"{value.numerator}/{value.denominator}",
                           f"{value.numerator * 3}/{value.denominator * 3}"])

    def correct():
        value = rational()
        return spelling(value), spelling(value)

    def wrong():
        value = rational()
        return spelling(value + Fraction(1, rng.choice((1, 1000)))), spelling(value)

    def format_failure():
        value = rational()
        prediction = rng.choice([f"{_decimal(value)} {rng.choice(_UNITS)}", None,
                                 int(value.numerator), f"{value.numerator},000", "", "n/a"])
        return prediction, spelling(value)

    def broken_reference():
        value = rational()
        reference = rng.choice([f"{value.numerator},000", "", f"{_decimal(value)} m",
                                "#### " + _decimal(value), "about " + _decimal(value)])
        return spelling(value), reference

    makers = [correct, wrong, format_failure, broken_reference]
    kinds = makers * 2 + [rng.choice(makers) for _ in range(max(0, count - 8))]
    rng.shuffle(kinds)
    return tuple(maker() for maker in kinds[:count])


#: The distinction each outcome's pairs test, by outcome.
_OUTCOME_DISTINCTION = {"format failure": "None vs False",
                        "broken reference": "ValueError for a broken reference vs False"}


def _outcome_checks(pairs):
    return tuple(
        case(f"classify_outcome({prediction!r}, {reference!r})",
             lambda f, p=prediction, r=reference: f(p, r), reference_outcome(prediction, reference),
             distinction=_OUTCOME_DISTINCTION.get(reference_outcome(prediction, reference), ""))
        for prediction, reference in pairs)


_CLASSIFY = Exercise(
    id="kp1_classify_outcome", notebook=NOTEBOOK, answer_name="classify_outcome", points=2,
    title=N_("None, False or ValueError: who owns the outcome?"),
    statement=N_(
        "Complete `classify_outcome(prediction, reference)`. Use `numeric_equivalence` and "
        "return `\"correct\"` (True), `\"wrong\"` (False: the model's number is wrong), "
        "`\"format failure\"` (None: the prediction is outside the answer space; the task's "
        "protocol decides how to count it) or `\"broken reference\"` (ValueError: a bug in "
        "the data set, not the model's fault)."),
    checks_what=N_("Eight (prediction, reference) pairs, two of each outcome, including "
                    "non-string predictions and broken references; the grader adds pairs of its "
                    "own. A format failure or a broken reference scored as \"wrong\" caps the "
                    "exercise at a third of its points."),
    hint=N_("Call numeric_equivalence inside try/except ValueError; map True/False/None to "
            "names."),
    draw=lambda rng: _outcome_pairs(rng, 8),
    checks=_outcome_checks,
    hidden=lambda rng, pairs: _outcome_checks(
        [pair for pair in _outcome_pairs(rng, 14) if pair not in pairs]),
    refuses=(f"{__name__}.reference_outcome",),
)

# Each group mixes inputs of one shape with malformed twins of that shape, so that a
# parser that is lenient about signs, dots or the denominator fails most groups, not
# one check among many; every group also holds a text inside the space and one outside,
# so that neither a constant answer nor a table of another group's inputs passes it.
_ARABIC_INDIC = "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"
_FULL_WIDTH = "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19"


def _odd_digits(rng):
    """Decimal digits that end in 1, 3, 7 or 9: a decimal no float holds exactly."""
    return f"{rng.randint(0, 99)}{rng.choice('1379')}".lstrip("0") or "1"


def _pick(rng, valid, lenient, other, counts):
    """*counts* (valid, lenient twins, other malformed) drawn from each list, shuffled."""
    texts = (rng.sample(valid, counts[0]) + rng.sample(lenient, counts[1])
             + rng.sample(other, counts[2]))
    rng.shuffle(texts)
    return texts


def _integers(rng):
    a, b = rng.randint(2, 999), rng.randint(2, 99)
    return _pick(rng, [str(a), f"+{a}", f"-{a}", f"{a}.", f" {a} ", f"\t{a}\n", f"00{b}", "-0"],
                 [f"--{a}", f"+-{a}", f"-+{b}", f"++{b}"],
                 [f"{a}..", f"{a} {b}", f"{a}_000", f"{a}\u3000", f"{a}-"], (3, 2, 2))


def _decimals(rng):
    a, digits = rng.randint(1, 99), _odd_digits(rng)
    return _pick(rng, [f"{a}.{digits}", f".{digits}", f"-{a}.{digits}", f"+0.{digits}",
                       f"0.{digits}"],
                 [f"--0.{digits}", f"+-{a}.{digits}", f"-+.{digits}"],
                 [f"{a}.{digits}.{digits}", f"{a}..{digits}", f"{a},{digits}",
                  f"{a}.{digits}e1", f"{a}. {digits}"], (3, 2, 2))


def _fractions(rng):
    p, q, r = rng.randint(1, 99), rng.randint(2, 99), rng.randint(2, 9)
    return _pick(rng, [f"{p}/{q}", f"-{p}/{q}", f"+{p}/{q}", f"{p * r}/{q * r}", f" {p}/{q} "],
                 [f"{p}/-{q}", f"{p}/+{q}", f"{p}.5/{q}", f"{p}/{q}.", f"{p}./{q}"],
                 [f"{p}/{q}/{r}", f"{p} / {q}", f"{p}/", f"/{q}", f"{p}//{q}"], (3, 3, 2))


def _outside(rng):
    k, low = rng.randint(2, 99), rng.randint(0, 999)
    outside = [f"{k}e3", f"{k},{low:03d}", f"{k} cm", f"{k} / 4", "nan", "", f"0x{k}", "\u00bd",
               f"{k}%", f"${k}", "inf",
               "".join(_ARABIC_INDIC[int(d)] for d in str(k)),
               "".join(_FULL_WIDTH[int(d)] for d in str(k))]
    inside = [f"{k}000", f"{k}{low:03d}", str(k), f"{k}/4", "1/2"]
    return _pick(rng, inside, [f"+-{k}", f"--{k}/4"], outside, (2, 1, 4))


def _limits(rng):
    k, n = rng.randint(1, 9), rng.randint(990, 1000)
    valid = [" " * rng.randint(1, 5) + str(k) * 1000, f"+{str(k) * 999}", str(k) * n,
             f"{k}/{k}"]
    # Only ASCII whitespace is stripped: str.strip() would also remove these spaces.
    return _pick(rng, valid, [f"\u3000{k}", f"{k}\u2003", f"\u00a0{k}\u00a0"],
                 [f"{k}/0", f"-{k}/0", k, None, float(k) / 2, str(k) * 1001,
                  "-" + str(k) * 1000, b"1"], (2, 1, 3))


#: (label, maker) of each group, in the order check() shows them.
_PARSE_SHAPES = ((N_("integers"), _integers), (N_("decimals"), _decimals),
                 (N_("fractions a/b"), _fractions), (N_("texts outside the space"), _outside),
                 (N_("limits and refusals"), _limits))


def _shown_text(text):
    """*text* as a call shows it: a long run of one character as ``'1' * 1000``."""
    if not isinstance(text, str) or len(text) <= 24:
        return repr(text)
    # The runs found by the regular expression engine, not character by character in Python:
    # the draws show texts of a thousand characters, hundreds of times per student.
    runs = (run.group() for run in _RUN.finditer(text))
    return " + ".join(repr(run[0]) + (f" * {len(run)}" if len(run) > 1 else "") for run in runs)


#: A run of one character repeated (any character, line breaks included).
_RUN = re.compile(r"(.)\1*", re.DOTALL)


def _parse_check(label, inputs):
    # The group's label stays English in the data (task_data); the call shows it translated.
    shown_label = _(label)
    return case(f"[my_parse_rational(x) for x in {shown_label}: "
                f"{', '.join(map(_shown_text, inputs))}]",
                lambda f, inputs=tuple(inputs): [f(text) for text in inputs],
                [parse_rational(text) for text in inputs])


def _draw_parse(rng):
    return tuple((label, tuple(maker(rng))) for label, maker in _PARSE_SHAPES)


def _parse_hidden(rng, public):
    # Two groups of each shape, each with a text inside the space that no public group holds.
    seen = {text for _, inputs in public for text in inputs if isinstance(text, str)}
    checks = []
    for label, maker in _PARSE_SHAPES * 2:
        for _ in range(100):
            inputs = maker(rng)
            if any(parse_rational(text) is not None and text not in seen for text in inputs):
                break
        checks.append(_parse_check(label, inputs))
    return tuple(checks)


#: What parses a rational in the course: the exercise is to write it, so none may run.
_PARSERS = ("reasoneval_mini.answers.parse_rational", "reasoneval_mini.answers.parse_reference",
            "reasoneval_mini.answers.numeric_equivalence",
            "reasoneval_mini.answers.compare_with_tolerance",
            "reasoneval_mini.normalise.normalised_verdict", "builtins.eval")

_PARSE = Exercise(
    id="kp1_parse_rational", notebook=NOTEBOOK, answer_name="my_parse_rational", points=3,
    title=N_("Stretch: parse the declared answer space yourself"),
    statement=N_(
        "Complete `my_parse_rational(text)`: return the exact `Fraction` for an optional sign "
        "followed by ASCII digits written as an integer (`7`, `7.`), a decimal (`0.5`, `.5`) "
        "or a fraction `a/b` of two integers with the sign only in front (`-1/2`, not "
        "`1/-2`; no spaces inside), with surrounding ASCII whitespace allowed and at "
        "most 1000 characters after stripping; return `None` for anything else (exponents, "
        "commas, units, non-ASCII digits or spaces, two signs, a decimal in a fraction, a zero "
        "denominator, a non-string). Do not use `float` or `eval`, nor the course's parsers "
        "(`parse_rational`, `numeric_equivalence`, `compare_with_tolerance`, "
        "`normalised_verdict`): an answer that calls one earns nothing, and the check names "
        "the call."),
    checks_what=N_(
        "Five groups of inputs of your variant (integers, decimals, fractions, texts outside "
        "the space, limits and refusals), each compared as a list with the course's "
        "`parse_rational`, exactly (a float 0.1 is not 1/10). Each group holds malformed "
        "twins of its shape (`--5`, `1/-2`, `3/4.`), so a lenient parser fails most groups; "
        "the grader adds groups of its own."),
    hint=N_("A regular expression with [0-9] (not \\d, which matches Arabic-Indic digits) and "
             "re.fullmatch, one pattern per shape; build decimals as int(whole) + "
             "Fraction(int(digits), 10**len(digits))."),
    draw=_draw_parse,
    checks=lambda groups: tuple(_parse_check(label, inputs) for label, inputs in groups),
    hidden=_parse_hidden,
    refuses=_PARSERS,
)

def _score_gsm8k(completion, reference_solution):
    # The expected values of kp1_score_gsm8k (private, and refused while an answer runs).
    return numeric_equivalence(extract_final_answer(completion),
                               extract_final_answer(reference_solution))


def _gsm8k_makers(rng):
    """Makers of (completion, reference solution) pairs, by the shape the statement names.

    Each maker draws fresh numbers from *rng*; "broken" pairs have a
    reference solution the protocol cannot read (no marker, a unit, a stray
    comma, nothing at all), so the scorer must raise ``ValueError``.
    """
    def commas():
        a, b = rng.randint(4, 9), rng.randint(250, 999)
        return f"{a} * {b} = {a * b:,}\n#### {a * b:,}", f"#### {a * b}"

    def spelling():
        value = rng.choice(PRACTICE_REFERENCES)
        return (f"so the share is #### {_decimal(value)}",
                f"#### {value.numerator}/{value.denominator}")

    def last_marker_right():
        first = rng.randint(2, 60)
        last = first + rng.randint(1, 9)
        return f"#### {first} wait, no.\n#### {last}", f"#### {last}"

    def last_marker_wrong():
        first = rng.randint(2, 60)
        last = first + rng.randint(1, 9)
        return f"#### {first}\nCheck: one box is missing.\n#### {last}", f"#### {first}"

    def wrong():
        value = rng.randint(2, 99)
        return f"#### {value + rng.choice((-1, 1, 10))}", f"#### {value}"

    def no_marker():
        value = rng.randint(2, 99)
        return rng.choice((f"The answer is {value}.", f"So she has {value} apples.",
                           f"{value}")), f"#### {value}"

    def dollars():
        value = rng.randint(2, 99)
        return rng.choice((f"#### ${value}", f"#### {value} dollars", f"#### {value}%")), \
            f"#### {value}"

    def broken():
        value = rng.randint(2, 99)
        return f"#### {value}", rng.choice((
            f"The answer is {value}.", f"#### {value} apples", f"#### {value},0", "",
            f"#### ${value}"))

    return {"commas": commas, "spelling": spelling, "last_marker_right": last_marker_right,
            "last_marker_wrong": last_marker_wrong, "wrong": wrong, "no_marker": no_marker,
            "dollars": dollars, "broken": broken}


#: The shapes of the public pairs, in the order check() shows them.
_GSM8K_PUBLIC = ("commas", "spelling", "last_marker_right", "last_marker_wrong", "no_marker",
                 "dollars", "wrong", "broken")
#: A completion outside the answer space is None, not False; a broken reference raises.
_GSM8K_DISTINCTION = {"no_marker": "None vs False", "dollars": "None vs False",
                      "broken": "ValueError for a broken reference vs False"}


def _draw_gsm8k(rng):
    makers = _gsm8k_makers(rng)
    return tuple((shape, *makers[shape]()) for shape in _GSM8K_PUBLIC)


def _gsm8k_check(completion, reference, distinction=""):
    call = f"score_gsm8k({completion!r}, {reference!r})"
    run = lambda f, c=completion, r=reference: f(c, r)  # noqa: E731
    try:
        expected = _score_gsm8k(completion, reference)
    except ValueError:
        return rejects(call, run, ValueError, distinction=distinction)
    return case(call, run, expected, distinction=distinction)


def _gsm8k_checks(pairs):
    return tuple(_gsm8k_check(completion, reference, _GSM8K_DISTINCTION.get(shape, ""))
                 for shape, completion, reference in pairs)


#: The grader's bundles, (parts, distinction): each holds a True pair next to a False,
#: None or broken one, so that no constant answer and no table of the public pairs passes
#: one; a bundle is marked only with the distinction its other part tests.
_GSM8K_HIDDEN = (
    (("commas", "last_marker_wrong", "wrong"), ""),
    (("spelling", "last_marker_right", "wrong"), ""),
    (("last_marker_right", "commas", "last_marker_wrong"), ""),
    (("spelling", "no_marker", "dollars"), "None vs False"),
    (("commas", "no_marker"), "None vs False"),
    (("spelling", "broken"), "ValueError for a broken reference vs False"),
    (("commas", "broken"), "ValueError for a broken reference vs False"),
)


def _gsm8k_hidden(rng, public):
    makers = _gsm8k_makers(rng)
    seen = {(completion, reference) for _, completion, reference in public}

    def fresh(shape):
        for _ in range(100):
            pair = makers[shape]()
            if pair not in seen:
                seen.add(pair)
                return pair
        raise RuntimeError(f"no fresh {shape} pair")  # cannot happen with these ranges
    checks = []
    for shapes, distinction in _GSM8K_HIDDEN:
        pairs = [fresh(shape) for shape in shapes]
        checks.append(bundle(" and ".join(f"score_gsm8k({c!r}, {r!r})" for c, r in pairs),
                             [_gsm8k_check(c, r) for c, r in pairs], distinction=distinction))
    return tuple(checks)


_GSM8K = Exercise(
    id="kp1_score_gsm8k", notebook=NOTEBOOK, answer_name="score_gsm8k", points=2,
    title=N_("GSM8K's protocol: extract, then compare"),
    statement=N_(
        "Complete `score_gsm8k(completion, reference_solution)`: extract the final answer "
        "after the last `####` from both texts with `extract_final_answer`, then compare "
        "with `numeric_equivalence`. Return its verdict (True / False / None): a completion "
        "without a marker, or with an answer outside the space (`$5`), is `None`, not "
        "`False`. A reference solution without a readable answer is a data bug: let the "
        "`ValueError` through."),
    checks_what=N_("Seven completions of your variant (commas, several markers where the last "
                    "wins, no marker, `$5`, a wrong number) and a broken reference; the grader "
                    "adds pairs of its own. A `None` scored `False`, or a broken reference "
                    "scored instead of raising, caps the exercise at a third of its points."),
    hint=N_("Which function of the course reads the final answer out of a GSM8K text, and "
            "which compares two answers? And when the reference itself cannot be read, whose "
            "error is that, and who should raise it?"),
    draw=_draw_gsm8k,
    checks=_gsm8k_checks,
    hidden=_gsm8k_hidden,
    refuses=(f"{__name__}._score_gsm8k",),
)

def _length_in_metres(text):
    # The expected values of kp1_length_in_metres (private, and refused while an answer runs).
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2 or parts[1] not in METRES_PER_UNIT:
        return None
    number = parse_rational(parts[0])
    return None if number is None else number * METRES_PER_UNIT[parts[1]]


def _length_makers(rng):
    """Makers of texts for kp1_length_in_metres, by kind: lengths, and texts outside."""
    def number():
        p, q = rng.randint(1, 999), rng.randint(2, 9)
        return rng.choice((str(p), f"{p}.{_odd_digits(rng)}", f"{p}/{q}", f"-{p}", f"+{p}",
                           f".{_odd_digits(rng)}"))

    def unit():
        return rng.choice(tuple(METRES_PER_UNIT))

    def exact():  # a decimal or a fraction: a float conversion is not exact
        p, q = rng.randint(1, 999), rng.choice((3, 7, 9, 11))
        return f"{rng.choice((f'{p}.{_odd_digits(rng)}', f'{p}/{q}'))} {unit()}"

    def spaced():
        return rng.choice((f"  {number()}   {unit()} ", f"{number()}\t{unit()}",
                           f"{number()} {unit()}\n"))

    def shape():  # a number and a unit, but not in the declared shape
        n, u = number(), unit()
        return rng.choice((f"{n} {rng.choice(('inches', 'ft', 'M', 'Km', 'metres', 'CM'))}",
                           f"{u}", f"{n}", f"{n} {u} {u}", f"{n} {u} long", f"{u} {n}"))

    def outside():  # the number is outside the answer space, or there is no text at all
        p = rng.randint(1, 999)
        return rng.choice((f"{p}e2 {unit()}", f"1,{p:03d} {unit()}", f"{p}/0 {unit()}",
                           f"--{p} {unit()}", f"{p}. 5 {unit()}", p, None, float(p)))

    return {"exact": exact, "spaced": spaced, "length": lambda: f"{number()} {unit()}",
            "glued": lambda: f"{number()}{unit()}",
            "shape": shape, "outside": outside}


#: The kinds of the twelve public texts: five lengths, seven texts outside the shape.
_LENGTH_PUBLIC = ("length", "exact", "exact", "spaced", "length", "glued", "shape", "shape",
                  "shape", "outside", "outside", "outside")


def _length_check(text):
    return case(f"length_in_metres({text!r})", lambda f, text=text: f(text),
                _length_in_metres(text))


def _draw_length(rng):
    makers = _length_makers(rng)
    texts = []
    while len(texts) < len(_LENGTH_PUBLIC):
        text = makers[_LENGTH_PUBLIC[len(texts)]]()
        if text not in texts:
            texts.append(text)
    rng.shuffle(texts)
    return tuple(texts)


def _length_hidden(rng, public):
    # Six bundles, each two lengths (one exact) and three texts outside (one without the
    # space): a table of the public texts, a constant None, a float conversion or a parser
    # that forgives the missing space fails every one.
    makers = _length_makers(rng)
    seen = set(public)
    checks = []
    for _ in range(6):
        texts = []
        for kind in ("exact", rng.choice(("spaced", "length")), "glued", "shape", "outside"):
            for _ in range(100):
                text = makers[kind]()
                if text not in seen or kind in ("glued", "shape", "outside"):
                    break
            seen.add(text)
            texts.append(text)
        rng.shuffle(texts)
        checks.append(bundle(f"length_in_metres on {', '.join(map(repr, texts))}",
                             [_length_check(text) for text in texts]))
    return tuple(checks)


_LENGTH = Exercise(
    id="kp1_length_in_metres", notebook=NOTEBOOK, answer_name="length_in_metres", points=3,
    title=N_("Stretch: a declared answer space with units"),
    statement=N_(
        "\"100 cm\" and \"1 m\" are equal only after unit conversion. Complete "
        "`length_in_metres(text)`: a number in the course's answer space (use "
        "`parse_rational`), whitespace, then one unit from `mm`, `cm`, `m`, `km`; return the "
        "exact length in metres as a `Fraction`, or `None` for anything else (unknown unit, "
        "missing space, no number, a non-string)."),
    checks_what=N_("12 texts of your variant, compared exactly (Fraction) with a reference "
                    "converter; the grader adds texts of its own, and scores on those."),
    hint=N_("text.split() must give exactly two parts; keep a dict unit -> Fraction metres."),
    draw=_draw_length,
    checks=lambda texts: tuple(_length_check(text) for text in texts),
    hidden=_length_hidden,
    refuses=(f"{__name__}._length_in_metres",),
)

#: The pool of kp1_sort_disagreements: the pairs of the course's corpus, labelled equal or not
#: equal, on which the course's pipeline (every rule, the pair's unit declared) and
#: math-verify 0.9.0 disagree, with math-verify's verdict (pair id, verdict) recorded with
#: 0.9.0; tests/exercises/test_ex01_disagreements.py checks both against the packages. Pairs
#: labelled not equal that both checkers reject (None against False) are left out: neither
#: accepted a wrong answer and both missed nothing, so there is nothing to sort.
DISAGREEMENT_POOL = (
    ("strict-plus", False), ("flexible-check-after", False), ("flexible-more-than", False),
    ("flexible-marker-then-number", False), ("cot-sentence", True), ("cot-negated", True),
    ("cot-equation", True), ("cot-hedge", True), ("cot-comma-clause", True),
    ("cot-final-answer", True), ("boxed-no-marker", True), ("boxed-exponent", False),
    ("math-mixed-number", False), ("math-sum-in-fraction", False),
    ("currency-latex-dollar", False), ("currency-negative", False), ("currency-cents", True),
    ("currency-million", True), ("currency-million-spelled", False), ("units-other", True),
    ("units-converted", False), ("units-centimetres", False), ("units-suffix-of-other", True),
    ("thousands-indian", False), ("thousands-space", True), ("thousands-no-break-space", False),
    ("thousands-apostrophe", False), ("unicode-full-width", False),
    ("unicode-bold-digits", False), ("unicode-arabic-indic", False), ("unicode-minus", False),
    ("unicode-en-dash", False), ("unicode-ideographic-space", True),
    ("unicode-vulgar-half", False), ("precision-seventh-decimal", True),
    ("precision-exponent", False), ("precision-exponent-not-one", True),
)
_MATH_VERIFY = dict(DISAGREEMENT_POOL)

#: The three kinds of disagreement lesson 01 names.
DISAGREEMENT_KINDS = ("format failure", "tolerance", "false positive")

#: How many pairs a variant sorts.
DISAGREEMENTS_PER_VARIANT = 7


def _draw_disagreements(rng):
    """Seven pair ids of the pool: two or three on which math-verify says equal to a pair
    labelled not equal (the table shows both), the rest from the others.

    Drawn by what the statement's table shows, never by the answer: which of the first
    are tolerances is for the learner to decide.
    """
    pairs = {pair.pair_id: pair for pair in answer_pairs([pair_id for pair_id, _ in
                                                         DISAGREEMENT_POOL])}
    lenient = [i for i, verdict in DISAGREEMENT_POOL if verdict and pairs[i].label == NOT_EQUAL]
    others = [i for i, _ in DISAGREEMENT_POOL if i not in lenient]
    first = rng.choice((2, 3))
    items = rng.sample(lenient, first) + rng.sample(others, DISAGREEMENTS_PER_VARIANT - first)
    rng.shuffle(items)
    return tuple(items)


def _disagreement_table(items):
    rows = [_("| pair id | model output | reference | label | course | math-verify |"),
            "|---|---|---|---|---|---|"]
    for pair in answer_pairs(items):
        course = normalised_verdict(pair.output, pair.reference, rules=RULES, units=[pair.unit])
        # Invisible characters (a no-break space) are shown as escapes, the rest as written.
        output = "".join(char if char.isprintable() else f"\\u{ord(char):04x}"
                         for char in pair.output.replace("\n", "\\n"))
        rows.append(f"| `{pair.pair_id}` | `{output}` | `{pair.reference}` ({pair.unit}) "
                    f"| {pair.label} | {course} | {_MATH_VERIFY[pair.pair_id]} |")
    return "\n".join(rows)


def _disagreement_statement(items):
    return (
        _("Lesson 01's *Going further* section (\"A lenient peer: math-verify\") scores "
          "labelled answer pairs with the course's pipeline (`normalised_verdict` with every "
          "rule, the pair's unit declared) and with math-verify 0.9.0. On these {count} pairs "
          "of the course's corpus they disagree:").format(count=len(items)) + "\n\n"
        + _disagreement_table(items)
        + "\n\n"
        + _("Complete `sort_disagreements()` so that it returns a dict mapping each pair id "
            "to the kind of disagreement: `\"format failure\"` (one checker cannot read an "
            "answer as the number it means), `\"tolerance\"` (the lenient checker accepts a "
            "number that is only *close* to the reference) or `\"false positive\"` (it says "
            "equal because it read another number than the one the text means). Type each "
            "kind in (the check reads what your function returns as you typed it: a dict "
            "written out, not computed); decide each one before you run the check. "
            "`task_data(\"kp1_sort_disagreements\")` gives the same pair ids as data."))


def _key_kinds():
    return answer_key().answers(_DISAGREE_ID)


def _disagreement_checks(items):
    compare = withheld_predictions(DISAGREEMENT_KINDS, noun=N_("kind"))

    def check(answer):
        try:
            kinds = _key_kinds()
        except AnswerKeyMissing as missing:
            # Without the key nothing can be judged; the stub is still "not attempted".
            return case("sort_disagreements()", lambda f: f(), Withheld(None, N_("withheld: the "
                        "kinds")), compare=lambda actual, expected: str(missing))(answer)
        expected = Withheld({item: kinds[item] for item in items}, N_("withheld: the kinds"))
        return case("sort_disagreements()", lambda f: f(), expected, compare=compare)(answer)
    check.runs = (lambda f: f(),)  # how it calls the answer (for the grader's plan)
    return (check,)


def _disagreement_why(items):
    kinds, why = _key_kinds(), answer_key().why(_DISAGREE_ID)
    return "\n".join(why_line(item, kinds[item], why.get(item, "")) for item in items)


_DISAGREE_ID = "kp1_sort_disagreements"

# Typed and keyed: the kinds are typed in (a literal, so no answer can compute them with a
# function of the course), and their right values live only in solutions/answer_key.py, the
# instructor's side, so no module of the installed package holds them (not as data, not as a
# function that computes them: the classifier the old exercise shipped is gone). The grader
# reads the key in its own process; its sandbox keeps student code away from the file.
_DISAGREE = Exercise(
    id=_DISAGREE_ID, notebook=NOTEBOOK, answer_name="sort_disagreements", points=2,
    title=N_("Two checkers disagree: format failure, tolerance or false positive?"),
    statement=_disagreement_statement,
    checks_what=N_("All seven at once, as typed in your function. The check answers only "
                    "\"right\" or \"not yet\", never how many are sorted wrong nor which; once "
                    "right, it says why each pair is the kind it is."),
    hint=N_("Take one pair at a time. Which number does the model's text mean, as a person "
             "reads it, and is it the reference's? The label says which checker was right; "
             "then ask what the other one did with the text: not read it at all, read the "
             "number it means and be lenient about it, or read another number."),
    draw=_draw_disagreements,
    checks=_disagreement_checks,
    reveal_expected=False, typed=True, keyed=True,
    solve=lambda items: {item: _key_kinds()[item] for item in items},
    explain=_disagreement_why,
)

#: Knowledge point 1, in course order (warm-up to stretch).
EXERCISES = (_PRACTICE, _CLASSIFY, _GSM8K, _PARSE, _LENGTH, _DISAGREE)

#: Written tasks of knowledge point 1, graded by the instructor with the rubric.
WRITTEN_TASKS = (
    WrittenTask(
        id="kp1_explain_answer_space", notebook=NOTEBOOK, points=6,
        title=N_("The answer space, and None vs False, in words"),
        statement=N_(
            "In a short paragraph (no code), explain to a colleague who wants to score "
            "answers with `==`: what the *declared answer space* of `numeric_equivalence` "
            "is; why `\"0.5 kg\"` against `\"1/2\"` gives `None` while `\"0.5001\"` gives "
            "`False`; who decides how a `None` counts in a benchmark's score, and what goes "
            "wrong when it is silently counted as `False`. End with one *limit* of the "
            "contract from this lesson: a text a human grader would accept that the "
            "contract does not score as correct, and what the task would have to declare "
            "to change that."),
        rubric=(
            Criterion(
                N_("Answer space"),
                N_("what is inside (integers, decimals, a/b as ASCII text), that everything "
                   "else is outside, and that it is declared before comparing"),
                (N_("\"It compares numbers.\" (nothing about what is inside or outside)"),
                 N_("\"Numbers like 0.5 and 1/2 are inside, units are not.\" (an example, not "
                    "the rule, or the rule without saying it is declared up front)"),
                 N_("\"Before comparing, the task declares which texts are answers: integers, "
                    "decimals and a/b in ASCII digits; anything else (units, words, commas) is "
                    "outside.\""))),
            Criterion(
                N_("None vs False, and who decides"),
                N_("None = outside the space (a format question), False = a different number "
                   "inside it; the task's protocol decides how None counts and the report says "
                   "so"),
                (N_("\"None and False both mean wrong.\""),
                 N_("\"0.5 kg is None because of the unit, 0.5001 is False because it is a "
                    "different number.\" (the distinction, but not who decides how None is "
                    "scored or what silent False does)"),
                 N_("\"None: outside the space, a format failure; False: a wrong number. The "
                    "benchmark's protocol decides how None is scored and the report gives the "
                    "count; silently counted as False, format failures look like arithmetic "
                    "errors.\""))),
            Criterion(
                N_("Limit"),
                N_("a concrete text a human would accept that the contract does not, and what "
                   "the task would have to declare (a format, a tolerance)"),
                (N_("no limit, or a wrong one (\"0.5 and 1/2 are not equal\")"),
                 N_("a vague limit (\"formats differ\", \"rounding\") without a concrete text "
                    "or without what to declare"),
                 N_("\"'1,080' against '1080' is None: a thousands comma is outside the space "
                    "(in a reference it even raises ValueError). The task would have to declare "
                    "commas as separators, or strip them when it extracts the answer, and say "
                    "so in the report.\""))),
        ),
    ),
)
