"""The course's verdict beside each harness filter's: where they disagree, and which way.

A filter's verdict on a document is binary (``exact_match`` 1 or 0, as
lm-evaluation-harness records it); the course's has three outcomes. For one
document and one filter, the pair falls into one kind (:data:`KINDS`):

* :data:`AGREE`: both right, or both not right (the filter wrong, the course
  wrong or without an answer);
* :data:`FORMAT`: the filter said right, the course finds **no answer**: the
  reply is outside the declared format (no ``####`` marker, a ``$`` no rule
  declared), and the filter read a number out of it anyway;
* :data:`FILTER_FALSE_NEGATIVE`: the filter said wrong, the course says
  **right**: the filter misread a right answer (``#### 9/2`` read as ``9``
  against 4.5, ``$15.00`` compared with ``15`` as text);
* :data:`FILTER_FALSE_POSITIVE`: the filter said right, the course says
  **wrong**: the filter credited a number the protocol does not read as the
  answer (the first of two markers, the last number of a sentence);
* :data:`UNSCORED`: the reference is not a number; nothing to compare.

>>> disagreement_kind(1.0, "no_answer"), disagreement_kind(0.0, "correct")
('format', 'filter_false_negative')
>>> disagreement_kind(1.0, "wrong"), disagreement_kind(0.0, "no_answer")
('filter_false_positive', 'agree')

Surprising: a filter that is wrong where the course finds no answer
*agrees*: neither gives the point, whatever each of them read.
"""

from reasoneval_mini.evaluation.final_answers import CORRECT, NO_ANSWER, REFERENCE_ERROR, WRONG
from reasoneval_mini.evaluation.lm_eval_samples import HARNESS_METRIC

AGREE = "agree"
FORMAT = "format"
FILTER_FALSE_NEGATIVE = "filter_false_negative"
FILTER_FALSE_POSITIVE = "filter_false_positive"
UNSCORED = "unscored"
#: The kinds, in report order; the three disagreements after :data:`AGREE`.
KINDS = (AGREE, FORMAT, FILTER_FALSE_NEGATIVE, FILTER_FALSE_POSITIVE, UNSCORED)
DISAGREEMENTS = (FORMAT, FILTER_FALSE_NEGATIVE, FILTER_FALSE_POSITIVE)
#: What each disagreement means, for reports.
MEANING = {
    FORMAT: "harness right, course: no answer (format)",
    FILTER_FALSE_NEGATIVE: "harness wrong, course: right (a false negative of the filter)",
    FILTER_FALSE_POSITIVE: "harness right, course: wrong (a false positive of the filter)",
}


def disagreement_kind(harness_value, verdict):
    """The :data:`KINDS` name for a filter's ``exact_match`` (1 or 0) and the course's *verdict*."""
    if verdict == REFERENCE_ERROR:
        return UNSCORED
    harness_right = harness_value == 1
    if harness_right and verdict == NO_ANSWER:
        return FORMAT
    if harness_right and verdict == WRONG:
        return FILTER_FALSE_POSITIVE
    if not harness_right and verdict == CORRECT:
        return FILTER_FALSE_NEGATIVE
    return AGREE


def mark_disagreements(items):
    """Give each filter reading of every item its ``verdict`` and disagreement ``kind`` (in place)."""
    for item in items.values():
        for reading in item.get("harness", {}).values():
            reading["verdict"] = CORRECT if reading[HARNESS_METRIC] == 1 else WRONG
            reading["kind"] = disagreement_kind(reading[HARNESS_METRIC], item["verdict"])


def harness_summary(items):
    """Per filter: its score as the file records it, and the documents of each kind.

    ``{filter: {"documents", "harness_right", "harness_score", "kinds":
    {kind: count}, "ids": {disagreement: [id, ...]}}}``, filters in the order
    the file first names them; *items* must have been through
    :func:`mark_disagreements`. ``harness_score`` is the mean of the
    filter's ``exact_match`` over the documents: the number lm-eval prints.
    """
    filters = list(dict.fromkeys(name for item in items.values()
                                 for name in item.get("harness", {})))
    summary = {}
    for name in filters:
        readings = [(item["id"], item["harness"][name]) for item in items.values()]
        right = sum(reading[HARNESS_METRIC] == 1 for _, reading in readings)
        summary[name] = {
            "documents": len(readings), "harness_right": right,
            "harness_score": right / len(readings),
            "kinds": {kind: sum(reading["kind"] == kind for _, reading in readings)
                      for kind in KINDS},
            "ids": {kind: [i for i, reading in readings if reading["kind"] == kind]
                    for kind in DISAGREEMENTS}}
    return summary
