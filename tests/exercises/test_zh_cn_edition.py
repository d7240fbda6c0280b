"""The zh-CN exercise edition: built from solutions/zh-CN, graded exactly as the English, speaking Chinese.

Issue 28, item 3. Which notebooks have a zh-CN edition is read from the
folders (``solutions/zh-CN``), as tests/editions does. The Chinese a notebook
should show is taken from the compiled catalogue (read here with the standard
library, apart from the package's own reading), never typed into a test; the
scores are compared with the English edition's, graded by the real grader in
its sandboxed processes, and with the registry's points.
"""

import json
import re
from pathlib import Path

import pytest

from assessment_play import TEST_KEY
from reasoneval_mini.editions import edition_path
from reasoneval_mini.exercises.build import (
    RUBRIC_START, dumps_notebook, master_for, out_of_date, plan_exercises, read_notebook,
    strip_notebook)
from reasoneval_mini.exercises.checks import RUBRIC_LEVELS, rubric_criteria
from reasoneval_mini.exercises.registry import (
    EXERCISES, WRITTEN_TASKS, render_rubric_markdown, render_task_markdown)
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading.grader import grade_class
from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, language, use_language
from translations import zh, zh_catalogue

ROOT = Path(__file__).resolve().parents[2]
ZH = "zh-CN"
CHINESE = re.compile(r"[\u4e00-\u9fff]")
#: The masters with a zh-CN edition on disk.
EDITIONS = sorted(path.name for path in (ROOT / "solutions" / ZH).glob("*.ipynb"))
#: Identities graded in both editions: the shipped variant and two students.
GRADED = ("self-study", "student-001", "student-017")


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _cell(notebook, grade_id):
    return next(cell for cell in notebook["cells"] if _grade_id(cell) == grade_id)


def _exercises_of(name):
    return [exercise for exercise in EXERCISES.values() if exercise.notebook == name]


#: The editions with a checked exercise (ex05 has none: its one task is written, graded by hand).
CHECKED = [name for name in EDITIONS if _exercises_of(name)]


def _language_cell(notebook):
    """The cell that sets the language: the setup cell, else (ex05 has none) the first code cell."""
    codes = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    return next((cell for cell in codes if _grade_id(cell).endswith("_setup")), codes[0])


def test_there_is_a_zh_cn_edition_to_test():
    # A guard on the guard: with no edition on disk every test below would be vacuous.
    assert "ex01_answer_equivalence.ipynb" in EDITIONS


# --- the build -----------------------------------------------------------------------------


def test_the_zh_cn_build_is_up_to_date():
    stale = out_of_date(ROOT / "solutions", ROOT / "exercises")
    assert stale == [], f"run `reasoneval-course build-exercises`: {stale}"
    planned = {path for path, _text in plan_exercises(ROOT / "solutions", ROOT / "exercises")}
    for name in EDITIONS:
        assert edition_path(ROOT / "exercises" / name, ZH) in planned, name
        assert (ROOT / "exercises" / ZH / name).is_file(), name


def test_the_build_writes_no_zh_cn_notebook_without_a_zh_cn_master():
    built = sorted(path.name for path in (ROOT / "exercises" / ZH).glob("*.ipynb"))
    assert built == EDITIONS


@pytest.mark.parametrize("name", EDITIONS)
def test_a_zh_cn_stub_has_the_english_stubs_cells_ids_points_and_variant(name):
    english = read_notebook(ROOT / "exercises" / name)
    chinese = read_notebook(ROOT / "exercises" / ZH / name)
    assert [(cell["cell_type"], cell["metadata"].get("nbgrader"), cell["metadata"].get("editable"),
             cell["metadata"].get("deletable")) for cell in chinese["cells"]] == \
        [(cell["cell_type"], cell["metadata"].get("nbgrader"), cell["metadata"].get("editable"),
          cell["metadata"].get("deletable")) for cell in english["cells"]]
    for exercise in _exercises_of(name):
        assert _cell(chinese, f"{exercise.id}_check")["metadata"]["nbgrader"]["points"] == \
            exercise.points
    assert chinese["metadata"]["reasoneval"]["variant"] == \
        english["metadata"]["reasoneval"]["variant"]
    assert chinese["metadata"]["reasoneval"]["language"] == ZH
    assert "language" not in english["metadata"]["reasoneval"]


