"""One student's run: their notebooks as a runner session, their answers called, every wait bounded.

The grader's side of a student's run. A student is a session of the runner
(:mod:`reasoneval_mini.runner.session`): one task per notebook, whose
sources are its code cells, followed by calls to the notebook's answers.
The checks run here, on a stand-in function (:func:`remote_answer`) whose
every call is a request to the session's child and whose return value is
rebuilt from plain data (:func:`~reasoneval_mini.runner.plain_values.decode_plain`,
bounded in size, in the time exact arithmetic on it takes and in what a set
of its parts costs). The expected values, hidden checks and comparisons
never enter the child. The child is forked by a warm runner server of the
grading :data:`PROFILE` (a fresh interpreter where there is no ``fork``, or
with :data:`FORK_SERVER` off), confined to the sandbox the job's
:class:`~reasoneval_mini.sandbox.Isolation` describes, in an empty working
folder capped at :data:`WORKDIR_LIMIT_MB`, with a minimal environment (and
:data:`CHILD_SETTINGS`) and no path to any notebook, registry or hidden
test; when the run ends, everything it started is killed.

What the child says is read as a protocol, never trusted: events of the
wrong kind, for a notebook or cell it was not given, or out of turn are
dropped, so student code writing on its own channel can only stall itself.
Every wait has a deadline: a step (a cell, a call, a notebook's end) gets
``step_timeout + KILL_GRACE_SECONDS`` seconds, and only progress starts the
next step, so the whole run is bounded by the steps it has.

How a run ends is one of :data:`ENDINGS`:

* ``done``: the child reported it finished (or reported its own failure, ``fatal``);
* ``timeout``: it made no progress within a step's limit and was killed;
* ``died``: it stopped without saying so; :attr:`ChildRun.how` says how;
* ``interrupted``: the grader was asked to stop (Ctrl-C) and killed it.
"""

import base64
import collections
import pickle
import time
from dataclasses import dataclass, field

from reasoneval_mini.support.i18n import _
from reasoneval_mini.runner import isolation_to_fields, plan_sandbox
from reasoneval_mini.runner.child import CALL_MODULES
from reasoneval_mini.runner.deadlines import KILL_GRACE_SECONDS, deadline_after
from reasoneval_mini.runner.exceptions import rebuild_exception
from reasoneval_mini.runner.plain_values import NotPlainValue, decode_plain
from reasoneval_mini.runner.session import (
    CANCELLED, TIMED_OUT, Profile, RunnerLost, SessionStopped, SetupFailed, borrow, give_back)
from reasoneval_mini.support.call_watch import DelegationRefused
from reasoneval_mini.support.processes import signal_name
from reasoneval_mini.support.text import shorten
from reasoneval_mini.grading.context import UNDER_GRADER_ENV
from reasoneval_mini.grading.statuses import GRADE_TIMEOUT

ENDING_DONE = "done"
ENDING_TIMEOUT = "timeout"
ENDING_DIED = "died"
ENDING_INTERRUPTED = "interrupted"
#: How a grading child run ends, defined once.
ENDINGS = (ENDING_DONE, ENDING_TIMEOUT, ENDING_DIED, ENDING_INTERRUPTED)
#: Longest error text kept per failed cell, in characters (a message names up to three).
CELL_ERROR_CHARS = 150
#: Address-space ceiling of a grading process, in MB (POSIX).
MEMORY_LIMIT_MB = 4096
#: Size of the grading process's working folder, in MB (Linux): it lives in
#: memory, where no address-space limit counts what it holds.
WORKDIR_LIMIT_MB = 256
#: Largest file a grading process may write or size, in MB (POSIX): no more
#: than its folder holds.
FILE_SIZE_LIMIT_MB = WORKDIR_LIMIT_MB

#: What a grading child's environment holds besides the runner's minimal one
#: (:func:`~reasoneval_mini.runner.environment.child_environment`): reproducible
#: runs, and the word that the course's own code runs under the grader
#: (:mod:`reasoneval_mini.grading.context`).
CHILD_SETTINGS = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
                  UNDER_GRADER_ENV: "1"}
