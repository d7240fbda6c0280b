"""Knowledge point 3: execution records, five terminal states and three rates.

:data:`STATUSES` names the five states every planned sample ends in, once;
:func:`execution_summary` turns one record per planned sample into coverage,
success rate and attempted success rate.
"""

from reasoneval_mini.support.arguments import ArgumentTypeError


PASSED = "passed"
ASSERTION_FAILED = "assertion_failed"
TIMEOUT = "timeout"
RUNTIME_ERROR = "runtime_error"
NOT_RUN = "not_run"

#: Every planned sample ends in exactly one of these, in this order.
STATUSES = (PASSED, ASSERTION_FAILED, TIMEOUT, RUNTIME_ERROR, NOT_RUN)


def execution_summary(records):
    """Summarise one record per planned sample.

    *records* is a non-empty ``list`` of dicts, each with a unique non-empty
    ``str`` ``sample_id`` and a ``status`` from :data:`STATUSES`; other keys
    are ignored. Returns a dict with:

    * ``counts``: every one of the five states, zeros included;
    * ``planned`` (N), ``attempted`` (N - not_run);
    * ``coverage`` = attempted / N;
    * ``success_rate`` = passed / N, over *all* planned samples;
    * ``attempted_success_rate`` = passed / attempted, or ``None`` when
      nothing ran (undefined, which is not the same as 0).

    Raises ``ValueError`` for a non-list or empty input, a row that is not a
    dict, a missing, empty, non-str or duplicate ``sample_id``, or an unknown
    status; the message names the row.

    >>> summary = execution_summary([
    ...     {"sample_id": "s1", "status": "passed"},
    ...     {"sample_id": "s2", "status": "timeout"},
    ...     {"sample_id": "s3", "status": "not_run"}])
    >>> summary["coverage"], summary["success_rate"], summary["attempted_success_rate"]
    (0.6666666666666666, 0.3333333333333333, 0.5)

    Surprising: when nothing ran, the attempted success rate is None, not 0.

    >>> print(execution_summary([{"sample_id": "s1", "status": "not_run"}])
    ...       ["attempted_success_rate"])
    None
    """
    _check_records(records)
    counts = dict.fromkeys(STATUSES, 0)
    for record in records:
        counts[record["status"]] += 1
    planned = len(records)
    attempted = planned - counts[NOT_RUN]
    return {
        "counts": counts,
        "planned": planned,
        "attempted": attempted,
        "coverage": attempted / planned,
        "success_rate": counts[PASSED] / planned,
        "attempted_success_rate": counts[PASSED] / attempted if attempted else None,
    }


def _check_records(records):
    """Raise the errors :func:`execution_summary` documents; the message names the row."""
    if not isinstance(records, list):
        raise ArgumentTypeError(f"records must be a list, got {type(records).__name__}")
    if not records:
        raise ValueError("records is empty: a summary needs at least one planned sample")
    seen = set()
    for index, row in enumerate(records):
        if not isinstance(row, dict):
            raise ArgumentTypeError(f"records[{index}] must be a dict, got {row!r}")
        sample_id = row.get("sample_id")
        if not isinstance(sample_id, str) or not sample_id:
            raise ValueError(
                f"records[{index}] needs a non-empty str sample_id, got {sample_id!r}"
            )
        if sample_id in seen:
            raise ValueError(
                f"records[{index}] repeats sample_id {sample_id!r}: "
                "one record per planned sample"
            )
        status = row.get("status")
        if not isinstance(status, str) or status not in STATUSES:
            raise ValueError(
                f"records[{index}] (sample_id {sample_id!r}) has status {status!r}; "
                f"expected one of {', '.join(STATUSES)}"
            )
        seen.add(sample_id)
