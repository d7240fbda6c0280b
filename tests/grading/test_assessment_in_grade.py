"""The grader plays fair on variants: it is the student who tries to game it, and gets nothing.

Every test grades real notebooks with the real registry, in the sandboxed
grading processes, the way ``reasoneval-course grade`` does. The masters are
rendered for each student's variant (:func:`~reasoneval_mini.exercises.build.master_for`),
as an instructor's class build renders the learners' copies.
"""

import json
import linecache
import re
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from assessment_play import IDENTITIES, TEST_KEY, grade_score
from reasoneval_mini import cli
from reasoneval_mini.exercises.build import dumps_notebook, master_for
from reasoneval_mini.exercises.registry import EXERCISES, NOTEBOOKS
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading.grader import grade_class
from reasoneval_mini.grading.statuses import GRADE_PASSED

pytestmark = pytest.mark.slow  # every master and stub through the real grade

ROOT = Path(__file__).resolve().parents[2]
EX01 = "ex01_answer_equivalence.ipynb"


def _write(folder, name, notebook):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(dumps_notebook(notebook), encoding="utf-8")


def _master(name, identity):
    return master_for(ROOT / "solutions" / name, Variant(identity))


def _replace_cell(notebook, grade_id, source):
    """*notebook* with the code cell *grade_id* holding *source* instead."""
    cells = [dict(cell, source=textwrap.dedent(source))
             if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id
             else cell for cell in notebook["cells"]]
    return dict(notebook, cells=cells)


def _add_cell(notebook, source):
    cell = {"cell_type": "code", "execution_count": None, "id": "added-by-the-test",
            "metadata": {}, "outputs": [],
            "source": textwrap.dedent(source)}
    return dict(notebook, cells=list(notebook["cells"]) + [cell])


def _grades(submissions):
    grades = grade_class(submissions, grading_key=TEST_KEY, progress=False, workers=2)
    return {(grade.student, grade.exercise): grade for grade in grades}


#: Identities whose folder name or text is a trap for the grader: the shipped variant, a
#: trailing space (an unzip tool's), a right-to-left mark in front, accented letters.
TRICKY_IDENTITIES = ("self-study", "zoe ", "\u200fsara", "Ólafur Jóhannsson")
_LABEL = re.compile(r"[A-Za-z_][A-Za-z_ ]*\Z")


def _kinds_of_typed(value):
    """Each text of a typed exercise's data with its digits folded (``"0,375"`` -> ``"#,#"``)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _kinds_of_typed(key)
            yield from _kinds_of_typed(inner)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for inner in value:
            yield from _kinds_of_typed(inner)
    else:
        yield re.sub(r"\d+", "#", value) if isinstance(value, str) else type(value).__name__


def _kinds_of_inputs(value):
    """A function exercise's data as its shapes: container and value types, and its labels."""
    if isinstance(value, dict):
        yield "dict"
        for key, inner in value.items():
            yield from _kinds_of_inputs(key)
            yield from _kinds_of_inputs(inner)
    elif isinstance(value, (list, tuple, set, frozenset)):
        yield type(value).__name__
        for inner in value:
            yield from _kinds_of_inputs(inner)
    else:  # a label ("commas", "timeout", a model's name) is a case; a number is not
        yield value if isinstance(value, str) and _LABEL.match(value) else type(value).__name__


def variant_kinds(identity):
    """What a sandboxed grade of *identity*'s masters exercises, as a set of (exercise, kind).

    A typed exercise: each item of its draw (folded as :func:`_kinds_of_typed`) and each
    (item, right answer) pair, so every literal the answer key types travels through the
    child's notebook run, the grader's typed reader and the plain-value channel. A function
    exercise: the shapes and labels of its inputs (:func:`_kinds_of_inputs`).
    """
    kinds = set()
    for exercise_id, exercise in EXERCISES.items():
        data = exercise.data(Variant(identity))
        if exercise.typed:
            right = exercise.solve(data)
            pairs = right.items() if isinstance(right, dict) else ((item, True) for item in right)
            kinds |= {(exercise_id, "item", kind) for kind in _kinds_of_typed(data)}
            kinds |= {(exercise_id, "answer", re.sub(r"\d+", "#", str(item)), repr(answer))
                      for item, answer in pairs}
        else:
            kinds |= {(exercise_id, "input", kind) for kind in _kinds_of_inputs(data)}
    return kinds


def covering_identities():
    """:data:`TRICKY_IDENTITIES`, then identities of :data:`IDENTITIES` until every kind is in.

    Greedy set cover over :func:`variant_kinds`: each step adds the identity that brings the
    most kinds not yet covered. (13 of the 53 when this was written.)
    """
    kinds = {identity: variant_kinds(identity) for identity in IDENTITIES}
    chosen = list(TRICKY_IDENTITIES)
    left = set().union(*kinds.values()) - set().union(*(kinds[i] for i in chosen))
    while left:
        best = max(IDENTITIES, key=lambda identity: len(kinds[identity] & left))
        chosen.append(best)
        left -= kinds[best]
    return chosen


