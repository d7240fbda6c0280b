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
    from reasoneval_mini.grading.child import Watchdog

    dog = Watchdog(0.2)
    assert dog.run(lambda: None) is None
    assert dog.run(lambda: int("x")).startswith("ValueError: invalid literal")
    assert dog.run(lambda: exit(3)) == "SystemExit: 3"

    def swallows_three_alarms():
        for _ in range(3):
            try:
                while True:
                    pass
            except BaseException:
                pass

    start = time.monotonic()
    assert dog.run(swallows_three_alarms) == "did not finish within 0.2 s (endless loop?)"
    assert time.monotonic() - start < 2
