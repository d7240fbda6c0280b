"""Score model outputs on word problems with GSM8K's protocol, two ways."""

from .extract_final_answer import extract_final_answer
from .numeric_equivalence import numeric_equivalence

#: Names for the three verdicts of :func:`numeric_equivalence`.
VERDICT_NAMES = {True: "correct", False: "wrong", None: "format_failure"}


def score_final_answers(problems):
    """Return one row per model output, scored against the problem's solution.

    *problems* is a list of word problems as returned by
    :func:`reasoneval_mini.load_word_problems.load_word_problems`. For each
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
