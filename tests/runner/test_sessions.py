"""The session runner's own contract, on a warm server and in a fresh interpreter alike.

Every test runs real sessions (:class:`~reasoneval_mini.runner.session.Runner`)
both ways, and first checks which way it ran (a server's child is the
server's own child; a fresh one is this process's), so that neither path can
pass for the other. A session's code writes frames of its own on its events
channel (descriptor 3) exactly as the child does (an 8-byte big-endian size,
then JSON): what the caller believes of them is the contract under test.
"""

import base64
import os
import pickle
import signal
import sys
import threading
import time

import pytest
from process_checks import assert_gone_soon, process_alive

from reasoneval_mini.runner import isolation_to_fields
from reasoneval_mini.runner.child import REPORT_CHANNEL_LOST
from reasoneval_mini.runner.confinement import SETUP_FAILED
from reasoneval_mini.runner.reaping import process_stat
from reasoneval_mini.runner.session import (
    CANCELLED, EXITED, TIMED_OUT, Cancel, Profile, Runner, SessionStopped, SetupFailed,
    deadline_in, servers_possible)
from reasoneval_mini.sandbox.policy import plan_isolation

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX processes and pipes")

PROFILE = Profile(cap_mb=16)
OFF = {"isolation": isolation_to_fields(plan_isolation("off"))}
#: A plan the kernel must refuse: file rules on a Landlock ABI that has none.
REFUSED = {"isolation": ["required", 0, ["files"], []]}
#: What a session's code needs to write its own frames on the events channel. The
#: session's nonce is in the runner's memory, where its own code can read it (a
#: program can forge its own events: the documented limit); *forge* adds it to an
#: event that names none, *body* goes as it is.
FORGE = """\
import json, os, struct, sys
NONCE = sys.modules["reasoneval_mini.runner.child"]._CHANNEL["nonce"]
def forge(event=None, body=None):
    if body is None:
        body = json.dumps({"nonce": NONCE, **event}).encode()
    view = memoryview(struct.pack(">Q", len(body)) + body)
    while view:
        view = view[os.write(3, view):]
"""


@pytest.fixture(params=["server", "fresh interpreter"])
def runner(request):
    if request.param == "server" and not servers_possible():
        pytest.skip("no runner server here (fork and descriptor passing)")
    runner = Runner(PROFILE, fresh=request.param != "server")
    yield runner
    runner.close()


def job(*sources):
    return {"tasks": [{"sources": [[f"<source {n}>", text] for n, text in enumerate(sources)]}]}


def start(runner, *sources, setup=OFF, **options):
    """Open a session of *sources* on *runner*, after checking it runs the way *runner* says."""
    session = runner.open(setup, job(*sources), **options)
    parent = process_stat(session.child.pid)  # None: a short session may be over and reaped already
    if runner.fresh:
        assert runner.server is None
        assert parent is None or parent[1] == os.getpid()
    else:
        assert runner.server is not None, "no server started: the run fell back to a fresh interpreter"
        assert process_stat(runner.server.process.pid)[1] == os.getpid()
        assert parent is None or parent[1] == runner.server.process.pid, \
            "the child was not forked by the server"
    return session


def every_event(session, seconds=10):
    """Every event the session delivers, up to its ``done`` (included)."""
    events = []
    session.next_event(lambda event: events.append(event) or event.get("event") == "done",
                       deadline_in(seconds))
    return events


# -- the setup's word: believed only before ``confined`` -------------------------------------

def test_a_refused_sandbox_is_a_setup_failure_before_anything_of_the_session_runs(runner):
    session = start(runner, "print('the code ran')\nopen('ran', 'w').close()\n",
                    setup=REFUSED, output=(1000, 1000))
    try:
        with pytest.raises(SetupFailed) as failed:
            session.next_event(lambda event: True, deadline_in(10))
        assert failed.value.outcome == EXITED
        assert failed.value.note.startswith("ConfinementFailed: ")
        assert not session.confined
        assert session.wait_exit(deadline_in(10)) == SETUP_FAILED == 70
    finally:
        ended = session.end()
    assert ended.returncode == SETUP_FAILED
    assert (ended.stdout.text(), ended.stderr.text()) == ("", "")


