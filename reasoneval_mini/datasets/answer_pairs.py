r"""Labelled answer pairs in the shapes real harnesses meet, written for this course.

Each :class:`AnswerPair` is a short model output, the reference answer (in the
declared answer space), the unit the task states its answer in, and a label
given by hand *before* any checker ran: :data:`EQUAL`, :data:`NOT_EQUAL` or
:data:`AMBIGUOUS` (the task would have to declare something first, such as a
tolerance or a currency). The pairs are grouped by the failure kind they
reproduce (:data:`KINDS`):

* ``strict_marker``: lm-evaluation-harness's strict GSM8K match wants
  ``#### `` followed by ``-``, digits, dots and commas; ``####18``, a sign or a
  dollar after the marker miss it;
* ``flexible_last_number``: its flexible extraction takes the last number in
  the text, which after a chain of thought is often not the answer;
* ``chain_of_thought_ending``: the answer in a sentence, a hedge, a model that
  goes on to write the next question;
* ``boxed_latex``: MATH-style ``\boxed{}``, ``$…$``, ``\frac`` and ``\dfrac``;
* ``currency``, ``units``, ``thousands_separator``, ``unicode``: the symbols,
  words, separators and characters that surround numbers;
* ``precision``: answers that are close, or mean a different number in another
  notation (``1e3``).

The corpus is written by us from the documented failure kinds, not copied
from any data set. The tests score every pair under every rule set;
:data:`LESSON_SLICE` is the part lesson 01 runs.
"""

from typing import NamedTuple

EQUAL = "equal"
NOT_EQUAL = "not_equal"
AMBIGUOUS = "ambiguous"
#: The three hand labels.
LABELS = (EQUAL, NOT_EQUAL, AMBIGUOUS)

KINDS = ("strict_marker", "flexible_last_number", "chain_of_thought_ending", "boxed_latex",
         "currency", "units", "thousands_separator", "unicode", "precision")


class AnswerPair(NamedTuple):
    """One labelled pair: what the model wrote against the reference."""

    pair_id: str
    kind: str
    output: str
    reference: str
    unit: str
    label: str


_P = AnswerPair

