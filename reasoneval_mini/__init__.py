"""reasoneval_mini: the small library behind the reasoneval-course lessons.

Three knowledge points, each a contract you can call and test:

1. final answers: :func:`numeric_equivalence`, :func:`extract_final_answer`,
   :func:`compare_with_tolerance`;
2. pass@k: :func:`pass_at_k`, :func:`pass_at_k_by_enumeration`,
   :func:`plugin_pass_at_k`, :func:`mean_pass_at_k`;
3. execution records: :data:`STATUSES`, :func:`execution_summary`; running
   programs: :func:`execute_program`, :func:`execute_samples`,
   :func:`load_humaneval`, :func:`build_humaneval_program`.
"""

from reasoneval_mini.answers import compare_with_tolerance
from reasoneval_mini.pass_at_k import MAX_ENUMERATED_SUBSETS, pass_at_k_by_enumeration
from reasoneval_mini.executor.program import ExecutionResult, execute_program
from reasoneval_mini.executor.samples import execute_samples
from reasoneval_mini.records import execution_summary
from reasoneval_mini.answers import GSM8K_MARKER, extract_final_answer
from reasoneval_mini.datasets.humaneval import build_humaneval_program, load_humaneval
from reasoneval_mini.answers import numeric_equivalence
from reasoneval_mini.answers import MAX_ANSWER_LENGTH, parse_rational
from reasoneval_mini.pass_at_k import mean_pass_at_k, pass_at_k, plugin_pass_at_k
from reasoneval_mini.records import (
    ASSERTION_FAILED,
    NOT_RUN,
    PASSED,
    RUNTIME_ERROR,
    STATUSES,
    TIMEOUT,
)

__version__ = "0.1.0"

__all__ = [
    "ASSERTION_FAILED",
    "ExecutionResult",
    "GSM8K_MARKER",
    "MAX_ANSWER_LENGTH",
    "MAX_ENUMERATED_SUBSETS",
    "NOT_RUN",
    "PASSED",
    "RUNTIME_ERROR",
    "STATUSES",
    "TIMEOUT",
    "build_humaneval_program",
    "compare_with_tolerance",
    "execute_program",
    "execute_samples",
    "execution_summary",
    "extract_final_answer",
    "load_humaneval",
    "mean_pass_at_k",
    "numeric_equivalence",
    "parse_rational",
    "pass_at_k",
    "pass_at_k_by_enumeration",
    "plugin_pass_at_k",
]
