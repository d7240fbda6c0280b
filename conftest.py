"""Which part of the suite a run takes: the quick check unless asked for everything.

``python -m pytest -n auto`` (the README's command) is the quick check, for a newcomer
who wants to know that the install works: every unit test and docstring example, the
exercise masters under nbval, real sandboxed runs and a real ``grade``. It leaves out the
tests marked ``slow`` (a file says so with ``pytestmark``), and the lessons run cell by cell
and the browser test, which are slow by nature: attack batteries, Monte Carlo checks of the
statistics, end-to-end class and evaluation runs.

``--full`` runs everything; CI always does (``.ci/run``). So does a run that names what it
wants: a path (``python -m pytest tests/browser``) or a marker expression (``-m slow``).
"""

import pytest

#: Top-level folders whose every test is slow: the lessons, executed cell by cell by nbval.
SLOW_FOLDERS = ("notebooks",)
#: Markers that make a test slow wherever it is.
SLOW_MARKERS = ("slow", "browser")


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="run the whole suite, the tests marked slow, the lessons and the "
                          "browser test included (CI does); without it, and without a path "
                          "or -m, a run is the quick check")


def _quick(config):
    return not (config.getoption("full") or config.option.file_or_dir or config.option.markexpr)


def _is_slow(item, root):
    try:
        top = item.path.relative_to(root).parts[0]
    except ValueError:
        top = None
    return top in SLOW_FOLDERS or any(item.get_closest_marker(name) for name in SLOW_MARKERS)


def pytest_collection_modifyitems(config, items):
    if not _quick(config):
        return
    root = config.rootpath
    quick, slow = [], []
    for item in items:
        (slow if _is_slow(item, root) else quick).append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = quick


def pytest_report_header(config):
    if _quick(config):
        return ("quick check: the tests marked slow, the lessons (notebooks/) and the browser "
                "test are left out; python -m pytest -n auto --full runs everything, as CI does")
    return None


def pytest_terminal_summary(terminalreporter, config):
    if _quick(config) and terminalreporter.stats.get("deselected") is not None:
        terminalreporter.write_line(
            "quick check only: python -m pytest -n auto --full runs the whole suite "
            "(the lessons, the browser test and the tests marked slow), as CI does")