ANSWER_PAIRS = (
    # strict_marker
    _P("strict-plain", "strict_marker", "12 + 6 = 18\n#### 18", "18", "apples", EQUAL),
    _P("strict-no-space", "strict_marker", "12 + 6 = 18\n####18", "18", "apples", EQUAL),
    _P("strict-plus", "strict_marker", "#### +18", "18", "apples", EQUAL),
    _P("strict-trailing-point", "strict_marker", "#### 18.", "18", "apples", EQUAL),
    _P("strict-decimal-zeros", "strict_marker", "#### 18.00", "18", "dollars", EQUAL),
    _P("strict-negative", "strict_marker", "#### -5", "5", "degrees", NOT_EQUAL),
    _P("strict-negative-zero", "strict_marker", "#### -0", "0", "degrees", EQUAL),
    _P("strict-fraction", "strict_marker", "#### 3/4", "0.75", "cups", EQUAL),
    _P("strict-wrong", "strict_marker", "#### 17", "18", "apples", NOT_EQUAL),
    # flexible_last_number
    _P("flexible-check-after", "flexible_last_number",
       "She has 18 apples. Check: 18 - 3 = 15 for Tom.", "18", "apples", EQUAL),
    _P("flexible-more-than", "flexible_last_number",
       "So she has 18 apples left, 3 more than Tom.", "18", "apples", EQUAL),
    _P("flexible-marker-then-number", "flexible_last_number",
       "#### 18\nThat is 3 more than Tom's 15.", "18", "apples", EQUAL),
    _P("flexible-last-marker-wins", "flexible_last_number",
       "#### 3\nWait, I forgot the last box.\n#### 4", "3", "boxes", NOT_EQUAL),
    _P("flexible-next-question", "flexible_last_number",
       "#### 18\n\nQuestion: Tom has 4 pens and buys 3 more.\n#### 7", "18", "apples", AMBIGUOUS),
    # chain_of_thought_ending
    _P("cot-sentence", "chain_of_thought_ending", "The answer is 18.", "18", "apples", EQUAL),
    _P("cot-negated", "chain_of_thought_ending", "The answer is not 18.", "18", "apples", NOT_EQUAL),
    _P("cot-equation", "chain_of_thought_ending", "#### x = 18", "18", "apples", EQUAL),
    _P("cot-hedge", "chain_of_thought_ending", "#### 17 or 18", "18", "apples", NOT_EQUAL),
    _P("cot-comma-clause", "chain_of_thought_ending", "#### 18, since 12 + 6 = 18", "18", "apples", EQUAL),
    _P("cot-final-answer", "chain_of_thought_ending", "Final answer: 18", "18", "apples", EQUAL),
    # boxed_latex
    _P("boxed-plain", "boxed_latex", "#### \\boxed{18}", "18", "apples", EQUAL),
    _P("boxed-in-math", "boxed_latex", "#### $\\boxed{18}$", "18", "apples", EQUAL),
    _P("boxed-no-marker", "boxed_latex", "Therefore the answer is $\\boxed{18}$.", "18", "apples", EQUAL),
    _P("boxed-fraction", "boxed_latex", "#### \\boxed{\\frac{3}{4}}", "3/4", "cups", EQUAL),
    _P("boxed-negative-dfrac", "boxed_latex", "#### $\\boxed{-\\dfrac{1}{2}}$", "-1/2", "degrees", EQUAL),
    _P("boxed-exponent", "boxed_latex", "#### \\boxed{1e3}", "1000", "grams", EQUAL),
    _P("math-fraction", "boxed_latex", "#### $\\frac{3}{4}$", "3/4", "cups", EQUAL),
    _P("math-fraction-reduced", "boxed_latex", "#### \\frac{6}{8}", "3/4", "cups", EQUAL),
    _P("math-fraction-upside-down", "boxed_latex", "#### \\frac{3}{4}", "4/3", "cups", NOT_EQUAL),
    _P("math-mixed-number", "boxed_latex", "#### 2\\frac{1}{2}", "5/2", "cups", EQUAL),
    _P("math-mixed-number-read-as-digits", "boxed_latex", "#### 2\\frac{1}{2}", "21/2", "cups", NOT_EQUAL),
    _P("math-sum-in-fraction", "boxed_latex", "#### \\frac{1+2}{3}", "1", "cups", EQUAL),
    _P("math-dollars", "boxed_latex", "#### $5$", "5", "pens", EQUAL),
    # currency
    _P("currency-dollar", "currency", "#### $18", "18", "dollars", EQUAL),
    _P("currency-latex-dollar", "currency", "#### \\$18", "18", "dollars", EQUAL),
    _P("currency-negative", "currency", "#### -$5", "-5", "dollars", EQUAL),
    _P("currency-code-after", "currency", "#### 18 USD", "18", "dollars", EQUAL),
    _P("currency-code-before", "currency", "#### USD 18", "18", "dollars", EQUAL),
    _P("currency-thousands-cents", "currency", "#### $1,080.50", "1080.5", "dollars", EQUAL),
    _P("currency-other-sign", "currency", "#### €5", "5", "dollars", AMBIGUOUS),
    _P("currency-cents", "currency", "#### 50¢", "50", "dollars", NOT_EQUAL),
    _P("currency-million", "currency", "#### $18 million", "18", "dollars", NOT_EQUAL),
    _P("currency-million-spelled", "currency", "#### $18 million", "18000000", "dollars", EQUAL),
    # units
    _P("units-declared", "units", "#### 5 kg", "5", "kg", EQUAL),
    _P("units-glued", "units", "#### 5kg", "5", "kg", EQUAL),
    _P("units-other", "units", "#### 5 g", "5", "kg", NOT_EQUAL),
    _P("units-converted", "units", "#### 500 g", "0.5", "kg", EQUAL),
    _P("units-centimetres", "units", "#### 100 cm", "1", "m", EQUAL),
    _P("units-suffix-of-other", "units", "#### 1 cm", "1", "m", NOT_EQUAL),
    _P("units-word", "units", "#### 18 apples", "18", "apples", EQUAL),
    _P("units-minutes-thousands", "units", "#### 1,080 minutes", "1080", "minutes", EQUAL),
    _P("units-percent", "units", "#### 50%", "50", "%", EQUAL),
    # thousands_separator
    _P("thousands-valid", "thousands_separator", "#### 1,000", "1000", "dollars", EQUAL),
    _P("thousands-long", "thousands_separator", "#### 12,345,678", "12345678", "dollars", EQUAL),
    _P("thousands-one-two", "thousands_separator", "#### 1,2", "12", "apples", NOT_EQUAL),
    _P("thousands-five-zero", "thousands_separator", "#### 5,0", "50", "apples", NOT_EQUAL),
    _P("thousands-one-five", "thousands_separator", "#### 1,5", "15", "apples", NOT_EQUAL),
    _P("thousands-decimal-comma", "thousands_separator", "#### 1,5", "1.5", "litres", AMBIGUOUS),
    _P("thousands-four-digits", "thousands_separator", "#### 1,0000", "10000", "dollars", NOT_EQUAL),
    _P("thousands-indian", "thousands_separator", "#### 1,00,000", "100000", "rupees", EQUAL),
    _P("thousands-space", "thousands_separator", "#### 1 000", "1000", "dollars", EQUAL),
    _P("thousands-no-break-space", "thousands_separator", "#### 1\u00a0000", "1000", "dollars", EQUAL),
    _P("thousands-apostrophe", "thousands_separator", "#### 1'000", "1000", "francs", EQUAL),
    _P("thousands-dot", "thousands_separator", "#### 1.000", "1000", "euros", AMBIGUOUS),
    # unicode
    _P("unicode-full-width", "unicode", "#### １８", "18", "apples", EQUAL),
    _P("unicode-bold-digits", "unicode", "#### \U0001d7cf\U0001d7d6", "18", "apples", EQUAL),
    _P("unicode-arabic-indic", "unicode", "#### ١٨", "18", "apples", EQUAL),
    _P("unicode-minus", "unicode", "#### \u22125", "-5", "degrees", EQUAL),
    _P("unicode-minus-against-positive", "unicode", "#### \u22125", "5", "degrees", NOT_EQUAL),
    _P("unicode-en-dash", "unicode", "#### \u20135", "-5", "degrees", EQUAL),
    _P("unicode-superscript", "unicode", "#### 10²", "102", "apples", NOT_EQUAL),
    _P("unicode-ideographic-space", "unicode", "#### \u300018", "18", "apples", EQUAL),
    _P("unicode-vulgar-half", "unicode", "#### ½", "1/2", "cups", EQUAL),
    # precision
    _P("precision-seventh-decimal", "precision", "#### 0.5000001", "1/2", "litres", NOT_EQUAL),
    _P("precision-rounded-third", "precision", "#### 0.33", "1/3", "litres", AMBIGUOUS),
    _P("precision-exponent", "precision", "#### 1e3", "1000", "grams", EQUAL),
    _P("precision-exponent-not-one", "precision", "#### 1e3", "1", "grams", NOT_EQUAL),
    _P("precision-exact-decimal", "precision", "#### 0.1", "1/10", "litres", EQUAL),
)

