"""Unusable arguments to ``grade``, ``progress`` and ``grade_class`` stop before grading, naming the value."""

import pytest
from submission_class import ADD, FAKE_REGISTRY, add_notebook, grade, write_notebook

from reasoneval_mini import cli
from reasoneval_mini.grading.grader import discover_students


@pytest.mark.parametrize("hidden_text, words", [
    ("HIDDEN_CHECKS = {'shout': [}\n", "SyntaxError"),
    ("CHECKS = {}\n", "must define HIDDEN_CHECKS"),
    ("HIDDEN_CHECKS = {'nope': []}\n", "unknown exercise 'nope'"),
    ("HIDDEN_CHECKS = {'shout': 3}\n", "must be a list"),
])
def test_bad_hidden_tests_file_stops_before_grading_with_a_clear_error(
        tmp_path, capsys, hidden_text, words):
    (tmp_path / "submissions" / "ann").mkdir(parents=True)
    hidden = tmp_path / "hidden.py"
    hidden.write_text(hidden_text, encoding="utf-8")
    assert grade(tmp_path / "submissions", tmp_path, "--hidden-tests", str(hidden)) == 2
    error = capsys.readouterr().err
    assert words in error and str(hidden) in error
    assert not (tmp_path / "grades.csv").exists()


def test_missing_or_empty_submissions_dir_is_an_error(tmp_path, capsys):
    assert grade(tmp_path / "nowhere", tmp_path) == 2
    assert "is not a directory" in capsys.readouterr().err
    (tmp_path / "empty" / ".ipynb_checkpoints").mkdir(parents=True)
    assert grade(tmp_path / "empty", tmp_path) == 2
    assert "has no student folders" in capsys.readouterr().err


def test_bad_timeout_and_workers_are_refused_by_the_parser(tmp_path, capsys):
    for option, value in (("--timeout", "0"), ("--timeout", "inf"), ("--timeout", "nan"),
                          ("--workers", "zero"), ("--workers", "0")):
        with pytest.raises(SystemExit) as info:
            grade(tmp_path, tmp_path, option, value)
        assert info.value.code == 2
        assert repr(value) in capsys.readouterr().err


def test_discover_students_ignores_hidden_folders_and_files(tmp_path):
    for name in ("zoe", "adam", ".git"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("x")
    assert discover_students(tmp_path) == ["adam", "zoe"]


def test_out_that_is_a_folder_is_refused_before_grading(tmp_path, capsys):
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "grades.csv").mkdir()
    assert grade(tmp_path / "subs", tmp_path) == 2
    assert "is a folder; expected a CSV file name" in capsys.readouterr().err


@pytest.mark.parametrize("options", [{"timeout": float("inf")}, {"timeout": True},
                                     {"timeout": -1}, {"workers": 0}, {"workers": True}])
def test_grade_class_refuses_bad_timeout_and_workers_naming_the_value(tmp_path, options):
    from reasoneval_mini.grading.grader import grade_class

    (tmp_path / "ann").mkdir()
    name, value = next(iter(options.items()))
    with pytest.raises(ValueError, match=f"{name} must be .*got {value!r}"):
        grade_class(tmp_path, registry=str(FAKE_REGISTRY), progress=False, **options)


def test_progress_refuses_a_timeout_that_is_not_a_positive_number(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["progress", "exercises", "--timeout", "-1"])
    assert info.value.code == 2 and "'-1'" in capsys.readouterr().err


def _choices(command, dest):
    from reasoneval_mini import cli

    parsers = cli.build_parser()._subparsers._group_actions[0].choices
    return next(tuple(action.choices) for action in parsers[command]._actions
                if action.dest == dest)


def test_the_sandbox_option_offers_exactly_the_sandbox_modes():
    from reasoneval_mini.sandbox import MODES

    assert _choices("grade", "sandbox") == _choices("progress", "sandbox") == MODES


def test_sandbox_required_on_a_kernel_without_signal_scoping_exits_2_naming_it(
        tmp_path, monkeypatch, capsys):
    import reasoneval_mini.sandbox.landlock as landlock
    from submission_class import FAKE_REGISTRY, main

    (tmp_path / "subs" / "ann").mkdir(parents=True)
    monkeypatch.setattr(landlock, "abi_version", lambda: 5)  # a Linux 6.10 kernel
    code = main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"),
                 "--registry", str(FAKE_REGISTRY), "--sandbox", "required", "--no-progress"])
    assert code == 2
    error = capsys.readouterr().err
    assert "signals (needs ABI 6, Linux 6.12)" in error and "--sandbox auto" in error
    assert not (tmp_path / "g.csv").exists()  # refused before grading


def test_every_grading_run_prints_its_isolation_level_and_off_warns(tmp_path, capsys):
    from reasoneval_mini.sandbox import plan_isolation
    from submission_class import FAKE_REGISTRY, main

    (tmp_path / "subs" / "ann").mkdir(parents=True)
    argv = ["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"),
            "--registry", str(FAKE_REGISTRY), "--no-progress"]
    assert main(argv) == 0
    assert f"isolation: {plan_isolation('auto')}\n" in capsys.readouterr().out
    assert main(argv + ["--sandbox", "off"]) == 0
    captured = capsys.readouterr()
    assert "isolation: none (sandbox off)" in captured.out
    assert "warning: sandbox off: programs run with your rights" in captured.err


def test_the_class_report_names_the_isolation_level_under_its_title():
    from fractions import Fraction

    from reasoneval_mini.grading.class_report import report_markdown
    from reasoneval_mini.grading.grader import Grade
    from reasoneval_mini.sandbox import plan_isolation
    from submission_class import REGISTRY

    isolation = plan_isolation("auto", abi=4)
    grades = [Grade("ann", "add", Fraction(2), 2, "passed", "")]
    text = report_markdown(grades, {"add": REGISTRY.EXERCISES["add"]}, isolation=isolation)
    assert "Student code ran with isolation: landlock ABI 4: files, network.\n" in text


def test_grade_writes_grades_csv_inside_the_submissions_folder_when_no_folder_goes_there(
        tmp_path, capsys):
    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)
    write_notebook(subs / "ada" / "ex01_add.ipynb", add_notebook(ADD))
    # The fake registry has no written tasks: only a loose file goes there, which is ignored.
    argv = ["grade", str(subs), "--registry", str(FAKE_REGISTRY), "--no-progress",
            "--out", str(subs / "grades.csv")]
    assert cli.main(argv) == 0 and cli.main(argv) == 0
    assert capsys.readouterr().out.count("graded 1 students") == 2