@pytest.mark.parametrize("name", EDITIONS)
def test_a_zh_cn_stubs_task_cells_are_the_registrys_in_chinese(name):
    chinese = read_notebook(ROOT / "exercises" / ZH / name)
    english = read_notebook(ROOT / "exercises" / name)
    for task_id in [e.id for e in _exercises_of(name)] + [
            task.id for task in WRITTEN_TASKS.values() if task.notebook == name]:
        cell = _source(_cell(chinese, f"{task_id}_task"))
        with language(ZH):
            assert cell == render_task_markdown(task_id)
        assert cell != _source(_cell(english, f"{task_id}_task"))
        assert CHINESE.search(cell.split("\n", 1)[0]), f"{task_id}: the title is not Chinese"
        # The markers the grader looks for stay as they are in every edition.
        assert f"id: `{task_id}`" in cell


@pytest.mark.parametrize("name", EDITIONS)
def test_a_zh_cn_setup_cell_sets_the_variant_and_the_language(name):
    setup = _source(_language_cell(read_notebook(ROOT / "exercises" / ZH / name))).splitlines()
    assert "use_language('zh-CN')" in setup
    # A notebook without a setup cell (ex05) has no variant line in either edition: the
    # language is set in its first code cell, before the call that speaks.
    if any(_grade_id(cell).endswith("_setup")
           for cell in read_notebook(ROOT / "exercises" / name)["cells"]):
        assert "use_variant('self-study')" in setup
    else:
        assert setup.index("use_language('zh-CN')") < len(setup) - 1


def test_a_zh_cn_master_whose_cells_differ_from_the_english_is_refused(tmp_path):
    # An edition with another exercise (or other points) would grade differently: the build
    # refuses it, naming the notebook and the cell.
    name = EDITIONS[0]
    english = read_notebook(ROOT / "solutions" / name)
    chinese = read_notebook(ROOT / "solutions" / ZH / name)
    check = next(cell for cell in chinese["cells"] if _grade_id(cell).endswith("_check"))
    check["metadata"]["nbgrader"]["grade_id"] = "kp1_something_else_check"
    (tmp_path / "solutions" / ZH).mkdir(parents=True)
    (tmp_path / "solutions" / name).write_text(dumps_notebook(english), encoding="utf-8")
    (tmp_path / "solutions" / ZH / name).write_text(dumps_notebook(chinese), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"zh-CN/{re.escape(name)}, cell \d+: .*English master"):
        plan_exercises(tmp_path / "solutions", tmp_path / "exercises")


def test_a_rebuilt_zh_cn_master_keeps_one_rubric(tmp_path):
    # The rubric heading is Chinese in a zh-CN master: a rebuild must find it and replace it,
    # not append a second one after it.
    name = next(name for name in EDITIONS
                if any(task.notebook == name for task in WRITTEN_TASKS.values()))
    master = master_for(ROOT / "solutions" / ZH / name, Variant("self-study"))
    path = tmp_path / name
    path.write_text(dumps_notebook(master), encoding="utf-8")
    again = master_for(path, Variant("student-001"))
    master_for_notebook = master_for(path, Variant("self-study"))
    heading = zh("**Rubric ({points}; each criterion {levels})**").split("{points}")[0]
    for notebook in (again, master_for_notebook):
        for task in WRITTEN_TASKS.values():
            if task.notebook == name:
                assert _source(_cell(notebook, task.id)).count(heading) == 1
    assert master_for_notebook == master



