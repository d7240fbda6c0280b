"""The course map is declared once (reasoneval_mini.course_map); the README, docs/exercises.md and lesson 00 show it."""

import json
import re
from pathlib import Path

import pytest

from reasoneval_mini.course_map import (
    EXERCISE_NOTEBOOKS, LESSONS, exercise_notebook_for, lesson_table)
from reasoneval_mini.exercises.registry import EXERCISES, NOTEBOOKS

ROOT = Path(__file__).resolve().parents[2]
EXERCISE_MENTION = re.compile(r"(ex\d\d_[a-z0-9_]+\.ipynb)")


def section(markdown, heading):
    """The text under *heading* (a ``## `` line) up to the next ``## `` heading."""
    return markdown.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def readme():
    return (ROOT / "README.md").read_text(encoding="utf-8")


def start_here_markdown():
    cells = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def shows_the_map(markdown):
    """True when *markdown* holds the course map's lesson table, row for row."""
    return lesson_table() in markdown


def test_readme_course_map_section_shows_the_lesson_table():
    assert shows_the_map(section(readme(), "## Course map")), (
        "README's course map differs from reasoneval_mini/course_map.py: paste lesson_table()")


def test_start_here_shows_the_lesson_table():
    assert shows_the_map(section("\n" + start_here_markdown(), "## Course map"))


def test_a_drifted_table_is_caught():
    drifted = lesson_table().replace("02_pass_at_k.ipynb", "02_pass_at_k_old.ipynb")
    assert not shows_the_map(drifted)


def test_start_here_names_the_exercise_notebooks_in_course_order():
    mentioned = EXERCISE_MENTION.findall(section("\n" + start_here_markdown(), "## Course map"))
    assert mentioned == [entry.notebook for entry in EXERCISE_NOTEBOOKS]


def test_readme_exercises_section_names_the_exercise_notebooks_in_course_order():
    mentioned = EXERCISE_MENTION.findall(section(readme(), "## Exercises"))
    assert list(dict.fromkeys(mentioned)) == [entry.notebook for entry in EXERCISE_NOTEBOOKS]


def test_the_exercises_page_lists_each_notebook_once_in_course_order_after_its_lesson():
    page = (ROOT / "docs" / "exercises.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(ex\d\d_[a-z0-9_]+\.ipynb)` \| (\d\d) \|", section(page, "## The set"),
                      re.MULTILINE)
    assert rows == [(entry.notebook, entry.lesson) for entry in EXERCISE_NOTEBOOKS]


def test_lessons_are_numbered_in_order_from_00():
    assert [lesson.number for lesson in LESSONS] == [f"{i:02d}" for i in range(len(LESSONS))]


def test_each_exercise_notebook_follows_a_lesson_of_the_map():
    numbers = [lesson.number for lesson in LESSONS]
    assert all(entry.lesson in numbers for entry in EXERCISE_NOTEBOOKS)
    assert [entry.lesson for entry in EXERCISE_NOTEBOOKS] == sorted(
        entry.lesson for entry in EXERCISE_NOTEBOOKS)


def test_registry_notebooks_are_the_maps_in_order():
    assert list(NOTEBOOKS) == [entry.notebook for entry in EXERCISE_NOTEBOOKS]
    order = [NOTEBOOKS.index(exercise.notebook) for exercise in EXERCISES.values()]
    assert order == sorted(order)


@pytest.mark.parametrize("entry", EXERCISE_NOTEBOOKS, ids=lambda entry: entry.notebook)
def test_each_exercise_notebook_exists_as_master_and_exercise(entry):
    assert (ROOT / "solutions" / entry.notebook).is_file()
    assert (ROOT / "exercises" / entry.notebook).is_file()


def test_exercise_notebook_for_an_unknown_module_names_it():
    with pytest.raises(ValueError, match="'reasoneval_mini.exercises.ex99_nothing'"):
        exercise_notebook_for("reasoneval_mini.exercises.ex99_nothing")