#: What every student's run imports, imported once by each warm server: the
#: modules the course's notebooks import in their setup cells (measured: about
#: 80 ms of feedback, 55 of code_report, 20 of the executor, 28 of ex03's setup
#: cell per fresh interpreter). Names, not imports: a student's run imports
#: them, the server only warms them; none reads anything of a student at import
#: time. A fixed list, never the notebooks' own imports: the server is outside
#: the sandbox, and a module's top level runs there.
PRE_IMPORTS = ("reasoneval_mini", "reasoneval_mini.feedback",
               "reasoneval_mini.evaluation.code_report", "reasoneval_mini.executor.program",
               "reasoneval_mini.estimators", "reasoneval_mini.records",
               "reasoneval_mini.exercises.ex03_execution_states")
#: The runners every student's session runs on.
PROFILE = Profile(cap_mb=WORKDIR_LIMIT_MB, env=tuple(sorted(CHILD_SETTINGS.items())),
                  pre_imports=PRE_IMPORTS + CALL_MODULES)


@dataclass(frozen=True)
class GradingJob:
    """What every grading child of one run is told, besides its notebooks.

    *registry*: a dotted module name or an absolute path to a ``.py`` file;
    *hidden_tests*: an absolute path or ``None`` (both are loaded by the
    grader, never by a child); *step_timeout*: seconds one step (a cell, or
    one exercise's calls) may take; *isolation*: the
    :class:`~reasoneval_mini.sandbox.Isolation` every child applies
    (``None``: ``plan_sandbox("auto")``, which warns once about what is missing).
    """

    registry: str
    hidden_tests: str | None
    step_timeout: float
    isolation: object = None
    #: The grader's secret for the hidden checks' draws (never sent to a child).
    grading_key: bytes | None = field(default=None, repr=False)
    #: The answer key file (``None``: the default search of
    #: :func:`~reasoneval_mini.exercises.answer_key.answer_key`); read by the grader only.
    answer_key: str | None = None
    #: Judge every student on this identity's variant (``progress``: the notebooks' own);
    #: ``None``: each on their folder's name (``grade``).
    identity: str | None = None
    #: Run the public checks only (``progress``: what ``check()`` runs), no hidden ones.
    public_only: bool = False

    def sandbox(self):
        """The :class:`~reasoneval_mini.sandbox.Isolation` the children apply."""
        return self.isolation if self.isolation is not None else plan_sandbox("auto")


@dataclass(frozen=True)
class Task:
    """One notebook for a child: its file *name*, the *cells* to run, ``{exercise_id: answer name}``.

    *refuses*: ``{exercise_id: dotted names}`` of the library functions each
    exercise's answer must not call; the child watches every call for them
    (:mod:`reasoneval_mini.support.call_watch`).
    """

    notebook: str
    cells: tuple
    answers: dict
    refuses: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CellFailure:
    """A cell that raised or timed out (*kind* ``"error"`` or ``"timeout"``), or was skipped."""

    cell: int
    kind: str
    message: str


@dataclass(frozen=True)
class Step:
    """Where a run was: the notebook, then the cell it ran or the exercise it checked."""

    notebook: str | None = None
    cell: int | None = None
    exercise: str | None = None


@dataclass(frozen=True)
class ChildRun:
    """What one child run judged, and how it ended (one of :data:`ENDINGS`).

    *results*: ``{exercise_id: result dict}`` of the exercises judged;
    *step*: where it was when it ended; *how*: for ``died``, how
    (``"it exited with code 3"``); *fatal*: the child's own failure message.
    """

    ending: str
    how: str = ""
    step: Step = Step()
    results: dict = field(default_factory=dict)
    fatal: str | None = None
    signal: int | None = None  # died: the signal that ended it, if one did


class CallStopped(BaseException):
    """A call to the child got no answer (it stopped, timed out or died); ends the exercise.

    A BaseException, so that a check's ``except Exception`` does not turn it into a result.
    """




def outcome_value(outcome):
    """Return what a call's *outcome* (a child reply) returned, or raise what it raised."""
    if not isinstance(outcome, dict):
        raise CallStopped("a malformed reply")
    if "returned" in outcome:
        try:
            return decode_plain(outcome["returned"])
        except (ValueError, RecursionError) as error:
            raise NotPlainValue(shorten(error)) from None
    if "not_plain" in outcome:
        raise NotPlainValue(f"returned {str(outcome['not_plain'])[:80]}, not plain data (exact "
                            "int, float, Fraction, str, bool, None, or a list, tuple, dict, set "
                            "or frozenset of them)")
    if "refused" in outcome and isinstance(outcome["refused"], dict):
        refused = outcome["refused"]
        raise DelegationRefused(shorten(str(refused.get("function", "?")), 120),
                                refused.get("escape") is True)
    if "raised" in outcome and isinstance(outcome["raised"], dict):
        raise rebuild_exception(outcome["raised"])
    raise CallStopped(shorten(str(outcome.get("stopped", "no answer"))))


