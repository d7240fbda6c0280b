"""Each simulate_*, compare_* and plot_* helper of the lessons says in its first line what it computes.

The lessons hand work to these helpers after the learner has written the key
computation; the first docstring line is what a learner reads (``help``,
Shift-Tab) to check that the helper computes what the lesson says.
"""

import importlib
import inspect
import pkgutil

import pytest

import reasoneval_mini.lessons as lessons

HELPERS = sorted(
    (f"{info.name}.{name}", function)
    for info in pkgutil.iter_modules(lessons.__path__)
    for name, function in inspect.getmembers(importlib.import_module(f"{lessons.__name__}.{info.name}"),
                                             inspect.isfunction)
    if name.startswith(("simulate_", "compare_", "plot_"))
    and function.__module__ == f"{lessons.__name__}.{info.name}")


def test_the_helpers_are_found():
    assert {"uncertainty.simulate_spread", "pass_at_k_plots.plot_subsets",
            "answer_pipelines.compare_many_answers"} <= {name for name, _ in HELPERS}


@pytest.mark.parametrize("name, function", HELPERS, ids=[name for name, _ in HELPERS])
def test_the_first_docstring_line_says_what_the_helper_computes(name, function):
    doc = inspect.getdoc(function)
    assert doc, f"{name} has no docstring"
    first = doc.splitlines()[0]
    assert len(first) <= 120 and first.endswith("."), f"{name}: {first!r}"
    # One line, then a blank line or the end: the line stands alone.
    assert len(doc.splitlines()) == 1 or doc.splitlines()[1] == "", f"{name}: {doc[:200]!r}"
