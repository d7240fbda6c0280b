"""The stripper that generates exercises/ from solutions/, and the sync of the two."""

import json
import shutil
from pathlib import Path

import pytest

from reasoneval_mini.exercises.build import (
    MarkerError, build_exercises, dumps_notebook, strip_notebook, strip_solution_source)
from reasoneval_mini.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_region_becomes_stub_at_the_indentation_of_begin():
    source = ("def f(x):\n"
              "    \"\"\"Doc.\"\"\"\n"
              "    ### BEGIN SOLUTION\n"
              "    y = x + 1\n"
              "    return y\n"
              "    ### END SOLUTION\n")
    assert strip_solution_source(source) == ("def f(x):\n"
                                             "    \"\"\"Doc.\"\"\"\n"
                                             "    # YOUR CODE HERE\n"
                                             "    raise NotImplementedError()\n")


def test_deeper_indentation_and_code_after_the_region_are_kept():
    source = ("class A:\n    def f(self):\n        ### BEGIN SOLUTION\n        return 1\n"
              "        ### END SOLUTION\n\nprint('after')\n")
    stripped = strip_solution_source(source)
    assert "        raise NotImplementedError()\n" in stripped
    assert stripped.endswith("\nprint('after')\n")
    assert "return 1" not in stripped


def test_two_regions_in_one_cell_both_become_stubs():
    source = ("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"
              "def g():\n    ### BEGIN SOLUTION\n    return 2\n    ### END SOLUTION")
    stripped = strip_solution_source(source)
    assert stripped.count("raise NotImplementedError()") == 2
    assert "return" not in stripped


def test_stub_raises_not_implemented_when_called():
    namespace = {}
    exec(strip_solution_source("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"),
         namespace)
    with pytest.raises(NotImplementedError):
        namespace["f"]()


@pytest.mark.parametrize("source, words", [
    ("    ### BEGIN SOLUTION\n    x = 1\n", "never closed"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n### END SOLUTION\n", "nested"),
    ("x = 1\n### END SOLUTION\n", "without a ### BEGIN SOLUTION"),
    ("## BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "malformed marker on line 1"),
    ("### BEGIN SOLUTION\nx = 1\n### END  SOLUTIONS\n", "malformed marker on line 3"),
    ("x = 1  ### BEGIN SOLUTION\n", "malformed marker"),
])
def test_bad_markers_fail_loudly_naming_the_place(source, words):
    with pytest.raises(MarkerError, match="ex9.ipynb, cell 4") as error:
        strip_solution_source(source, where="ex9.ipynb, cell 4")
    assert words in str(error.value)


def _notebook(*cells):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_outputs_and_execution_counts_are_cleared_and_input_not_changed():
    cell = {"cell_type": "code", "id": "a", "metadata": {}, "execution_count": 3,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["secret answer\n"]}],
            "source": ["print(1)"]}
    notebook = _notebook(cell)
    stripped = strip_notebook(notebook)
    assert stripped["cells"][0]["outputs"] == []
    assert stripped["cells"][0]["execution_count"] is None
    assert notebook["cells"][0]["execution_count"] == 3


def test_locked_cells_become_read_only_and_solution_cells_undeletable():
    locked = {"cell_type": "code", "id": "t", "execution_count": None, "outputs": [], "source": "",
              "metadata": {"nbgrader": {"locked": True, "solution": False, "grade": True}}}
    solution = dict(locked, id="s", metadata={"nbgrader": {"locked": False, "solution": True}})
    free = dict(locked, id="f", metadata={})
    cells = strip_notebook(_notebook(locked, solution, free))["cells"]
    assert (cells[0]["metadata"]["editable"], cells[0]["metadata"]["deletable"]) == (False, False)
    assert "editable" not in cells[1]["metadata"] and cells[1]["metadata"]["deletable"] is False
    assert cells[2]["metadata"] == {}


def test_marker_in_a_markdown_cell_names_notebook_and_cell():
    markdown = {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "### BEGIN SOLUTION"}
    code = {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": None,
            "outputs": [], "source": ""}
    with pytest.raises(MarkerError, match=r"ex1.ipynb, cell 2: .*code cells only"):
        strip_notebook(_notebook(code, markdown), "ex1.ipynb")