def remote_answer(name, call):
    """A function named *name* that forwards each call to ``call(args, kwargs)`` and returns its value."""
    def answer(*args, **kwargs):
        return outcome_value(call(args, kwargs))
    answer.__name__ = answer.__qualname__ = name
    return answer


# -- one child run --------------------------------------------------------------------------

def describe_exit(returncode):
    """Human words for a child's exit code.

    >>> describe_exit(3)
    'it exited with code 3'
    >>> describe_exit(-11)
    'it was killed by signal SIGSEGV'
    """
    if returncode is None:
        return _("it closed its result channel and was killed")
    if returncode < 0:
        name = signal_name(-returncode)
        if name.startswith("SIG"):
            return _("it was killed by signal {signal}").format(signal=name)
        return _("it was killed by {signal}").format(signal=name)
    return _("it exited with code {code}").format(code=returncode)


class _Fatal(BaseException):
    """The child reported that the runner itself failed (not the student's code)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class _Ended(BaseException):
    """The session ended during a call (*cause*: what the runner raised).

    A BaseException, so that a check's ``except Exception`` cannot turn the
    end of the run into a check's result.
    """

    def __init__(self, cause):
        super().__init__(str(cause))
        self.cause = cause


class _Conversation:
    """The grader's side of one student's session: each wait one step long, events followed as a protocol.

    Each wait accepts only the events that are progress from where the child
    is (a later cell of this notebook, the cell it is on failing once, this
    notebook's ``ready``, the reply to this call) and gives them one step's
    time (``step_timeout + KILL_GRACE_SECONDS``); anything else is dropped
    and extends nothing. Since each of those steps happens once, the run as
    a whole is bounded too. Only where the child is (:attr:`step`), the
    failed cells of the current notebook and the results are kept.
    """

    def __init__(self, session, step_timeout, tasks, plan=None):
        self.session, self.step_timeout, self.tasks = session, step_timeout, list(tasks)
        self.plan = plan
        self.step, self.results, self.seq = Step(), {}, 0
        self.asked, self.replies = set(), {}  # requests sent and not answered; replies kept

    def step_deadline(self):
        """When a step that starts now gives up: the child's own limit, then the grace."""
        return deadline_after(time.monotonic(), self.step_timeout, KILL_GRACE_SECONDS)

    def next_accepted(self, accept):
        """The next event ``accept(event)`` takes, within one step; raises :class:`_Fatal` on the child's own failure."""
        event = self.session.next_event(lambda e: e.get("event") == "fatal" or accept(e),
                                        self.step_deadline())
        if event.get("event") == "fatal":
            raise _Fatal(shorten(str(event.get("message", ""))))
        return event

    def calls(self, exercise_id, calls):
        """Have the child make *calls* (``[(args, kwargs)]``) of *exercise_id*'s answer, in order.

        Returns their outcomes, in order: all of them, or fewer when one was
        stopped (the last then says so) or the reply grew too large (the
        caller makes the rest again). Raises ``TypeError`` for arguments that
        cannot be sent.
        """
        return self.reply(self.ask(exercise_id, calls), len(calls))

    def ask(self, exercise_id, calls):
        """Send a request of *calls* (see :meth:`calls`) without waiting for its reply; its number."""
        self.seq += 1
        try:
            payload = base64.b64encode(pickle.dumps(list(calls))).decode("ascii")
        except Exception as error:  # noqa: BLE001 - an argument the child cannot get
            raise TypeError(f"the check's arguments cannot be sent to the student's process: "
                            f"{type(error).__name__}: {error}") from None
        try:
            self.session.send({"op": "call", "seq": self.seq, "exercise": exercise_id,
                               "calls": payload}, self.step_deadline())
        except (SessionStopped, RunnerLost) as error:
            raise _Ended(error) from None
        self.asked.add(self.seq)
        return self.seq

    def reply(self, seq, count):
        """The outcomes of request *seq* (at most *count*); replies to later requests that come first are kept."""
        while seq not in self.replies:
            try:
                event = self.next_accepted(lambda e: e.get("event") == "reply"
                                           and e.get("seq") in self.asked)
            except (SessionStopped, RunnerLost) as error:
                raise _Ended(error) from None
            self.asked.discard(event["seq"])
            self.replies[event["seq"]] = event.get("outcomes")
        outcomes = self.replies.pop(seq)
        return outcomes[:count] if isinstance(outcomes, list) else []

    def answer_call(self, exercise_id, args, kwargs, ahead):
        """The outcome of one call of the answer: given ahead (*ahead*: see :meth:`ask_ahead`), else asked now."""
        try:
            key = pickle.dumps((args, kwargs))
        except Exception:  # noqa: BLE001 - calls() says what cannot be sent
            key = None
        given = ahead.get(key)
        if given:
            return given.popleft()
        outcomes = self.calls(exercise_id, [(args, kwargs)])
        return outcomes[0] if outcomes else {"stopped": "no answer"}

    def ask_ahead(self, exercise_id, planned):
        """Ask for the *planned* calls of *exercise_id* in one request; what :meth:`ahead` takes.

        Why: each call is a round trip to the child, and an exercise's
        checks make dozens; the checks plan the calls they make before they
        use a value (:func:`~reasoneval_mini.exercises.checks.planned_calls`),
        and each then finds its outcome ready, served once. A call the plan
        did not foresee (one that needs an earlier value, one of a check of
        another kind) is made when it comes. A notebook's exercises are all
        asked before the first is judged: the child answers the next while
        the grader judges one.
        """
        calls, keys = [], []
        for call in planned:
            try:
                keys.append(pickle.dumps(call))
            except Exception:  # noqa: BLE001 - made when it comes, and refused then
                continue
            calls.append(call)
        return (self.ask(exercise_id, calls) if calls else None), keys

    def ahead(self, asked):
        """``{pickled call: outcomes}`` of a request :meth:`ask_ahead` sent."""
        seq, keys = asked
        table = {}
        for key, outcome in zip(keys, self.reply(seq, len(keys)) if seq is not None else ()):
            table.setdefault(key, collections.deque()).append(outcome)
        return table

    def converse(self, judge):
        """Follow the child through its tasks, in order; judge each notebook's exercises."""
        for index, task in enumerate(self.tasks):
            self.step = Step(task.notebook)
            failures, ready = self._run_cells(index, task)
            defined = ready.get("answers") if isinstance(ready.get("answers"), dict) else {}
            asked = {}
            for exercise_id in task.answers:
                if defined.get(exercise_id) is True and self.plan is not None:
                    self.step = Step(task.notebook, exercise=exercise_id)
                    try:
                        planned = self.plan(exercise_id)
                    except Exception:  # noqa: BLE001 - its judge meets the same trouble, and says it
                        planned = []
                    asked[exercise_id] = self.ask_ahead(exercise_id, planned)
            for exercise_id, name in task.answers.items():
                self.step = Step(task.notebook, exercise=exercise_id)
                try:
                    table = self.ahead(asked[exercise_id]) if exercise_id in asked else {}
                    answer = remote_answer(name, lambda args, kwargs, i=exercise_id, t=table:
                                           self.answer_call(i, args, kwargs, t))
                    result = judge(exercise_id, defined.get(exercise_id) is True, answer, failures)
                except CallStopped as stopped:  # the child's watchdog stopped a call
                    result = {"status": GRADE_TIMEOUT, "message": str(stopped), "checks": []}
                self.results[exercise_id] = result
            self.session.send({"op": "next"}, self.step_deadline())
        self.step = Step()
        self.next_accepted(lambda e: e.get("event") == "done")

    def _run_cells(self, index, task):
        """Follow *task*'s cells to its ``ready`` event; return ``(CellFailure list, ready event)``."""
        failures, current = [], [None]  # the source the child is on

        def progress(event):
            kind, source = event.get("event"), event.get("source")
            if event.get("task") != index:
                return False
            if kind == "ready":
                return True
            if kind == "source":  # a later cell of those it was given
                return (type(source) is int and source < len(task.cells)
                        and (current[0] is None or source > current[0]))
            return (kind == "failed" and source is not None and source == current[0]
                    and not (failures and failures[-1].cell == self.step.cell))  # once

        while True:
            event = self.next_accepted(progress)
            if event["event"] == "ready":
                return failures, event
            if event["event"] == "source":
                current[0] = event["source"]
                self.step = Step(task.notebook, cell=task.cells[current[0]][0])
            else:
                failures.append(CellFailure(
                    self.step.cell, "timeout" if event.get("timeout") is True else "error",
                    shorten(str(event.get("text", "")), CELL_ERROR_CHARS)))


def job_of(job, tasks):
    """The runner job (see :mod:`reasoneval_mini.runner.child`) that runs *tasks* as *job* says."""
    return {"notebook": True, "step_seconds": job.step_timeout,
            "tasks": [{"sources": [[f"<{task.notebook} cell {number}>", source]
                                   for number, source in task.cells],
                       "answers": dict(task.answers),
                       "refuses": {i: list(names) for i, names in task.refuses.items()}}
                      for task in tasks]}


def run_grading_process(job, tasks, judge, *, cancel=None, plan=None, meanwhile=None):
    """Run one sandboxed child on *tasks*; call ``judge(exercise_id, defined, answer, failures)``.

    *tasks*: :class:`Task` objects, run in order. *judge* runs in the grader
    and returns the exercise's result dict (``status``, ``message``,
    ``checks``); *answer* is a :func:`remote_answer`, *defined* whether the
    child found a callable of that name, *failures* the notebook's
    :class:`CellFailure` list. A :class:`CallStopped` raised by *judge* (the
    child's watchdog stopped a call) makes that exercise ``timeout``.
    *cancel*: a :class:`~reasoneval_mini.runner.session.Cancel` that stops
    the run. *plan*: ``plan(exercise_id)``, the calls the judge will make of
    that exercise's answer (``[(args, kwargs)]``), asked of the child in one
    request before the judge runs (see :meth:`_Conversation.ask_ahead`).
    *meanwhile*: called once the child has its job, while it runs its cells
    (the grader draws its checks then, instead of before). Returns a
    :class:`ChildRun`.
    """
    setup = {"isolation": isolation_to_fields(job.sandbox()), "memory_mb": MEMORY_LIMIT_MB,
             "file_size_mb": FILE_SIZE_LIMIT_MB}
    (runner,) = borrow(PROFILE, fresh=not FORK_SERVER)
    try:
        try:
            session = runner.open(setup, job_of(job, tasks), cancel=cancel)
        except SessionStopped:  # cancelled before it started
            return ChildRun(ENDING_INTERRUPTED)
        except RunnerLost as error:
            return ChildRun(ENDING_DONE, fatal=shorten(f"the runner failed: {error}"))
        conversation = _Conversation(session, job.step_timeout, tasks, plan)
        ending, fatal = ENDING_DONE, None
        try:
            if meanwhile is not None:
                meanwhile()
            try:
                conversation.converse(judge)
            except _Ended as ended_in_a_call:
                raise ended_in_a_call.cause from None
        except SetupFailed as failed:  # no sandbox, no student code: the grader says why
            fatal = shorten(failed.note)
        except SessionStopped as stop:
            ending = {CANCELLED: ENDING_INTERRUPTED, TIMED_OUT: ENDING_TIMEOUT}.get(
                stop.outcome, ENDING_DIED)
            if ending == ENDING_DIED:
                _wait_briefly(session)
        except _Fatal as failed:
            fatal = failed.message
        except RunnerLost:
            ending = ENDING_DIED
        finally:
            ended = session.end()
    finally:
        give_back([runner])
    returncode = ended.returncode if ended.lost is None else None
    how = describe_exit(returncode) if ending == ENDING_DIED else ""
    killed_by = -returncode if returncode is not None and returncode < 0 else None
    return ChildRun(ending, how, conversation.step, conversation.results, fatal, killed_by)


def _wait_briefly(session):
    """Give a child whose events ended a moment to exit, so that its end can be told."""
    try:
        session.wait_exit(time.monotonic() + KILL_GRACE_SECONDS)
    except (SessionStopped, RunnerLost):
        pass


#: Fork each student's child from a warm runner server where one can run
#: (:mod:`reasoneval_mini.runner.server`); False: a fresh interpreter for
#: each, as where there is no ``fork`` (the tests of that path set it).
FORK_SERVER = True