def _run_cell(source, filename, namespace):
    """Run a cell's *source* in *namespace*, its source readable as IPython keeps it."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)


def _answer_cells(notebook):
    """grade_id -> source of each exercise's answer cell in *notebook*."""
    return {cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell["source"])
            for cell in notebook["cells"] if cell["cell_type"] == "code"
            and cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") in EXERCISES}


def test_every_master_answer_is_right_on_every_variant_in_process():
    """Every master rendered for each of the 53 identities: its answers are those of its variant.

    A typed answer is written by the build for each variant (from the answer key): each one,
    run here from the rendered cell, scores full marks on its variant's public and hidden
    checks (:func:`assessment_play.grade_score`, the grader's scoring, with the test key). A
    function answer is the same code for every variant: the rendered cell is the shipped
    master's, which the per-exercise tests (``tests/exercises/test_kp*_assessment.py``) score
    on every variant in process, and the next test grades in the sandbox.
    """
    shipped = {name: _answer_cells(json.loads((ROOT / "solutions" / name).read_text("utf-8")))
               for name in NOTEBOOKS}
    wrong = {}
    for identity in IDENTITIES:
        for name in NOTEBOOKS:
            for exercise_id, source in _answer_cells(_master(name, identity)).items():
                exercise = EXERCISES[exercise_id]
                if not exercise.typed:
                    if source != shipped[name][exercise_id]:
                        wrong[identity, exercise_id] = "the function differs from the shipped one"
                    continue
                namespace = {"__name__": "__main__"}
                _run_cell(source, f"<{identity!r} {exercise_id}>", namespace)
                score = grade_score(exercise_id, namespace[exercise.answer_name], identity)
                if score != exercise.points:
                    wrong[identity, exercise_id] = score
    assert wrong == {}
    assert set().union(*shipped.values()) == set(EXERCISES)  # every answer cell was read


def test_every_master_earns_full_marks_in_grade_on_variants_that_cover_every_kind(tmp_path):
    """Every master, rendered for each covering variant, graded by ``grade`` in its sandbox.

    Grading all 53 identities here took over a minute; the variants are not all different
    cases for the grader. The test above scores every answer on every variant in process;
    what only the sandboxed grade adds is the identity's folder, the notebook run in the
    child, the grader's reading of typed answers and the channel that carries returned
    values. So the variants graded here are the tricky identities and enough others that
    every kind of every exercise's draw appears (:func:`covering_identities`): every item
    and right answer of each typed exercise, every input shape and label of each function
    exercise.
    """
    identities = covering_identities()
    # The kinds tell variants apart: the tricky four alone do not hold them all.
    assert len(identities) > len(TRICKY_IDENTITIES)
    submissions = tmp_path / "submissions"
    for identity in identities:
        for name in NOTEBOOKS:
            _write(submissions / identity, name, _master(name, identity))
    grades = _grades(submissions)
    wrong = {key: (grade.score, grade.message) for key, grade in grades.items()
             if key[1] in EXERCISES and (grade.status != GRADE_PASSED
                                         or grade.score != grade.max_score)}
    assert wrong == {}
    assert {student for student, _ in grades} == set(identities)
    assert {exercise for _, exercise in grades} >= set(EXERCISES)


def test_a_classmates_typed_answer_and_the_variant_line_earn_nothing_on_your_own_variant(tmp_path):
    # bob hands in ada's notebook as it is: her items, her typed answers, her use_variant line.
    submissions = tmp_path / "submissions"
    _write(submissions / "ada", EX01, _master(EX01, "ada"))
    _write(submissions / "bob", EX01, _master(EX01, "ada"))
    grades = _grades(submissions)
    assert grades["ada", "kp1_practice_verdicts"].score == 1
    assert grades["bob", "kp1_practice_verdicts"].score == 0
    assert EXERCISES["kp1_practice_verdicts"].data(Variant("ada")) != \
        EXERCISES["kp1_practice_verdicts"].data(Variant("bob"))


def test_a_prediction_computed_with_the_library_earns_nothing_and_says_to_type_it(tmp_path):
    notebook = _replace_cell(_master(EX01, "ada"), "kp1_practice_verdicts", """\
        def practice_verdicts():
            data = task_data("kp1_practice_verdicts")
            return {p: numeric_equivalence(p, data["reference"]) for p in data["predictions"]}
        """)
    _write(tmp_path / "submissions" / "ada", EX01, notebook)
    grade = _grades(tmp_path / "submissions")["ada", "kp1_practice_verdicts"]
    assert grade.score == 0
    assert "must return its predictions typed in as a literal" in grade.message


