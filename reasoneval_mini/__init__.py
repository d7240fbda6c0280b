"""reasoneval_mini: the small library behind the reasoneval-course lessons.

Start with the three knowledge points, one file each, at the top of the package:

1. ``answers.py``: final answers. :func:`parse_rational` (the declared answer
   space), :func:`numeric_equivalence`, :func:`compare_with_tolerance`,
   :func:`extract_final_answer`, :func:`remove_thousands_separators`; and beside
   it ``normalise.py``, the declared step that widens the answer space
   (:func:`normalise_answer`);
2. ``estimators.py``: pass@k, :func:`pass_at_k`, :func:`pass_at_k_by_enumeration`,
   :func:`plugin_pass_at_k`, :func:`mean_pass_at_k`, and how sure a mean is:
   :func:`pass_at_k_interval`, :func:`paired_pass_at_k_difference`;
3. ``records.py``: :data:`STATUSES` and :func:`execution_summary`.

Running programs (``executor/``): :func:`execute_program`,
:func:`execute_samples`, :class:`ExecutionResult`; HumanEval from the installed
package (``datasets/``): :func:`load_humaneval`, :func:`build_humaneval_program`.

The rest serves the course: ``lessons/`` (explorers, plots, simulations the
notebooks use), ``exercises/`` (checks, the exercise sets, the notebook
builder), ``grading/`` (grading a class), ``feedback.py`` (``check``, ``hint``,
``progress`` in a notebook), ``cli/`` (``reasoneval-course``) and ``support/``
(small helpers every layer shares). Each layer imports only from the ones
listed before it.

The names below are loaded on first use, so that ``import reasoneval_mini``
(and ``reasoneval-course --help``) does not start the executor's machinery.
"""

from reasoneval_mini.support.exports import lazy_exports

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_PUBLIC = {
    "GSM8K_MARKER": "answers",
    "MAX_ANSWER_LENGTH": "answers",
    "compare_with_tolerance": "answers",
    "extract_final_answer": "answers",
    "numeric_equivalence": "answers",
    "parse_rational": "answers",
    "remove_thousands_separators": "answers",
    "normalise_answer": "normalise",
    "normalised_verdict": "normalise",
    "MAX_ENUMERATED_SUBSETS": "estimators",
    "mean_pass_at_k": "estimators",
    "pass_at_k": "estimators",
    "pass_at_k_by_enumeration": "estimators",
    "plugin_pass_at_k": "estimators",
    "pass_at_k_interval": "estimators",
    "paired_pass_at_k_difference": "estimators",
    "PassAtKInterval": "estimators",
    "ASSERTION_FAILED": "records",
    "NOT_RUN": "records",
    "PASSED": "records",
    "RUNTIME_ERROR": "records",
    "STATUSES": "records",
    "TIMEOUT": "records",
    "execution_summary": "records",
    "ExecutionResult": "executor",
    "execute_program": "executor",
    "execute_samples": "executor",
    "build_humaneval_program": "datasets.humaneval",
    "load_humaneval": "datasets.humaneval",
}

__all__ = sorted(_PUBLIC)


__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC)
