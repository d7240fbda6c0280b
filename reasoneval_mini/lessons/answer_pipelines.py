"""Four ways to score a final answer, side by side (lesson 01).

The same pair of strings can be right, wrong or unreadable depending on the
scorer. This module runs four scorers on the same pairs so the lesson can
show where they disagree:

* ``exact_match``: plain string equality after stripping whitespace;
* ``gsm8k_regex``: GSM8K's own code (:func:`gsm8k_extract_answer`): the
  *first* ``#### `` followed by an optional minus and a run of digits, dots
  and commas, commas removed, compared *as strings* like its ``is_correct``;
* ``course_marker``: the course's :func:`extract_final_answer` (the rest of
  the line after the *last* ``####``, commas of valid thousands groups
  removed), compared as strings;
* ``exact_rational``: :func:`numeric_equivalence` on the raw answers, which
  says ``None`` for anything outside the declared answer space.

It also compares the declared answer space with whatever this Python's
``fractions.Fraction`` happens to accept (that grammar changes by version),
and scores a batch of model outputs on word problems with GSM8K's protocol,
two ways (:func:`score_final_answers`).
"""

import re
import textwrap
from fractions import Fraction

from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.answers import (
    GSM8K_MARKER,
    extract_final_answer,
    numeric_equivalence,
    parse_rational,
)


#: The four scorers, in the order the lesson shows them.
PIPELINES = ("exact_match", "gsm8k_regex", "course_marker", "exact_rational")

#: GSM8K's answer pattern, as in its ``grade_school_math/dataset.py``.
GSM8K_ANSWER_PATTERN = re.compile(r"#### (\-?[0-9\.\,]+)")

#: What GSM8K's ``extract_answer`` returns when the pattern is not found.
GSM8K_INVALID = "[invalid]"

#: Realistic (prediction, reference) pairs on which the scorers disagree.
REALISTIC_ANSWERS = (
    ("42", "42"),
    ("0.5", "1/2"),
    ("1,000", "1000"),
    ("$5", "5"),
    ("5.00", "5"),
    ("-0", "0"),
    ("1/3", "1/2"),
    ("0.333333", "1/3"),
    ("1e3", "1000"),
    ("½", "1/2"),
    ("50%", "50"),
    ("5 apples", "5"),
)

#: Strings whose meaning for ``Fraction(text)`` depends on the Python version.
VERSION_SENSITIVE_TEXTS = ("3 / 4", "1_000", "1e3", "١٢", "0.5", "½")


def _require_str(name, value):
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be a str, got {type(value).__name__}: {value!r}")


def gsm8k_extract_answer(text):
    """GSM8K's own extraction: the first match of :data:`GSM8K_ANSWER_PATTERN`.

    Returns the matched run with commas removed, or :data:`GSM8K_INVALID`
    when no ``#### `` is followed by a digit, dot, comma or minus. Unlike
    :func:`extract_final_answer` it takes the *first* marker and stops at
    the first character outside ``-0-9.,``, so a unit or a percent sign is
    silently cut off. Raises ``ValueError`` if *text* is not a ``str``.

    >>> gsm8k_extract_answer("#### 1,080")
    '1080'

    Surprising: whatever follows the number is dropped, and the first marker wins.

    >>> gsm8k_extract_answer("#### 5 apples"), gsm8k_extract_answer("#### 50%")
    ('5', '50')
    >>> gsm8k_extract_answer("#### 3\\n#### 4"), gsm8k_extract_answer("#### $5")
    ('3', '[invalid]')
    """
    _require_str("text", text)
    match = GSM8K_ANSWER_PATTERN.search(text)
    if match is None:
        return GSM8K_INVALID
    return match.group(1).strip().replace(",", "")


def compare_answer_pipelines(prediction, reference):
    """The verdict of each of :data:`PIPELINES` on one pair of final-answer texts, prediction vs reference.

    Both arguments are the final-answer texts (what a model wrote after
    ``####`` and the data set's answer). Returns a dict with the two inputs
    and one verdict per pipeline: ``True``/``False`` for the string scorers,
    ``True``/``False``/``None`` for ``exact_rational``. Each marker scorer
    puts ``#### `` in front of both texts and extracts as its code does.

    Raises ``ValueError`` if either argument is not a ``str``, or (from
    :func:`numeric_equivalence`) if the reference is outside the answer space.

    >>> row = compare_answer_pipelines("1,000", "1000")
    >>> [row[name] for name in PIPELINES]
    [False, True, True, None]

    Surprising: GSM8K's regex says yes to ``5 apples`` (it stops at the
    space), and the one scorer that knows ``-0`` is ``0`` is the strictest.

    >>> [compare_answer_pipelines("5 apples", "5")[name] for name in PIPELINES]
    [False, True, False, None]
    >>> [compare_answer_pipelines("-0", "0")[name] for name in PIPELINES]
    [False, False, False, True]
    """
    _require_str("prediction", prediction)
    _require_str("reference", reference)
    extracted = extract_final_answer(f"{GSM8K_MARKER} {prediction}")
    expected = extract_final_answer(f"{GSM8K_MARKER} {reference}")
    return {
        "prediction": prediction,
        "reference": reference,
        "exact_match": prediction.strip() == reference.strip(),
        "gsm8k_regex": (gsm8k_extract_answer(f"{GSM8K_MARKER} {prediction}")
                        == gsm8k_extract_answer(f"{GSM8K_MARKER} {reference}")),
        "course_marker": extracted == expected,
        "exact_rational": numeric_equivalence(prediction, reference),
    }


