import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import reasoneval_mini
from reasoneval_mini.lessons import doctor
from reasoneval_mini.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert reasoneval_mini.__version__ in capsys.readouterr().out


def test_doctor_reports_versions_and_isolation_and_succeeds_when_complete(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}" in out
    assert "POSIX isolation:" in out
    for name in doctor.COURSE_PACKAGES:
        assert name in out


def test_doctor_names_a_missing_required_package_and_fails(monkeypatch, capsys):
    real = doctor.installed_version
    monkeypatch.setattr(doctor, "installed_version",
                        lambda name: None if name == "ipywidgets" else real(name))
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "MISSING required package(s): ipywidgets" in out


def test_doctor_explains_missing_posix_isolation(monkeypatch, capsys):
    monkeypatch.setattr(doctor, "posix_isolation", lambda: (False, "no 'resource' module"))
    main(["doctor"])
    assert "POSIX isolation: no - no 'resource' module" in capsys.readouterr().out


def test_python_dash_m_runs_the_same_command_line():
    done = subprocess.run([sys.executable, "-m", "reasoneval_mini", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert reasoneval_mini.__version__ in done.stdout


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "doctor" in capsys.readouterr().out


def test_doctor_says_macos_does_not_enforce_the_memory_limit(monkeypatch):
    pytest.importorskip("resource")
    monkeypatch.setattr(doctor.sys, "platform", "darwin")
    available, why = doctor.posix_isolation()
    assert available and "does not enforce the memory limit" in why


def imported_package_modules(code):
    """The ``reasoneval_mini`` modules a fresh interpreter has loaded after running *code*."""
    probe = (f"{code}\nimport sys\n"
             "print(' '.join(sorted(m for m in sys.modules if m.startswith('reasoneval_mini'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


#: What ``import reasoneval_mini`` loads: the package and the helper that loads its names on first use.
PACKAGE_ROOT = ["reasoneval_mini", "reasoneval_mini.support", "reasoneval_mini.support.exports"]


def test_help_imports_the_argument_parser_and_nothing_of_the_library():
    loaded = imported_package_modules(
        "import contextlib, io\n"
        "from reasoneval_mini.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    assert loaded == sorted(PACKAGE_ROOT + ["reasoneval_mini.cli"])


def test_public_names_load_on_first_use_and_are_the_functions_themselves():
    # The lazy package root must give the function, never a same-named module.
    loaded = imported_package_modules(
        "import reasoneval_mini\n"
        "from reasoneval_mini import pass_at_k, execute_program\n"
        "assert callable(pass_at_k) and callable(execute_program), (pass_at_k, execute_program)\n"
        "assert pass_at_k(5, 2, 2) == 0.7")
    assert "reasoneval_mini.executor.program" in loaded


def test_an_unknown_public_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="no attribute 'pass_at_kk'"):
        reasoneval_mini.pass_at_kk  # noqa: B018


def test_every_public_name_resolves():
    for name in reasoneval_mini.__all__:
        assert getattr(reasoneval_mini, name) is not None, name


def test_the_help_default_timeout_is_the_graders():
    from reasoneval_mini import cli
    from reasoneval_mini.grading.grader import DEFAULT_TIMEOUT

    assert cli.DEFAULT_STEP_TIMEOUT == DEFAULT_TIMEOUT


@pytest.mark.parametrize("command", ["doctor", "grade", "build-exercises", "progress"])
def test_every_command_has_a_description_and_an_example(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and f"reasoneval-course {command}" in text.split("examples:")[1]
    description = text.split("\n\n")[1]
    assert len(description.split()) >= 8, description


@pytest.mark.parametrize("argv, named", [
    (["grade", "/no/such/folder/anywhere"], "/no/such/folder/anywhere"),
    (["progress", "/no/such/folder/anywhere"], "/no/such/folder/anywhere"),
    (["build-exercises", "--solutions", "/no/such/folder/anywhere"], "/no/such/folder/anywhere"),
])
def test_a_usage_error_exits_2_with_one_prefixed_line_naming_the_value(argv, named, capsys):
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"reasoneval-course {argv[0]}: error: ")
    assert named in error and error.count("\n") == 1


@pytest.mark.parametrize("argv", [["grade", "x", "--timeout", "nan"],
                                  ["progress", "--timeout", "-1"],
                                  ["grade", "x", "--workers", "0"]])
def test_a_bad_option_value_exits_2_naming_the_command(argv, capsys):
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    assert f"reasoneval-course {argv[0]}: error: " in capsys.readouterr().err


def test_no_public_name_is_shadowed_by_a_submodule_of_the_same_name():
    # Importing a submodule binds it as an attribute of the package; a public
    # function of the same name would then be hidden behind the module.
    import importlib
    import pkgutil
    import types

    for info in pkgutil.walk_packages(reasoneval_mini.__path__, "reasoneval_mini."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    shadowed = [name for name in reasoneval_mini.__all__
                if isinstance(getattr(reasoneval_mini, name), types.ModuleType)]
    assert shadowed == []


@pytest.mark.parametrize("argv", [["doctor", "extra"], ["progress", "a", "b"]])
def test_stray_arguments_are_blamed_on_the_command_with_its_usage(argv, capsys):
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith(f"usage: reasoneval-course {argv[0]}")
    assert f"reasoneval-course {argv[0]}: error: unrecognized arguments: {argv[-1]}" in error


def test_progress_on_a_folder_without_exercise_notebooks_says_so_once(tmp_path, capsys):
    (tmp_path / "notes.ipynb").write_text("{}")
    assert main(["progress", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "holds none of the exercise notebooks" in error
    assert "course's root folder" in error


def test_progress_typed_inside_the_notebooks_folder_says_to_type_a_dot(tmp_path, capsys,
                                                                      monkeypatch):
    from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS

    first = EXERCISE_NOTEBOOKS[0].notebook
    shutil.copy(ROOT / "exercises" / first, tmp_path / first)
    monkeypatch.chdir(tmp_path)  # a terminal after `cd exercises`: no exercises/ below it
    assert main(["progress"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "'exercises' is not a folder of exercise notebooks" in error
    assert f"this folder holds {first}" in error and "reasoneval-course progress ." in error
    assert main(["progress", "."]) == 0  # what the message says to type works
    assert "exercises passed" in capsys.readouterr().out


def test_progress_from_a_folder_without_notebooks_says_where_to_run_it(tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["progress"]) == 2
    error = capsys.readouterr().err
    assert "course's root folder" in error and "progress ." not in error


def test_progress_names_a_missing_notebook_once_for_all_its_exercises(tmp_path, capsys):
    from reasoneval_mini.course_map import EXERCISE_NOTEBOOKS
    from reasoneval_mini.exercises.registry import EXERCISES

    first = EXERCISE_NOTEBOOKS[0].notebook
    shutil.copy(ROOT / "exercises" / first, tmp_path / first)
    assert main(["progress", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    checked = {exercise.notebook for exercise in EXERCISES.values()}  # progress lists these
    for notebook in EXERCISE_NOTEBOOKS[1:]:
        assert out.count(f"no notebook {notebook.notebook}") == (notebook.notebook in checked)


@pytest.mark.parametrize("option, inside", [
    ("--feedback", "feedback"), ("--class-report", "report"), ("--out", "grades.csv")])
def test_grade_refuses_an_output_folder_the_next_run_would_grade_as_a_student(
        tmp_path, capsys, option, inside):
    # The course registry has written tasks, so --out grades.csv also makes grades_written/.
    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "ex01_answer_equivalence.ipynb", subs / "ada")
    assert main(["grade", str(subs), "--no-progress", option, str(subs / inside)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"{option} " in error
    assert "where the next run would grade it as a student" in error
    assert sorted(p.name for p in subs.iterdir()) == ["ada"]  # nothing written, nothing graded


def test_grade_refuses_a_feedback_path_that_is_a_file(tmp_path, capsys):
    (tmp_path / "ada").mkdir()
    (tmp_path / "feedback.md").write_text("")
    assert main(["grade", str(tmp_path), "--feedback", str(tmp_path / "feedback.md")]) == 2
    error = capsys.readouterr().err
    assert "--feedback" in error and "is a file; expected a folder" in error


def test_grade_with_the_course_registry_writes_every_report_written_tasks_included(tmp_path, capsys):
    # The course's own registry has written (manually graded) tasks, whose score
    # is blank: every report must take them (the fixtures' registries have none).
    for folder, name in (("solutions", "ada"), ("exercises", "bob")):
        (tmp_path / "subs" / name).mkdir(parents=True)
        for notebook in (ROOT / folder).glob("*.ipynb"):
            shutil.copy(notebook, tmp_path / "subs" / name / notebook.name)
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,name,id\nada,Ada,1\nbob,Bob,2\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "subs"), "--out", str(out / "grades.csv"),
                 "--feedback", str(out / "feedback"), "--class-report", str(out / "report"),
                 "--roster", str(roster), "--export", "canvas", "--no-progress",
                 # Both hand in the shipped notebooks, built for the self-study variant.
                 "--variant", "self-study"]) == 0
    printed = capsys.readouterr().out
    # Three written tasks: ada's (the model answers) await the instructor, bob's stubs are 0.
    assert "awaiting_instructor 3" in printed
    assert "left blank in the export (no score written, not a 0" in printed
    # The course's rubrics have criteria with levels: the sheet takes a level per criterion.
    sheet = (out / "grades_written" / "scores.csv").read_text(encoding="utf-8").splitlines()
    assert sheet[0] == "student,task,criterion,level,comment"
    for path in ("grades.csv", "grades_totals.csv", "grades_canvas.csv",
                 "feedback/ada.md", "report/class_report.md"):
        assert (out / path).is_file(), path


@pytest.mark.parametrize("kind", ["code", "answers"])
def test_evaluate_help_imports_nothing_of_the_library(kind):
    loaded = imported_package_modules(
        "import contextlib, io\n"
        "from reasoneval_mini.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    try:\n        main(['evaluate', '{kind}', '--help'])\n    except SystemExit:\n"
        "        pass")
    assert [m for m in loaded if not m.startswith("reasoneval_mini.cli")] == PACKAGE_ROOT


def test_evaluate_sandbox_choices_are_the_sandbox_modes():
    from reasoneval_mini.cli import build_parser
    from reasoneval_mini.sandbox import MODES

    code = build_parser().commands.choices["evaluate"].kinds.choices["code"]
    sandbox = next(action for action in code._actions if action.dest == "sandbox")
    assert tuple(sandbox.choices) == MODES


def test_evaluate_answers_format_choices_are_the_libraries_formats():
    from reasoneval_mini.cli import build_parser
    from reasoneval_mini.evaluation.answers_evaluation import FORMATS
    from reasoneval_mini.evaluation.final_answers import EXTRACTIONS

    answers = build_parser().commands.choices["evaluate"].kinds.choices["answers"]
    choices = {action.dest: action.choices for action in answers._actions}
    assert tuple(choices["file_format"]) == FORMATS
    assert tuple(choices["extract"]) == EXTRACTIONS


def test_the_rule_names_the_help_lists_are_the_normalisers():
    from reasoneval_mini.cli import RULE_NAMES, RULE_SET_NAMES
    from reasoneval_mini.normalise import NO_RULES, RULE_SETS, RULES

    assert RULE_NAMES == RULES and RULE_SET_NAMES == tuple(RULE_SETS)
    assert RULE_SET_NAMES[0] == NO_RULES  # the default: no rule declared


def test_evaluate_without_a_kind_is_a_usage_error(capsys):
    assert main(["evaluate"]) == 2
    assert "evaluate code SAMPLES.jsonl" in capsys.readouterr().err


def test_evaluate_refuses_a_bad_k_list(capsys):
    with pytest.raises(SystemExit) as info:
        main(["evaluate", "code", "s.jsonl", "--k", "1,0"])
    assert info.value.code == 2
    assert "expected positive whole numbers separated by commas" in capsys.readouterr().err