def test_a_setup_failure_or_confinement_said_after_the_code_began_is_not_believed(runner):
    forged = FORGE + ("forge({'event': 'setup_failed', 'message': 'forged failure'})\n"
                      "forge({'event': 'confined', 'warnings': ['forged warning'], 'capped': True})\n"
                      "forge({'event': 'marker'})\n")
    session = start(runner, forged)
    try:
        events = every_event(session)
    finally:
        session.end()
    assert [event["event"] for event in events] == ["marker", "done"]
    assert session.confined and session.setup_error is None
    assert "forged warning" not in session.warnings


def test_an_event_is_delivered_only_with_the_sessions_own_nonce(runner):
    forged = FORGE + ("forge({'event': 'done', 'nonce': '0' * 32})\n"
                      "forge(body=json.dumps({'event': 'done'}).encode())\n"
                      "forge({'event': 'done', 'nonce': None})\n"
                      "forge(body=json.dumps({'event': 'failed', 'text': 'forged'}).encode())\n"
                      "forge({'event': 'marker'})\n")
    session = start(runner, forged)
    try:
        events = every_event(session)
    finally:
        session.end()
    assert [event["event"] for event in events] == ["marker", "done"]
    assert events[-1]["nonce"] == session.nonce and len(session.nonce) == 32


# -- the size of a frame ---------------------------------------------------------------------

def sized_event(size):
    """Source that forges one event whose JSON body is exactly *size* bytes, then a marker."""
    return FORGE + (f"_head = b'{{\"event\": \"big\", \"nonce\": \"' + NONCE.encode() + b'\", \"pad\": \"'\n"
                    f"forge(body=_head + b'x' * ({size} - len(_head) - 2) + b'\"}}')\n"
                    "forge({'event': 'after'})\n")


def test_an_event_of_exactly_the_callers_bound_is_delivered(runner):
    session = start(runner, sized_event(5000), max_event_bytes=5000)
    try:
        events = every_event(session)
    finally:
        session.end()
    assert [event["event"] for event in events] == ["big", "after", "done"]
    assert len(events[0]["pad"]) == 5000 - len('{"event": "big", "nonce": "", "pad": ""}') - 32


@pytest.mark.parametrize("size", [5001, 2 << 20], ids=["one byte over", "2 MB, past a pipe's size"])
def test_an_event_frame_larger_than_the_callers_bound_ends_the_channel(runner, size):
    session = start(runner, sized_event(size), max_event_bytes=5000)
    try:
        delivered = []
        with pytest.raises(SessionStopped) as stopped:
            session.next_event(lambda event: delivered.append(event) and False, deadline_in(20))
        assert stopped.value.outcome == EXITED
        assert delivered == []  # neither the frame, nor what followed, nor the real done
        # The child was never left blocked on a full channel: it ran to its end.
        assert session.wait_exit(deadline_in(10)) == 0
    finally:
        session.end()


# -- how a wait ends: TIMED_OUT, CANCELLED, EXITED ------------------------------------------

def test_a_wait_past_its_deadline_is_timed_out_and_end_kills_the_child(runner):
    session = start(runner, "while True:\n    pass\n")
    begun = time.monotonic()
    try:
        with pytest.raises(SessionStopped) as stopped:
            session.next_event(lambda event: event["event"] == "done", deadline_in(0.5))
        waited = time.monotonic() - begun
    finally:
        ended = session.end()
    assert stopped.value.outcome == TIMED_OUT
    assert 0.45 <= waited < 2.0
    assert ended.returncode == -signal.SIGKILL
    assert not process_alive(session.child.pid)


@pytest.mark.parametrize("whose", ["the caller's cancel", "the runner's cancel"])
def test_a_cancel_set_from_another_thread_wakes_a_waiting_session_at_once(runner, whose):
    cancel = Cancel()
    session = start(runner, "import time\ntime.sleep(60)\n", cancel=cancel)
    set_at = []

    def later():
        time.sleep(0.5)
        set_at.append(time.monotonic())
        (cancel.set if whose == "the caller's cancel" else runner.cancel)()

    setter = threading.Thread(target=later)
    setter.start()
    try:
        with pytest.raises(SessionStopped) as stopped:
            session.next_event(lambda event: event["event"] == "done", deadline_in(30))
        woke = time.monotonic()
    finally:
        setter.join()
        ended = session.end()
    assert stopped.value.outcome == CANCELLED
    assert woke - set_at[0] < 0.2, f"the cancel took {woke - set_at[0]:.2f} s to wake the wait"
    assert ended.returncode == -signal.SIGKILL
    if whose == "the runner's cancel":  # and it refuses every later session
        with pytest.raises(SessionStopped) as refused:
            runner.open(OFF, job("pass"))
        assert refused.value.outcome == CANCELLED


