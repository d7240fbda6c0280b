"""An exercise's calls are asked of the student's process ahead, in one request, and nothing changes.

Each call of a student's answer was a round trip to the grading process,
several hundred per student; the checks now plan their calls
(:func:`~reasoneval_mini.exercises.checks.planned_calls`) and the grader asks
for them at once. The reference is the grader without a plan: every call made
when it comes, as before. Hand-ins are the masters (on the student's own
variant), the untouched stubs and a mix of both, of every checked notebook.
"""

import json
from pathlib import Path

from assessment_play import TEST_KEY

import reasoneval_mini.grading.process as grading_process
from reasoneval_mini.exercises.build import dumps_notebook, master_for
from reasoneval_mini.exercises.checks import bundle, case, planned_calls, rejects
from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading import grader
from reasoneval_mini.grading.grader import grade_class

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ("ex01_answer_equivalence.ipynb", "ex02_pass_at_k.ipynb",
             "ex03_execution_states.ipynb", "ex04_uncertainty.ipynb")


def _class(root):
    for student, solved in (("ada", NOTEBOOKS), ("bob", ()), ("cy", NOTEBOOKS[::2])):
        for name in NOTEBOOKS:
            path = root / student / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if name in solved:
                path.write_text(dumps_notebook(master_for(ROOT / "solutions" / name,
                                                          Variant(student))), encoding="utf-8")
            else:
                path.write_bytes((ROOT / "exercises" / name).read_bytes())


def _graded(root, monkeypatch, ahead):
    requests = []  # the number of calls in each request the grader sent
    original = grading_process._Conversation.ask

    def counted(self, exercise_id, calls):
        requests.append(len(calls))
        return original(self, exercise_id, calls)

    monkeypatch.setattr(grading_process._Conversation, "ask", counted)
    if not ahead:
        monkeypatch.setattr(grader._StudentRun, "plan", lambda self, exercise_id: [])
    grades = grade_class(root, grading_key=TEST_KEY, progress=False, workers=1)
    monkeypatch.undo()
    return json.dumps([[g.student, g.exercise, g.status, str(g.score), g.message, list(g.checks)]
                       for g in grades], sort_keys=True, default=str), requests


def test_a_class_grades_the_same_with_its_calls_asked_ahead_in_far_fewer_requests(
        tmp_path, monkeypatch):
    _class(tmp_path)
    one_by_one, single = _graded(tmp_path, monkeypatch, ahead=False)
    ahead, batched = _graded(tmp_path, monkeypatch, ahead=True)
    assert ahead == one_by_one
    assert set(single) == {1} and len(single) > 300  # the reference did make the calls
    assert sum(batched) >= len(single)  # every call was asked for (and some never used)
    assert len(batched) * 4 < len(single), (len(batched), len(single))


def test_planned_calls_are_those_the_checks_make_before_they_use_a_value():
    made = []

    def answer(*args, **kwargs):
        made.append((args, kwargs))
        return len(made)

    checks = [case("a", lambda f: [f(1), f(2, x=3)], [1, 2]),
              bundle("b", [case("b1", lambda f: f(f(4)), 0), rejects("b2", lambda f: f("z"))]),
              case("c", lambda f: sorted(f(5)) + [f(6)], 0),
              (lambda f: f(7))]  # a check of no known kind: it plans nothing
    for check in checks:
        check(answer)
    # Independent reference: the calls the checks made of a real answer, in order.
    assert made == [((1,), {}), ((2,), {"x": 3}), ((4,), {}), ((3,), {}), (("z",), {}),
                    ((5,), {}), ((7,), {})]
    assert planned_calls(checks) == [((1,), {}), ((2,), {"x": 3}), ((4,), {}), (("z",), {}),
                                     ((5,), {})]


def test_a_run_that_loops_on_its_calls_plans_a_bounded_number():
    def forever(f):
        while f(0) != "done":
            pass

    assert len(planned_calls([case("loop", forever, None)])) == 256


def test_replies_are_matched_to_their_requests_whichever_is_waited_for_first():
    # A notebook's exercises are all asked before the first is judged, and a
    # call the plan did not foresee is asked in between: each reply goes to
    # the request that asked for it, whatever the order of the waits.
    from reasoneval_mini.grading.process import PROFILE, _Conversation
    from reasoneval_mini.runner.session import Runner, deadline_in
    from reasoneval_mini.sandbox.policy import plan_isolation
    from reasoneval_mini.runner import isolation_to_fields

    runner = Runner(PROFILE)
    session = runner.open({"isolation": isolation_to_fields(plan_isolation("auto"))},
                          {"notebook": True, "step_seconds": 5.0, "tasks": [{
                              "sources": [["<cell 1>", "def twice(x):\n    return 2 * x\n"]],
                              "answers": {"a": "twice", "b": "twice", "c": "twice"}}]})
    try:
        session.next_event(lambda event: event["event"] == "ready", deadline_in(10))
        talk = _Conversation(session, 5.0, [])
        first = talk.ask("a", [((1,), {}), ((2,), {})])
        second = talk.ask("b", [((10,), {})])
        assert talk.calls("c", [((100,), {})]) == [{"returned": {"i": "0xc8"}}]
        assert talk.reply(second, 1) == [{"returned": {"i": "0x14"}}]
        assert talk.reply(first, 2) == [{"returned": {"i": "0x2"}}, {"returned": {"i": "0x4"}}]
        assert not talk.replies and not talk.asked
    finally:
        session.end()
        runner.close()
