"""Reading a learner's notebook and running its cells under the watchdog."""

import json
import time

import pytest


@pytest.mark.parametrize("text, words", [
    ("[]", "JSON but not a notebook"),
    ('{"cells": [', "not valid notebook JSON .line 1, column 12"),
    ("\u00ff", "cannot be read: 'utf-8' codec can't decode"),
])
def test_parse_cells_names_the_file_and_the_problem(text, words):
    from reasoneval_mini.grading.notebooks import NotebookError, parse_cells

    with pytest.raises(NotebookError, match=words) as info:
        parse_cells(text.encode("latin-1"), "ex01_add.ipynb")
    assert "ex01_add.ipynb" in str(info.value)


def test_parse_cells_accepts_source_as_one_string_and_numbers_all_cells():
    from reasoneval_mini.grading.notebooks import parse_cells

    data = json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["# ", "title"]},
        {"cell_type": "code", "source": "x = 1"}, "not a cell"]}).encode("utf-8")
    assert parse_cells(data, "n.ipynb") == ([(2, "x = 1")], [(1, "# title")])


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no SIGALRM")
def test_watchdog_reports_errors_exits_and_loops_that_swallow_alarms():
    from reasoneval_mini.runner.child import StepTimeout, Watchdog, failure_facts

    dog = Watchdog(0.2)

    def text(thunk):
        """What a failed cell's record says of *thunk* run under the watchdog (None: it did not fail)."""
        error = dog.run(thunk)
        return None if error is None else failure_facts(error, "<cell>", dog)["text"]

    assert text(lambda: None) is None
    assert text(lambda: int("x")).startswith("ValueError: invalid literal")
    assert text(lambda: exit(3)) == "SystemExit: 3"

    def swallows_three_alarms():
        for _ in range(3):
            try:
                while True:
                    pass
            except BaseException:
                pass
        while True:  # and the fourth ends it
            pass

    start = time.monotonic()
    error = dog.run(swallows_three_alarms)
    assert isinstance(error, StepTimeout) and dog.alarms == 4
    assert time.monotonic() - start < 2
    assert dog.stubborn(error)  # the child holds such a step for the caller to end
    assert not dog.stubborn(dog.run(lambda: exec("while True: pass")))  # the first alarm ended it
    assert dog.alarms == 1
    assert text(swallows_three_alarms) == dog.timeout_text() == "did not finish within 0.2 s (endless loop?)"
    assert failure_facts(StepTimeout(), "<cell>", dog)["timeout"] is True