#: The pairs lesson 01 runs both checkers on (by ``pair_id``).
LESSON_SLICE = (
    "strict-no-space", "flexible-more-than", "cot-negated", "boxed-in-math",
    "boxed-exponent", "math-mixed-number-read-as-digits", "currency-dollar", "currency-cents",
    "units-declared", "units-centimetres", "thousands-valid", "thousands-one-two",
    "thousands-no-break-space", "thousands-apostrophe", "unicode-full-width", "unicode-minus",
    "precision-seventh-decimal", "precision-exponent-not-one",
)


def answer_pairs(pair_ids=None):
    """Return the labelled pairs, all of them or those named in *pair_ids*, in that order.

    Raises ``ValueError`` naming an unknown id; *pair_ids* must be a
    collection of strings, not one string.

    >>> [pair.label for pair in answer_pairs(["thousands-one-two", "thousands-valid"])]
    ['not_equal', 'equal']
    """
    if pair_ids is None:
        return list(ANSWER_PAIRS)
    if isinstance(pair_ids, str):
        raise ValueError(f"pair_ids must be a collection of ids, not the single string {pair_ids!r}")
    by_id = {pair.pair_id: pair for pair in ANSWER_PAIRS}
    unknown = [pair_id for pair_id in pair_ids if pair_id not in by_id]
    if unknown:
        raise ValueError(f"unknown answer pair ids {unknown!r}; see ANSWER_PAIRS")
    return [by_id[pair_id] for pair_id in pair_ids]