def test_a_bad_notebook_writes_nothing(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    good = {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": None,
            "outputs": [], "source": "### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"}
    bad = dict(good, source="### BEGIN SOLUTION\nx = 1\n")
    (solutions / "a.ipynb").write_text(json.dumps(_notebook(good)))
    (solutions / "b.ipynb").write_text(json.dumps(_notebook(bad)))
    with pytest.raises(MarkerError, match="b.ipynb, cell 1"):
        build_exercises(solutions, exercises)
    assert not exercises.exists() or not list(exercises.glob("*"))


def test_output_is_deterministic_json():
    notebook = _notebook({"cell_type": "markdown", "id": "m", "metadata": {"b": 1, "a": "é"},
                          "source": "x"})
    text = dumps_notebook(notebook)
    assert text == dumps_notebook(json.loads(text))
    assert text.endswith("}\n") and "é" in text


def test_committed_exercises_are_in_sync_with_solutions(tmp_path):
    # Build from a copy: a stale master is rewritten, and the repo must not be. The
    # language editions (solutions/zh-CN -> exercises/zh-CN) are built with the English.
    masters = tmp_path / "solutions"
    shutil.copytree(ROOT / "solutions", masters)
    generated_dir = tmp_path / "exercises"
    assert main(["build-exercises", "--solutions", str(masters),
                 "--exercises", str(generated_dir)]) == 0
    for path in masters.rglob("*.ipynb"):
        name = path.relative_to(masters).as_posix()
        assert path.read_bytes() == (ROOT / "solutions" / name).read_bytes(), (
            f"task texts in solutions/{name} differ from the registry: "
            "run `reasoneval-course build-exercises`")
    generated = sorted(path.relative_to(generated_dir).as_posix()
                       for path in generated_dir.rglob("*.ipynb"))
    committed = sorted(path.relative_to(ROOT / "exercises").as_posix()
                       for path in (ROOT / "exercises").rglob("*.ipynb"))
    assert generated == committed
    for name in generated:
        assert (generated_dir / name).read_bytes() == (ROOT / "exercises" / name).read_bytes(), (
            f"exercises/{name} is out of date: run `reasoneval-course build-exercises`")


def test_solutions_are_stored_in_the_canonical_layout():
    # The stripper keeps each solution's layout; a master saved by another
    # tool would still build, but the generated copy would churn.
    for path in sorted((ROOT / "solutions").rglob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        assert text == dumps_notebook(json.loads(text)), path.relative_to(ROOT).as_posix()


def test_build_command_reports_a_missing_folder(tmp_path, capsys):
    assert main(["build-exercises", "--solutions", str(tmp_path / "none"),
                 "--exercises", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith(
        "reasoneval-course build-exercises: error: no notebooks found")


@pytest.mark.parametrize("text", ["[]", '{"cells": 3}', '{"cells": ["not a cell"]}'])
def test_json_that_is_not_a_notebook_is_reported_by_name(tmp_path, capsys, text):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "odd.ipynb").write_text(text)
    assert main(["build-exercises", "--solutions", str(tmp_path / "solutions"),
                 "--exercises", str(tmp_path / "out")]) == 2
    assert "odd.ipynb is JSON but not a notebook" in capsys.readouterr().err


def test_task_texts_come_from_the_registry_in_both_folders(tmp_path):
    from reasoneval_mini.exercises.registry import EXERCISES, render_task_markdown

    masters = tmp_path / "solutions"
    shutil.copytree(ROOT / "solutions", masters)
    exercise = next(iter(EXERCISES.values()))
    path = masters / exercise.notebook
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == f"{exercise.id}_task":
            cell["source"] = ["## stale wording edited by hand\n"]
    path.write_text(json.dumps(notebook), encoding="utf-8")
    written = build_exercises(masters, tmp_path / "exercises")
    assert path in written  # the stale master was rewritten
    for folder in (masters, tmp_path / "exercises"):
        cells = json.loads((folder / exercise.notebook).read_text(encoding="utf-8"))["cells"]
        task = next(c for c in cells
                    if c["metadata"]["nbgrader"]["grade_id"] == f"{exercise.id}_task")
        assert "".join(task["source"]) == render_task_markdown(exercise.id)


def _copy_course(tmp_path):
    # Without __pycache__: the doctest collection imports solutions/answer_key.py, and
    # where Python writes bytecode that leaves solutions/__pycache__, no file of the course.
    masters, exercises = tmp_path / "solutions", tmp_path / "exercises"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "solutions", masters, ignore=ignore)
    shutil.copytree(ROOT / "exercises", exercises, ignore=ignore)
    return masters, exercises


def _snapshot(*folders):
    # Every file, the language editions' folders included.
    return {path: path.read_bytes() for folder in folders for path in sorted(folder.rglob("*"))
            if path.is_file()}


def test_check_on_the_committed_tree_exits_0(capsys):
    assert main(["build-exercises", "--check", "--solutions", str(ROOT / "solutions"),
                 "--exercises", str(ROOT / "exercises")]) == 0
    assert "out of date" not in capsys.readouterr().out


def test_check_names_a_stale_exercise_exits_1_and_writes_nothing(tmp_path, capsys):
    masters, exercises = _copy_course(tmp_path)
    stale = exercises / "ex02_pass_at_k.ipynb"
    stale.write_text(stale.read_text(encoding="utf-8").replace("raise NotImplementedError()",
                                                               "return 42", 1), encoding="utf-8")
    before = _snapshot(masters, exercises)
    assert main(["build-exercises", "--check", "--solutions", str(masters),
                 "--exercises", str(exercises)]) == 1
    out = capsys.readouterr().out
    assert f"out of date: {stale}" in out
    assert "ex01_answer_equivalence" not in out and "ex03_execution_states" not in out
    assert _snapshot(masters, exercises) == before


def test_check_names_a_missing_exercise(tmp_path, capsys):
    masters, exercises = _copy_course(tmp_path)
    (exercises / "ex01_answer_equivalence.ipynb").unlink()
    assert main(["build-exercises", "--check", "--solutions", str(masters),
                 "--exercises", str(exercises)]) == 1
    assert "ex01_answer_equivalence.ipynb" in capsys.readouterr().out
    assert not (exercises / "ex01_answer_equivalence.ipynb").exists()


def _make_task_cell_stale(path, exercise_id):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == f"{exercise_id}_task":
            cell["source"] = ["## stale wording edited by hand\n"]
    path.write_text(dumps_notebook(notebook), encoding="utf-8")


def test_check_names_a_master_with_stale_task_cells_and_leaves_it(tmp_path, capsys):
    from reasoneval_mini.exercises.registry import EXERCISES

    masters, exercises = _copy_course(tmp_path)
    exercise = next(iter(EXERCISES.values()))
    _make_task_cell_stale(masters / exercise.notebook, exercise.id)
    before = _snapshot(masters, exercises)
    assert main(["build-exercises", "--check", "--solutions", str(masters),
                 "--exercises", str(exercises)]) == 1
    assert f"out of date: {masters / exercise.notebook}" in capsys.readouterr().out
    assert _snapshot(masters, exercises) == before


def test_build_says_when_it_updates_task_cells_in_a_master(tmp_path, capsys):
    from reasoneval_mini.exercises.registry import EXERCISES

    masters, exercises = _copy_course(tmp_path)
    exercise = next(iter(EXERCISES.values()))
    _make_task_cell_stale(masters / exercise.notebook, exercise.id)
    assert main(["build-exercises", "--solutions", str(masters),
                 "--exercises", str(exercises)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line.startswith("updated task cells in ")] == [
        f"updated task cells in {masters / exercise.notebook} "
        "(its task texts differed from the registry)"]


def test_rebuilding_changes_no_byte(tmp_path):
    masters, exercises = _copy_course(tmp_path)
    before = _snapshot(masters, exercises)
    build_exercises(masters, exercises)
    assert _snapshot(masters, exercises) == before


def test_a_failed_write_leaves_no_temporary_file(tmp_path, capsys):
    masters, exercises = _copy_course(tmp_path)
    target = exercises / "ex03_execution_states.ipynb"
    target.unlink()
    target.mkdir()  # a folder where the notebook should go: the final rename fails
    assert main(["build-exercises", "--solutions", str(masters),
                 "--exercises", str(exercises)]) == 2
    assert "build-exercises: error:" in capsys.readouterr().err
    # The target is left out by its path below exercises/: the zh-CN edition of the same
    # notebook (exercises/zh-CN/<same name>) is written and stays.
    assert sorted(path.relative_to(exercises) for path in exercises.rglob("*") if path.is_file()) \
        == sorted(path.relative_to(ROOT / "exercises") for path in (ROOT / "exercises").rglob("*")
                  if path.is_file()
                  and path.relative_to(ROOT / "exercises") != target.relative_to(exercises))
    assert target.is_dir() and not list(target.iterdir())


def test_a_notebook_that_fails_nbformat_validation_is_reported_by_name(tmp_path, capsys):
    (tmp_path / "solutions").mkdir()
    notebook = _notebook({"cell_type": "code", "id": "c", "metadata": {}, "source": "x = 1"})
    (tmp_path / "solutions" / "odd.ipynb").write_text(json.dumps(notebook))
    assert main(["build-exercises", "--solutions", str(tmp_path / "solutions"),
                 "--exercises", str(tmp_path / "out")]) == 2
    assert "odd.ipynb is not a valid nbformat 4 notebook" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_importing_the_builder_does_not_import_nbformat():
    import subprocess
    import sys

    finished = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import reasoneval_mini.exercises.build"],
        capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert finished.returncode == 0, finished.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in finished.stderr.splitlines()]
    assert "reasoneval_mini.exercises.build" in imported
    assert not [name for name in imported if name.split(".")[0] == "nbformat"]


def test_building_from_lesson_notebooks_is_refused_naming_the_first_one(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["build-exercises", "--solutions", str(ROOT / "notebooks"),
                 "--exercises", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("reasoneval-course build-exercises: error: ")
    assert "00_start_here.ipynb is not an exercise master" in error
    assert not out.exists()