@pytest.mark.parametrize("how, source", [
    ("by name", """\
        from reasoneval_mini.exercises.ex01_answer_equivalence import reference_outcome
        def classify_outcome(prediction, reference):
            return reference_outcome(prediction, reference)
        """),
    ("under an alias bound in another cell's import", """\
        import reasoneval_mini.exercises.ex01_answer_equivalence as course
        mine = course.reference_outcome
        def classify_outcome(prediction, reference):
            return mine(prediction, reference)
        """),
    ("from a thread", """\
        import threading
        from reasoneval_mini.exercises.ex01_answer_equivalence import reference_outcome
        def classify_outcome(prediction, reference):
            out = []
            worker = threading.Thread(target=lambda: out.append(reference_outcome(prediction, reference)))
            worker.start(); worker.join()
            return out[0]
        """),
])
def test_an_answer_that_delegates_to_the_reference_earns_nothing_under_the_grader(tmp_path, how,
                                                                                  source):
    notebook = _replace_cell(_master(EX01, "ada"), "kp1_classify_outcome", source)
    _write(tmp_path / "submissions" / "ada", EX01, notebook)
    grade = _grades(tmp_path / "submissions")["ada", "kp1_classify_outcome"]
    assert grade.score == 0, how
    assert "0 points: the answer calls" in grade.message, how


def test_an_own_answer_that_calls_the_allowed_library_function_keeps_its_points(tmp_path):
    # numeric_equivalence is what the statement asks to use; only the reference is refused.
    _write(tmp_path / "submissions" / "ada", EX01, _master(EX01, "ada"))
    grade = _grades(tmp_path / "submissions")["ada", "kp1_classify_outcome"]
    assert grade.score == 2 and grade.status == GRADE_PASSED


def test_the_answer_key_and_the_masters_are_out_of_reach_of_student_code(tmp_path):
    # The student's answer returns whatever reading the instructor's files gave it.
    notebook = _add_cell(_replace_cell(_master(EX01, "ada"), "kp1_classify_outcome", """\
        def classify_outcome(prediction, reference):
            return READ
        """), """\
        import pathlib, reasoneval_mini
        READ = []
        course = pathlib.Path(reasoneval_mini.__file__).resolve().parents[1]
        for path in (course / "solutions" / "answer_key.py",
                     course / "solutions" / "ex01_answer_equivalence.ipynb"):
            try:
                READ.append(path.read_text()[:40])
            except OSError as error:
                READ.append(type(error).__name__)
        """)
    _write(tmp_path / "submissions" / "ada", EX01, notebook)
    grade = _grades(tmp_path / "submissions")["ada", "kp1_classify_outcome"]
    from reasoneval_mini.sandbox import plan_isolation

    if not plan_isolation("auto").enforced:
        pytest.skip("no kernel sandbox here: student code can read what the grader's user can")
    actual = grade.checks[0]["actual"]
    assert actual == "['PermissionError', 'PermissionError']", actual


def test_the_grader_refuses_to_start_when_a_choice_exercise_has_no_answer_key(tmp_path, capsys):
    registry = tmp_path / "keyed_registry.py"
    registry.write_text(textwrap.dedent("""\
        from reasoneval_mini.exercises.checks import Exercise
        from reasoneval_mini.exercises.registry import run_checks
        EXERCISES = {"pick": Exercise("pick", "ex01_pick.ipynb", "pick", 2, "Pick", "Choose.",
                                      "the choice", "", (), keyed=True)}
        """), encoding="utf-8")
    (tmp_path / "submissions" / "ada").mkdir(parents=True)
    from reasoneval_mini.exercises.answer_key import use_answer_key
    try:
        code = cli.main(["grade", str(tmp_path / "submissions"), "--out", str(tmp_path / "g.csv"),
                         "--registry", str(registry), "--answer-key", str(tmp_path / "no_key.py"),
                         "--no-progress"])
    finally:
        use_answer_key(None)  # the grader sets the key path for the process: the next test's
        # build (which types the keyed kp1_sort_disagreements answers) needs the course's key
    err = capsys.readouterr().err
    assert code == 2 and "answer key" in err and "--answer-key" in err
    assert not (tmp_path / "g.csv").exists()  # no 0 written for anyone


def test_hidden_checks_depend_on_the_key_and_the_student_and_repeat_for_both():
    exercise = EXERCISES["kp1_classify_outcome"]

    def calls(identity, key):
        return [check(lambda *args: args).call for check in
                exercise.hidden_checks(Variant(identity, key=key))]
    assert calls("ada", TEST_KEY) == calls("ada", TEST_KEY)
    assert calls("ada", TEST_KEY) != calls("bob", TEST_KEY)
    assert calls("ada", TEST_KEY) != calls("ada", bytes(32))
    public = {check(lambda *args: args).call for check in exercise.public_checks(Variant("ada"))}
    assert public.isdisjoint(calls("ada", TEST_KEY))


def test_every_untouched_stub_of_a_class_build_earns_nothing(tmp_path):
    from reasoneval_mini.exercises.build import plan_class
    from reasoneval_mini.support.files import write_atomically

    identities = IDENTITIES[:6]
    for path, text in plan_class(ROOT / "solutions", tmp_path / "submissions", identities):
        write_atomically(path, text)
    grades = _grades(tmp_path / "submissions")
    scored = {key: grade.score for key, grade in grades.items() if key[1] in EXERCISES}
    assert len(scored) == len(identities) * len(EXERCISES)
    assert set(scored.values()) == {0}
    assert all("not attempted yet" in grades[key].message for key in scored)