def compare_many_answers(pairs=REALISTIC_ANSWERS):
    """One :func:`compare_answer_pipelines` row per (prediction, reference) pair, in the pairs' order.

    Raises ``ValueError`` naming the position of the first pair that is not
    a 2-item sequence; nothing is silently skipped.

    >>> len(compare_many_answers()) == len(REALISTIC_ANSWERS)
    True
    """
    rows = []
    for index, pair in enumerate(pairs):
        if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"pairs[{index}] must be (prediction, reference), got {pair!r}")
        rows.append(compare_answer_pipelines(*pair))
    return rows


def format_table(header, rows, *, last_column_width=None):
    """Return *rows* (sequences of values) as an aligned plain-text table.

    With *last_column_width* (an int >= 10), a longer text in the last column
    is wrapped at words onto lines of its own, the other columns left blank:
    JupyterLab breaks an output line that is wider than the page anywhere,
    even mid-word. ``ValueError`` for a width that is not such an int.

    >>> print(format_table(("a", "bb"), [(1, None)]))
    a  bb
    -  ----
    1  None

    Surprising: the header's own dashes follow the wrapped width, not the longest text.

    >>> print(format_table(("id", "note"), [(1, "one two three four")], last_column_width=10))
    id  note
    --  ----------
    1   one two
        three four
    """
    if last_column_width is not None and (type(last_column_width) is not int
                                          or last_column_width < 10):
        raise ValueError(f"last_column_width must be an int >= 10, got {last_column_width!r}")
    cells = [[str(value) for value in row] for row in [header, *rows]]
    if last_column_width is not None:
        wrapped = [cells[0]]
        for row in cells[1:]:
            parts = textwrap.wrap(row[-1], last_column_width, break_long_words=False) or [""]
            wrapped.append([*row[:-1], parts[0]])
            wrapped += [[""] * (len(row) - 1) + [part] for part in parts[1:]]
        cells = wrapped
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_pipeline_table(rows):
    """Format rows from :func:`compare_many_answers` as a text table."""
    header = ("prediction", "reference", *PIPELINES)
    return format_table(header, [[row[key] for key in header] for row in rows])


def _describe_fraction(text):
    try:
        return str(Fraction(text))
    except (ValueError, ZeroDivisionError) as error:
        return type(error).__name__


def compare_fraction_grammar(texts=VERSION_SENSITIVE_TEXTS):
    """Per text: what *this* Python's ``Fraction(text)`` reads, beside :func:`parse_rational`'s reading.

    Returns a list of ``(text, fraction_result, declared_result)`` strings,
    where an error is shown by its type name and "outside the space" as
    ``"None"``. The second column depends on the Python version; the third
    does not. Raises ``ValueError`` for a text that is not a ``str``.

    >>> compare_fraction_grammar(["1e3"])
    [('1e3', '1000', 'None')]
    """
    rows = []
    for text in texts:
        _require_str("text", text)
        rows.append((text, _describe_fraction(text), str(parse_rational(text))))
    return rows


#: Names for the three verdicts of :func:`numeric_equivalence`.
VERDICT_NAMES = {True: "correct", False: "wrong", None: "format_failure"}


def score_final_answers(problems):
    """Return one row per model output, scored against the problem's solution.

    *problems* is a list of word problems as returned by
    :func:`reasoneval_mini.datasets.word_problems.load_word_problems`. For each
    output, the answer after the last ``####`` is extracted from both the
    output and the reference solution, and compared two ways:

    * ``string_match``: GSM8K's own check, equality of the extracted text;
    * ``verdict``: :func:`numeric_equivalence` on the extracted text:
      ``True``, ``False``, or ``None`` (format failure, also when the output
      has no ``####`` marker at all).

    Each row holds ``problem_id``, ``style``, ``extracted`` (``None`` when
    there is no marker), ``reference``, ``string_match``, ``verdict`` and
    ``hand_label``.

    >>> problem = {"id": "p", "solution": "#### 2.5", "outputs": [
    ...     {"style": "fraction", "text": "#### 5/2", "hand_label": True}]}
    >>> row = score_final_answers([problem])[0]
    >>> row["string_match"], row["verdict"]
    (False, True)
    """
    rows = []
    for problem in problems:
        reference = extract_final_answer(problem["solution"])
        for output in problem["outputs"]:
            extracted = extract_final_answer(output["text"])
            rows.append({
                "problem_id": problem["id"],
                "style": output["style"],
                "extracted": extracted,
                "reference": reference,
                "string_match": extracted == reference,
                "verdict": numeric_equivalence(extracted, reference),
                "hand_label": output["hand_label"],
            })
    return rows


def count_verdicts(rows):
    """Count rows by verdict: ``{"correct": .., "wrong": .., "format_failure": ..}``.

    Format failures are counted, never folded into "wrong": they say the
    output broke the protocol, not that the model computed a wrong number.
    Raises ``ValueError`` for a row whose ``verdict`` is not True/False/None.

    >>> count_verdicts([{"verdict": True}, {"verdict": None}, {"verdict": None}])
    {'correct': 1, 'wrong': 0, 'format_failure': 2}
    """
    counts = dict.fromkeys(VERDICT_NAMES.values(), 0)
    for index, row in enumerate(rows):
        verdict = row.get("verdict", "missing")
        if type(verdict) not in (bool, type(None)):  # 1 == True, but 1 is no verdict
            raise ValueError(f"rows[{index}] has verdict {verdict!r}; expected True, False or None")
        counts[VERDICT_NAMES[verdict]] += 1
    return counts
