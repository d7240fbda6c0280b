"""Every module path, file link and import the README shows exists."""

import importlib
import re
from pathlib import Path

import pytest

import reasoneval_mini

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("statement", sorted(set(
    re.findall(r"^\s*(from reasoneval_mini[\w.]* import [\w, ]+)$", README, re.MULTILINE))))
def test_every_import_the_readme_shows_works(statement):
    namespace = {}
    exec(statement, namespace)  # noqa: S102 - our own README's import lines


@pytest.mark.parametrize("link", sorted(set(re.findall(r"\]\((reasoneval_mini/[^)]+)\)", README))))
def test_every_linked_file_exists(link):
    assert (ROOT / link).is_file(), link


def test_every_public_name_in_the_library_table_is_exported():
    table = README[README.index("## The library"):README.index("All of these import")]
    names = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", table)) - {"reasoneval_mini"}
    missing = sorted(name for name in names if not hasattr(reasoneval_mini, name))
    assert missing == []
    assert set(reasoneval_mini.__all__) - names <= {"ASSERTION_FAILED", "TIMEOUT",
                                                    "RUNTIME_ERROR", "PASSED", "NOT_RUN",
                                                    "GSM8K_MARKER", "MAX_ANSWER_LENGTH",
                                                    "MAX_ENUMERATED_SUBSETS",
                                                    "PassAtKInterval"}


def test_every_module_path_the_readme_names_imports():
    paths = set(re.findall(r"`(reasoneval_mini(?:\.\w+)+)`", README))
    for path in sorted(paths):
        importlib.import_module(path)


def test_the_quick_start_runs_the_tests_before_starting_the_server_from_the_root():
    quick_start = README[README.index("## Quick start"):README.index("## Course map")]
    assert quick_start.index("python -m pytest") < quick_start.index("jupyter lab")
    assert "--allow-root" in quick_start and "python3" in quick_start
    lesson_00 = (ROOT / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8")
    for text in (README, lesson_00):
        assert "jupyter lab notebooks" not in text  # would hide exercises/
    assert "from the repository root" in lesson_00