SWALLOWS_THREE_ALARMS_THEN_FINISHES = """\
for _ in range(3):
    try:
        while True:
            pass
    except BaseException:
        pass
def add_numbers(a, b):
    return a + b
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="no SIGALRM")
def test_a_cell_that_swallows_its_alarms_and_then_finishes_is_recorded_as_timed_out():
    # It ran past its step's time: the record says so, though the cell ended by itself.
    from submission_class import FAKE_REGISTRY

    from reasoneval_mini.grading.process import ENDING_DONE, GradingJob, Task, run_grading_process
    from reasoneval_mini.sandbox.policy import plan_isolation

    seen = {}

    def judge(exercise_id, defined, answer, failures):
        seen.update(defined=defined, value=answer(2, 3), failures=failures)
        return {"status": "passed", "message": "", "checks": []}

    task = Task("ex01_add.ipynb", ((4, SWALLOWS_THREE_ALARMS_THEN_FINISHES),), {"add": "add_numbers"})
    run = run_grading_process(GradingJob(str(FAKE_REGISTRY), None, 0.2, plan_isolation("off")),
                              [task], judge)
    assert (run.ending, seen["defined"], seen["value"]) == (ENDING_DONE, True, 5)
    assert [(f.cell, f.kind, f.message) for f in seen["failures"]] == [
        (4, "timeout", "did not finish within 0.2 s (endless loop?)")]


# -- the cell converter: IPython's meaning, in time linear in the cell ----------------------

IPYTHON_CELLS = [
    "%matplotlib inline\nx = 1",
    "!ls -la\nfiles = !ls\nprint(files)\n",
    "x = %time 1 + 1\ny = 2\n",
    "len?\nx = 1\nlen??\n",
    "for i in range(3):\n    %time print(i)\n    !echo {i}\n",
    "y = (\n    7\n    % 2\n)\n!echo hi\n",
    ">>> x = 1\n>>> %ls\n",
    "   %ls\n   x = 1\n",
    "%%bash\necho hi\n",
    "def f():\n    return 1\n%time f()\nf?\n",
    "s = '''\n%ls\n'''\n%ls\n",
    "/print 1, 2\n,print a b\n;print c\n",
    "x = 1 + \\\n  2\n%ls \\\n  -a\n",
    "%ls\nx = (1,\n%pwd\n",
    "if True:\n    x = !ls\nelse:\n    %pwd\n",
    "%ls\n" * 40 + "x = 1\n",
    "%ls\ns = '''unclosed\n%pwd\n",
]


@pytest.mark.parametrize("source", IPYTHON_CELLS, ids=range(len(IPYTHON_CELLS)))
def test_the_converter_gives_what_ipython_itself_gives(source):
    from IPython.core.inputtransformer2 import TransformerManager

    from reasoneval_mini.grading.notebooks import _converted

    assert _converted(source) == TransformerManager().transform_cell(source)


def test_a_cell_of_a_thousand_magic_lines_is_not_run_and_names_the_bound():
    # IPython's own loop re-reads the cell per line: 6 s here, 90 s for a 62 KB cell.
    from reasoneval_mini.grading.notebooks import MAX_CONVERTED_LINES, prepare_cells

    big = "def half():\n    return 0.5\n" + "%ls\n" * 1000
    [(number, python, names)] = prepare_cells([(3, big)])
    assert python.startswith("raise RuntimeError(")
    assert f"more than {MAX_CONVERTED_LINES} lines of IPython syntax" in python
    assert names == {"half"}  # its failure is blamed on the answer it defines


def test_a_notebook_past_its_conversion_budget_fails_only_the_cells_past_it(monkeypatch):
    from reasoneval_mini.grading import notebooks
    from reasoneval_mini.grading.notebooks import prepare_cells

    monkeypatch.setattr(notebooks, "MAX_CONVERTED_CHARS", 4_000)  # the rule, not its size
    MAX_CONVERTED_CHARS = notebooks.MAX_CONVERTED_CHARS
    size = MAX_CONVERTED_CHARS // 2 - 100
    cell_text = "%ls\n" + "x = 1\n" * (size // 6)
    cells = prepare_cells([(1, cell_text), (2, cell_text), (3, cell_text), (4, "y = 2\n")])
    sources = [python for _, python, _ in cells]
    assert [s.startswith("get_ipython().run_line_magic('ls'") for s in sources[:2]] == [True] * 2
    assert f"at most {MAX_CONVERTED_CHARS} characters" in sources[2]
    assert sources[3] == "y = 2\n"  # plain Python costs nothing of the budget


def test_definitions_in_a_broken_cell_do_not_reach_across_line_breaks():
    # "^\s*" let every one of 60,000 blank lines scan all that followed (95 s):
    # indentation is read within its own line, which also keeps the meaning.
    from reasoneval_mini.grading.notebooks import _BROKEN_DEFINITION, _names_in_broken

    assert _BROKEN_DEFINITION.match("\n\n   def f(:") is None
    # 5,000 blank lines before the broken one took the old pattern 1.7 s, 60,000 95 s.
    assert _names_in_broken("def f():\n" + "\n" * 5_000 + "class G:\n  x = (\n") == {"f", "G"}
    assert _names_in_broken("import os\n" + " \n" * 5_000 + "N = 1\n(") == {"os", "N"}
