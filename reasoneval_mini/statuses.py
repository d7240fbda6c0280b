"""The five terminal states of one planned sample, defined once."""

PASSED = "passed"
ASSERTION_FAILED = "assertion_failed"
TIMEOUT = "timeout"
RUNTIME_ERROR = "runtime_error"
NOT_RUN = "not_run"

#: Every planned sample ends in exactly one of these, in this order.
STATUSES = (PASSED, ASSERTION_FAILED, TIMEOUT, RUNTIME_ERROR, NOT_RUN)