@pytest.mark.parametrize("ending, returncode", [
    ("import os\nos._exit(3)\n", 3),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", -signal.SIGKILL),
    ("import os\nos.close(3)\nprint('and went on')\n", REPORT_CHANNEL_LOST),
], ids=["exit 3", "killed by a signal", "closed its channel"])
def test_a_child_that_ends_without_done_is_exited_and_its_returncode_told(runner, ending,
                                                                          returncode):
    session = start(runner, ending)
    try:
        with pytest.raises(SessionStopped) as stopped:
            session.next_event(lambda event: event["event"] == "done", deadline_in(10))
        assert stopped.value.outcome == EXITED
        assert session.wait_exit(deadline_in(10)) == returncode
    finally:
        ended = session.end()
    assert ended.returncode == returncode and ended.lost is None


# -- the end: what it returns, and what it kills ---------------------------------------------

def test_end_returns_the_returncode_and_the_head_and_tail_of_each_stream(runner):
    source = ("import os, sys\n"
              "print('HEAD' + 'x' * 5000 + 'TAIL', flush=True)\n"
              "print('head' + 'y' * 5000 + 'tail', file=sys.stderr, flush=True)\n"
              "os._exit(5)\n")
    session = start(runner, source, output=(4, 5))
    try:
        assert session.wait_exit(deadline_in(10)) == 5
    finally:
        ended = session.end()
    assert ended.returncode == 5 and ended.lost is None
    assert ended.stdout.text() == "HEAD\n[... 5000 bytes omitted ...]\nTAIL\n"
    assert ended.stderr.text() == "head\n[... 5000 bytes omitted ...]\ntail\n"
    assert session.events is None and session.streams == {}  # every channel closed


def test_end_without_kept_output_returns_no_streams(runner):
    session = start(runner, "print('unseen')\n")
    session.wait_exit(deadline_in(10))
    ended = session.end()
    assert (ended.returncode, ended.stdout, ended.stderr, ended.lost) == (0, None, None, None)


def test_end_of_a_session_whose_server_was_killed_says_it_was_lost(runner):
    if runner.fresh:
        pytest.skip("a fresh interpreter has no server to lose")
    session = start(runner, "import time\ntime.sleep(60)\n")
    server = runner.server.process.pid
    os.kill(server, signal.SIGKILL)
    assert_gone_soon(server)
    ended = session.end()
    assert ended.returncode is None and ended.lost
    assert_gone_soon(session.child.pid)  # the child died with its server
    again = start(runner, "pass\n")  # the next session gets a new server
    assert runner.server.process.pid != server
    assert again.wait_exit(deadline_in(10)) == 0
    again.end()


LEAVE_BEHIND = FORGE + """\
import sys, subprocess, time
try:  # its own session: refused where the sandbox filters system calls
    HELPER = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              start_new_session=True).pid
except (OSError, subprocess.SubprocessError):
    HELPER = None
done, said = os.pipe()
if os.fork() == 0:  # a double fork: its parent gone, the orphan leaves the child's subtree
    try:
        os.setsid()
    except OSError:
        pass
    orphan = os.fork()
    if orphan == 0:
        time.sleep(60)
        os._exit(0)
    os.write(said, str(orphan).encode())
    os._exit(0)
forge({"event": "left", "helper": HELPER, "orphan": int(os.read(done, 32))})
"""