def test_a_zh_cn_master_copied_with_the_english_rubric_rebuilds_to_one_chinese_rubric(tmp_path):
    # A translator starts from a copy of the English master: its answer cell may still end
    # with the English rubric after the Chinese model answer. The build must cut there too,
    # not keep the English rubric and append the Chinese one after it.
    name = next(name for name in EDITIONS
                if any(task.notebook == name for task in WRITTEN_TASKS.values()))
    english = master_for(ROOT / "solutions" / name, Variant("self-study"))
    chinese = master_for(ROOT / "solutions" / ZH / name, Variant("self-study"))
    task = next(task for task in WRITTEN_TASKS.values() if task.notebook == name)
    english_rubric = _source(_cell(english, task.id))
    english_rubric = english_rubric[english_rubric.index(RUBRIC_START):]
    copied = json.loads(json.dumps(chinese))
    cell = _cell(copied, task.id)
    cell["source"] = _source(cell).split(zh_rubric_heading())[0] + english_rubric
    path = tmp_path / name
    path.write_text(dumps_notebook(copied), encoding="utf-8")
    rebuilt = _source(_cell(master_for(path, Variant("self-study")), task.id))
    assert RUBRIC_START not in rebuilt
    assert rebuilt.count(zh_rubric_heading()) == 1
    assert rebuilt == _source(_cell(chinese, task.id))


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
@pytest.mark.parametrize("name", EDITIONS)
def test_no_zh_cn_notebook_holds_the_english_rubric(folder, name):
    notebook = json.loads((ROOT / folder / ZH / name).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        assert RUBRIC_START not in _source(cell), _source(cell)[:200]


def zh_rubric_heading():
    return zh("**Rubric ({points})**").split("{points}")[0]

# --- grading -------------------------------------------------------------------------------


def _grades(submissions):
    grades = grade_class(submissions, grading_key=TEST_KEY, progress=False, workers=2)
    return {(grade.student, grade.exercise): (grade.score, grade.max_score, grade.status)
            for grade in grades}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """``{(edition, kind): {(student, exercise): (score, max, status)}}``, kind master or stub."""
    root = tmp_path_factory.mktemp("zh-cn-grading")
    results = {}
    for edition, folder in (("en", ROOT / "solutions"), (ZH, ROOT / "solutions" / ZH)):
        for kind in ("master", "stub"):
            submissions = root / edition / kind
            for identity in GRADED:
                for name in EDITIONS:
                    notebook = master_for(folder / name, Variant(identity))
                    if kind == "stub":
                        notebook = strip_notebook(notebook, name)
                    (submissions / identity).mkdir(parents=True, exist_ok=True)
                    (submissions / identity / name).write_text(dumps_notebook(notebook),
                                                               encoding="utf-8")
            results[edition, kind] = _grades(submissions)
    return results


@pytest.mark.slow  # the graded fixture: the real grader on both editions, three identities
@pytest.mark.parametrize("kind", ["master", "stub"])
def test_a_zh_cn_submission_is_graded_exactly_as_the_english_one(graded, kind):
    assert graded[ZH, kind] == graded["en", kind]


@pytest.mark.slow  # the graded fixture: the real grader on both editions, three identities
def test_a_zh_cn_master_earns_full_marks_and_a_stub_nothing(graded):
    for identity in GRADED:
        for name in EDITIONS:
            for exercise in _exercises_of(name):
                score, maximum, _status = graded[ZH, "master"][identity, exercise.id]
                assert float(score) == float(maximum) == exercise.points, (identity, exercise.id)
                score, maximum, _status = graded[ZH, "stub"][identity, exercise.id]
                assert float(score) == 0 and float(maximum) == exercise.points


# --- what a learner hears --------------------------------------------------------------------


def _run_cells(notebook, grade_ids):
    namespace = {}
    for grade_id in grade_ids:
        exec(compile(_source(_cell(notebook, grade_id)), grade_id, "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture
def restore_kernel():
    from reasoneval_mini.feedback import use_variant

    yield
    use_language(DEFAULT_LANGUAGE)
    use_variant()


@pytest.mark.parametrize("name", CHECKED)
def test_check_on_an_untouched_zh_cn_stub_answers_in_chinese(name, restore_kernel, capsys):
    # The learner runs the setup cell, the stub and its check cell, and sets nothing else.
    notebook = read_notebook(ROOT / "exercises" / ZH / name)
    setup = next(_grade_id(cell) for cell in notebook["cells"] if _grade_id(cell).endswith("_setup"))
    # A typed exercise reads its source, which exec() leaves none of; a plain one suffices here.
    exercise = next(e for e in _exercises_of(name) if not e.keyed and not e.typed)
    _run_cells(notebook, [setup, exercise.id, f"{exercise.id}_check"])
    printed = capsys.readouterr().out
    title = zh("{exercise_id}: {title} ({points})").format(
        exercise_id=exercise.id, title=zh(exercise.title),
        points=zh_catalogue().ngettext("{count} point", "{count} points", exercise.points).format(
            count=exercise.points))
    advice = zh("  not attempted yet: replace `raise NotImplementedError()` in {function} with "
                "your code, then run this cell again.").format(function=exercise.answer_name)
    assert printed.splitlines()[0] == title
    assert advice in printed.splitlines()
    assert "not attempted" not in printed


@pytest.mark.parametrize("name", CHECKED)
def test_hint_in_a_zh_cn_notebook_gives_the_registrys_hint_in_chinese(name, restore_kernel, capsys):
    notebook = read_notebook(ROOT / "exercises" / ZH / name)
    setup = next(_grade_id(cell) for cell in notebook["cells"] if _grade_id(cell).endswith("_setup"))
    namespace = _run_cells(notebook, [setup])
    exercise = _exercises_of(name)[0]
    namespace["hint"](exercise.id)
    printed = capsys.readouterr().out.strip()
    assert printed == zh("Hint for {exercise_id}: {hint}").format(exercise_id=exercise.id,
                                                                 hint=zh(exercise.hint))


@pytest.mark.parametrize("name", EDITIONS)
def test_progress_in_a_zh_cn_stub_speaks_chinese(name, restore_kernel, capsys):
    # The learner runs the cell that sets the language, then the locked progress cell.
    notebook = read_notebook(ROOT / "exercises" / ZH / name)
    cells = [_grade_id(_language_cell(notebook))]
    cells += [grade_id for grade_id in (_grade_id(cell) for cell in notebook["cells"])
              if grade_id.endswith("_progress") and grade_id not in cells]
    _run_cells(notebook, cells)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split() == [zh("exercise"), zh("points"), zh("state")]
    assert any(line.startswith(zh("written")) for line in printed)
    assert CHINESE.search(printed[-1]), printed[-1]


# --- nbgrader ------------------------------------------------------------------------------


def _nbgrader_kind(cell):
    # nbgrader's cell kinds, as tests/grading/test_written_tasks.py reads schema 3.
    meta = cell["metadata"].get("nbgrader", {})
    if meta.get("grade") and meta.get("solution"):
        return "manually graded answer"
    if meta.get("solution"):
        return "autograded answer"
    if meta.get("grade"):
        return "autograder tests"
    return "read-only" if meta.get("locked") else "plain"


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
@pytest.mark.parametrize("name", EDITIONS)
def test_nbgrader_sees_the_same_assignment_in_both_editions(folder, name):
    # nbgrader imports a release by its cells' metadata: the same grade ids, kinds, points
    # and cell ids, and unique ids, make the zh-CN release the same assignment.
    def plan(path):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return [(cell["id"], cell["cell_type"], _nbgrader_kind(cell),
                 cell["metadata"].get("nbgrader", {}).get("grade_id"),
                 cell["metadata"].get("nbgrader", {}).get("points")) for cell in cells]

    english, chinese = plan(ROOT / folder / name), plan(ROOT / folder / ZH / name)
    assert chinese == english
    ids = [grade_id for *_rest, grade_id, _points in chinese if grade_id]
    assert len(ids) == len(set(ids))
    manual = {grade_id: points for _id, _type, kind, grade_id, points in chinese
              if kind == "manually graded answer"}
    assert manual == {task.id: task.points for task in WRITTEN_TASKS.values()
                      if task.notebook == name}


def test_the_conditions_menu_a_notebook_prints_itself_is_in_the_notebooks_language():
    # The zh-CN ex03 menu cell runs print(f"{key:<22} {CONDITIONS[key]}"), the English
    # program: the lookup translates, so its lines were English in the Chinese notebook.
    from reasoneval_mini.exercises.ex03_execution_states import CONDITIONS
    from reasoneval_mini.support.i18n import catalogue

    chinese = catalogue("zh-CN")
    with language("zh-CN"):
        shown = {key: CONDITIONS[key] for key in CONDITIONS}
    assert shown == {key: chinese.gettext(CONDITIONS.ids[key]) for key in CONDITIONS}
    assert all(shown[key] != CONDITIONS.ids[key] for key in CONDITIONS)
    assert {key: CONDITIONS[key] for key in CONDITIONS} == CONDITIONS.ids  # English outside


@pytest.mark.parametrize("task_id", sorted(WRITTEN_TASKS))
def test_a_rubrics_criteria_and_levels_are_enumerated_with_the_languages_separator(task_id):
    # English lists with ", ", Chinese with the enumeration comma: the catalogue's ", ".
    rows = rubric_criteria(WRITTEN_TASKS[task_id].rubric)
    english = [name if criterion else name.split(":")[0] for name, __, criterion in rows]
    chinese = [zh(name) if criterion else zh(name).split(":")[0] for name, __, criterion in rows]
    levels = [str(level) for level in RUBRIC_LEVELS[:-1]]
    assert ", ".join(english) in render_task_markdown(task_id)
    assert ", ".join(levels) + " or " in render_rubric_markdown(task_id)
    with language(ZH):
        task, rubric = render_task_markdown(task_id), render_rubric_markdown(task_id)
    assert zh(", ").join(chinese) in task
    assert zh("{levels} or {top}").format(levels=zh(", ").join(levels), top=RUBRIC_LEVELS[-1]) in rubric