@pytest.mark.parametrize("sandbox", ["off", "auto"])
@pytest.mark.parametrize("when", ["after it finished", "while it runs"])
def test_every_process_a_session_started_is_killed_at_its_end(runner, sandbox, when):
    if not sys.platform.startswith("linux"):
        pytest.skip("what left the process group is found through Linux's /proc")
    if runner.fresh and sandbox == "off":
        pytest.skip("a fresh interpreter has no subreaper: with the sandbox off, a process "
                    "that leaves its group outlives the session (docs/executor.md, as on Windows)")
    setup = {"isolation": isolation_to_fields(plan_isolation(sandbox))}
    # Finished: the session's end comes a moment after the test has seen the leftovers alive.
    rest = "import time\ntime.sleep(60 if {!r} == 'while it runs' else 0.5)\n".format(when)
    session = start(runner, LEAVE_BEHIND, rest, setup=setup)
    try:
        left = session.next_event(lambda event: event["event"] == "left", deadline_in(20))
        for pid in (left["helper"], left["orphan"]):
            assert pid is None or process_alive(pid), "a leftover died before the end: nothing to prove"
        if when == "after it finished":
            session.next_event(lambda event: event["event"] == "done", deadline_in(10))
            assert session.wait_exit(deadline_in(10)) == 0
    finally:
        session.end()
    if sandbox == "off":
        assert left["helper"] is not None, "the helper could not leave the group: nothing to prove"
    for pid in (left["helper"], left["orphan"]):
        if pid is not None:
            assert_gone_soon(pid)


def test_an_end_read_along_with_the_start_is_not_missed(monkeypatch):
    # The server's answers to one session (started, exited, the folder's word)
    # may come in one read when its program is short: the end, already read,
    # must not be waited for on the socket (a canonical solution once "timed out").
    from reasoneval_mini.runner.server import Server

    if not servers_possible():
        pytest.skip("no runner server here")
    original = Server._expect

    def late(self, key, seconds):
        time.sleep(0.3)  # the short session ends meanwhile
        return original(self, key, seconds)

    monkeypatch.setattr(Server, "_expect", late)
    runner = Runner(PROFILE)
    try:
        session = runner.open(OFF, job("pass\n"))
        assert runner.server.pending, "the end did not come with the start: nothing to prove"
        waited = time.monotonic()
        assert session.wait_exit(deadline_in(5)) == 0
        assert time.monotonic() - waited < 1
        session.end()
    finally:
        runner.close()


def _calls_session(runner, source, answers, step_seconds=1.0):
    """A notebook session of one cell defining *answers*, ready for calls."""
    session = runner.open(OFF, {"notebook": True, "step_seconds": step_seconds,
                                "tasks": [{"sources": [["<cell 1>", source]], "answers": answers}]})
    session.next_event(lambda event: event["event"] == "ready", deadline_in(10))
    return session


def _ask(session, seq, exercise, calls):
    import base64
    import pickle

    session.send({"op": "call", "seq": seq, "exercise": exercise,
                  "calls": base64.b64encode(pickle.dumps(calls)).decode("ascii")}, deadline_in(10))
    return session.next_event(lambda event: event.get("seq") == seq, deadline_in(20))["outcomes"]


def test_several_calls_in_one_request_run_in_order_and_a_stopped_one_ends_it(runner):
    source = ("made = []\n"
              "def f(x):\n    made.append(x)\n    while x == 'loop':\n        pass\n    return x * 2\n"
              "def seen():\n    return list(made)\n")
    session = _calls_session(runner, source, {"f": "f", "seen": "seen"})
    try:
        outcomes = _ask(session, 1, "f", [((1,), {}), (("ab",), {}), (("loop",), {}), ((3,), {})])
        made = _ask(session, 2, "seen", [((), {})])
    finally:
        session.end()
    assert [list(outcome) for outcome in outcomes] == [["returned"], ["returned"], ["stopped"]]
    assert "within 1 s" in outcomes[2]["stopped"]
    assert made == [{"returned": {"l": [{"i": "0x1"}, "ab", "loop"]}}]  # 3 was never called


# Swallows the first alarm, and meets the next outside its ``try`` (in the sleep),
# every time: what a loop that swallows every alarm meets now and then, under load.
SWALLOWS_ONE_ALARM_THEN_MEETS_ONE = ("import time\n"
                                     "def stubborn():\n"
                                     "    while True:\n"
                                     "        try:\n"
                                     "            while True:\n"
                                     "                pass\n"
                                     "        except BaseException:\n"
                                     "            time.sleep(5)\n")


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no SIGALRM")
@pytest.mark.parametrize("step", ["cell", "call"])
def test_a_step_that_swallowed_an_alarm_ends_only_by_the_callers_deadline(runner, step):
    # Whether a later alarm lands inside the code's try or outside it must not
    # decide how the step ends: held, it ends as a step that swallowed all.
    source = SWALLOWS_ONE_ALARM_THEN_MEETS_ONE + ("stubborn()\n" if step == "cell" else "")
    session = runner.open(OFF, {"notebook": True, "step_seconds": 0.2, "tasks": [{
        "sources": [["<cell 1>", source]], "answers": {"stubborn": "stubborn"}}]})
    try:
        if step == "call":
            session.next_event(lambda event: event["event"] == "ready", deadline_in(10))
            session.send({"op": "call", "seq": 1, "exercise": "stubborn",
                          "calls": base64.b64encode(pickle.dumps([((), {})])).decode()},
                         deadline_in(10))
        with pytest.raises(SessionStopped) as stopped:
            session.next_event(lambda event: event["event"] in ("failed", "ready", "reply"),
                               deadline_in(1.5))
        assert stopped.value.outcome == TIMED_OUT
        assert session.returncode is None  # still there, for the caller to end
    finally:
        ended = session.end()
    assert ended.returncode < 0  # killed


def test_a_reply_that_grows_past_its_bound_holds_fewer_outcomes_never_a_frame_too_large(runner):
    from reasoneval_mini.runner.child import MAX_REPLY_CHARS

    source = "def big(n):\n    return 'x' * n\n"
    session = _calls_session(runner, source, {"big": "big"})
    size = MAX_REPLY_CHARS // 3 + 1
    try:
        outcomes = _ask(session, 1, "big", [((size,), {})] * 5)
    finally:
        session.end()
    assert 1 <= len(outcomes) < 5 and all(o["returned"] == "x" * size for o in outcomes)


def test_a_frame_past_the_bound_ends_the_wait_at_once_though_the_child_goes_on(runner):
    # Not at the deadline: a grader waiting on a step would otherwise give the
    # student's whole step time to a channel that is no longer the protocol.
    session = start(runner, sized_event(5001) + "import time\ntime.sleep(30)\n",
                    max_event_bytes=5000)
    try:
        waited = time.monotonic()
        with pytest.raises(SessionStopped) as stopped:
            session.next_event(lambda event: False, deadline_in(20))
        assert stopped.value.outcome == EXITED and "not the protocol" in str(stopped.value)
        assert time.monotonic() - waited < 5
    finally:
        session.end()


def test_a_leftover_that_never_stops_writing_cannot_hold_the_end_past_its_drain(tmp_path):
    # A fresh interpreter has no subreaper: with the sandbox off, processes that
    # left the group outlive the session, holding its stdout. Its output is read
    # at the end for DRAIN_SECONDS at most, however fast it comes (here three
    # writers, faster together than one thread reads).
    from reasoneval_mini.runner.deadlines import DRAIN_SECONDS

    if not sys.platform.startswith("linux") or not os.path.exists("/dev/zero"):
        pytest.skip("needs cat and /dev/zero")
    pids = tmp_path / "pids"
    leftover = ("import subprocess\n"
                f"with open({str(pids)!r}, 'w') as out:\n"
                "    for _ in range(3):\n"
                "        out.write(f\"{subprocess.Popen(['cat', '/dev/zero'], start_new_session=True).pid}\\n\")\n")
    runner = Runner(PROFILE, fresh=True)
    try:
        session = runner.open(OFF, job(leftover), output=(100, 100))
        session.wait_exit(deadline_in(10))
        writers = [int(pid) for pid in pids.read_text().split()]
        assert len(writers) == 3 and all(map(process_alive, writers)), "nothing to prove"
        ending = time.monotonic()
        ended = session.end()  # closing our end then stops them (a broken pipe)
        took = time.monotonic() - ending
        assert ended.stdout.total > 1 << 20 and took < DRAIN_SECONDS + 1.0, (took, ended.stdout.total)
    finally:
        for pid in (pids.read_text().split() if pids.exists() else ()):
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        runner.close()
