"""Students forked from a warm runner server: nothing of one student in the next, each failure their own.

Each student is a runner session (:mod:`reasoneval_mini.runner.session`);
each test runs real grading children. Most assert first that the student
really was forked from a warm server (the notebooks' ``reasoneval_mini.feedback``
is imported before the student's first line, which a fresh interpreter never
does), so that none can pass on the fresh-interpreter path for a wrong reason.
"""

import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from process_checks import assert_gone_soon, process_alive
from session_processes import sessions
from submission_class import (
    ADD, FAKE_REGISTRY, REGISTRY, SHOUT, WORDS, add_notebook, build_class, grade, read_csv,
    words_notebook, write_notebook, cell)

import reasoneval_mini.grading.process as grading_process
from reasoneval_mini.runner import session as runner_session
from reasoneval_mini.grading.grader import grade_student
from reasoneval_mini.grading.process import ENDING_DONE, GradingJob, Task, run_grading_process
from reasoneval_mini.runner.reaping import descendants, process_stat
from reasoneval_mini.sandbox import seccomp
from reasoneval_mini.sandbox.policy import plan_isolation

pytestmark = [pytest.mark.slow,  # real grading children, killed and waited for
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="the runner server needs fork, descriptor passing and /proc")]

#: Where no sandbox stops a student: what they can do is the most they can.
OFF = plan_isolation("off")
#: A cell's view of where it runs: warm (forked), its server's pid (its own parent).
WHERE = ("import os, sys\n"
         "WARM = 'reasoneval_mini.feedback' in sys.modules\n"
         "def _parent(pid):\n"
         "    return int(open(f'/proc/{pid}/stat').read().rpartition(')')[2].split()[1])\n"
         "try:  # refused in the sandbox: a fresh interpreter's parent is the grader\n"
         "    SERVER = _parent(os.getpid())\n"
         "except OSError:\n"
         "    SERVER = None\n")


@pytest.fixture(autouse=True)
def fresh_servers():
    """Each test starts with no idle runner (nor its server), and leaves none behind."""
    runner_session.close_idle()
    yield
    runner_session.close_idle()


def run_one(cells, answer="where", isolation=OFF, args=()):
    """Run one student's *cells*; return ``(the run, what their answer *answer* returned)``."""
    task = Task("ex01_add.ipynb", tuple(enumerate(cells, 1)), {"add": answer})
    returned = []

    def judge(exercise_id, defined, call, failures):
        returned.append(call(*args))
        return {"status": "failed", "message": "", "checks": []}

    run = run_grading_process(GradingJob(str(FAKE_REGISTRY), None, 20.0, isolation), [task], judge)
    return run, (returned[0] if returned else None)


WHERE_ANSWER = WHERE + "def where():\n    return [WARM, SERVER]\n"

# Issue 24, attack 3: a run reads what the memory it was forked from holds.
# Every readable mapping of the process, and every frame above the cell, is
# searched for the marker; what follows each occurrence is returned. The
# marker's own occurrences here are followed by "(" or a quote, never by 12
# letters or digits, except the control below.
SCAN = r"""
import re, sys
FOUND = set()
PATTERN = re.compile(rb"MARK7Q:([0-9a-z]{12})")
frame = sys._getframe()
while frame is not None:
    for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
        FOUND.update(m.group(1).decode() for m in PATTERN.finditer(repr(value).encode("utf-8", "replace")))
    frame = frame.f_back
with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
    for line in maps.read().splitlines():
        fields = line.split()
        low, high = (int(x, 16) for x in fields[0].split("-"))
        if "r" not in fields[1] or high - low > 1 << 28 or fields[-1].startswith("[v"):
            continue
        for start in range(low, high, 1 << 24):
            try:
                mem.seek(start)
                data = mem.read(min(1 << 24, high - start))
            except (OSError, ValueError, OverflowError):
                break
            FOUND.update(m.group(1).decode() for m in PATTERN.finditer(data))
CONTROL = "MARK7Q:ownsecret0001"  # this run's own: the scan must find it
def where():
    return [WARM, SERVER, sorted(FOUND)]
"""


def test_a_forked_student_finds_nothing_of_the_previous_students_cells_or_answers():
    token = secrets.token_hex(6)
    first = (f"SECRET = 'MARK7Q:{token}'\n" + WHERE
             + "def where():\n    return [WARM, SERVER, SECRET]\n")
    run, (warm, server, secret) = run_one([first])
    assert (run.ending, warm, secret) == (ENDING_DONE, True, f"MARK7Q:{token}")
    run, (warm, again, found) = run_one([WHERE + SCAN])
    assert run.ending == ENDING_DONE
    assert (warm, again) == (True, server), "the second student was not forked by the same server"
    assert server != os.getpid()
    assert "ownsecret000" in found, found  # the scan reads this process's memory
    assert token not in found, "the previous student's secret is in the next one's memory"


KILL_SERVER = WHERE + (
    "import signal, time\n"
    "if SERVER != GRADER:  # never the grader itself (a fresh interpreter's parent)\n"
    "    os.kill(SERVER, signal.SIGKILL)\n"
    "time.sleep(1)\n")


def test_a_student_who_kills_the_runner_server_costs_only_themselves():
    run, (warm, server) = run_one([WHERE_ANSWER])
    assert warm
    killer, _ = run_one([KILL_SERVER.replace("GRADER", str(os.getpid())), WHERE_ANSWER])
    assert killer.ending != ENDING_DONE or not killer.results
    assert_gone_soon(server)
    run, (warm, new_server) = run_one([WHERE_ANSWER])
    assert run.ending == ENDING_DONE
    assert warm and new_server != server  # graded normally, forked by a new server


LEAVE_BEHIND = """
import subprocess, time
try:  # a session of its own: refused where the sandbox filters system calls
    HELPER = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              start_new_session=True).pid
except (OSError, subprocess.SubprocessError):
    HELPER = None
done, said = os.pipe()
if os.fork() == 0:  # and a double fork that leaves its parent (and its group, where it may)
    try:
        os.setsid()
    except OSError:
        pass
    orphan = os.fork()
    if orphan == 0:
        time.sleep(60)
    os.write(said, str(orphan).encode())
    os._exit(0)
ORPHAN = int(os.read(done, 32))
def helpers():
    return [WARM, HELPER, ORPHAN]
"""


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "fresh interpreter"])
def test_a_process_a_student_leaves_behind_is_killed_when_the_student_ends(forked, monkeypatch):
    # Forked, even with the sandbox off: the server is a subreaper, and what
    # left the group is still below it. A fresh interpreter has no subreaper
    # (docs/executor.md): there, the sandbox's filter keeps every process in
    # the group, and the group is killed.
    monkeypatch.setattr(grading_process, "FORK_SERVER", forked)
    isolation = OFF if forked else plan_isolation("auto")
    if not forked and not seccomp.supported():
        pytest.skip("no system-call filter here to keep a student's processes in their group")
    before = set(descendants(os.getpid()))
    run, (warm, helper, orphan) = run_one([WHERE + LEAVE_BEHIND], answer="helpers",
                                          isolation=isolation)
    assert (run.ending, warm) == (ENDING_DONE, forked)
    assert (helper is not None) == forked  # a session of its own: only where nothing refuses it
    for pid in (helper, orphan):
        if pid is not None:
            assert_gone_soon(pid)
    # Everything below the grader now is a warm server (or nothing), no student's process.
    left = [pid for pid in descendants(os.getpid()) if pid not in before]
    for pid in left:
        assert process_stat(pid)[1] == os.getpid(), f"{pid} is not a server: a leftover"
    assert len(left) == (1 if forked else 0)


SLOW_START = "import time\ntime.sleep(3)\n"


def _kill_student_runs(times, graded):
    """SIGKILL the student's session (its child and all below it) *times* times, each a new session."""
    killed = set()
    for _ in range(times):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            running = {child: pids for child, pids in sessions(os.getpid()).items()
                       if child not in killed}
            if running:
                child, pids = next(iter(running.items()))
                killed.add(child)
                for pid in pids:
                    try:
                        graded.append(process_stat(pid))
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                break
            time.sleep(0.02)


@pytest.mark.parametrize("kills, status", [(1, "passed"), (2, "interrupted")])
def test_a_student_whose_child_is_killed_from_outside_is_retried_once_then_not_graded(
        tmp_path, kills, status):
    (tmp_path / "ann").mkdir()
    write_notebook(tmp_path / "ann" / "ex01_add.ipynb",
                   add_notebook(extra=[cell("code", SLOW_START)]))
    exercises = {"add": REGISTRY.EXERCISES["add"]}
    job = GradingJob(str(FAKE_REGISTRY), None, 10.0)
    seen = []
    killer = threading.Thread(target=_kill_student_runs, args=(kills, seen))
    killer.start()
    try:
        grades = grade_student(tmp_path / "ann", exercises, job, {"add": 2})
    finally:
        killer.join()
    assert seen and all(stat[1] != os.getpid() for stat in seen if stat)  # forked ones: not the grader's
    assert [g.status for g in grades] == [status]
    if kills == 2:
        assert grades[0].message.startswith("not graded: its grading process was killed from "
                                            "outside 2 times")


def test_a_class_grades_the_same_forked_as_in_fresh_interpreters(tmp_path, monkeypatch):
    build_class(tmp_path / "subs")
    outputs = {}
    for forked in (True, False):
        monkeypatch.setattr(grading_process, "FORK_SERVER", forked)
        out = tmp_path / ("forked" if forked else "fresh")
        out.mkdir()
        grade(tmp_path / "subs", out)
        outputs[forked] = ((out / "grades.csv").read_bytes(),
                           {p.relative_to(out).as_posix(): p.read_bytes()
                            for p in sorted((out / "feedback").rglob("*")) if p.is_file()})
    assert outputs[True][0] == outputs[False][0]
    assert outputs[True][1] == outputs[False][1]
    assert len(read_csv(tmp_path / "forked" / "grades.csv")) > 10



@pytest.mark.parametrize("forked", [True, False], ids=["forked", "fresh interpreter"])
def test_a_cancel_set_while_a_student_runs_ends_the_run_as_interrupted_at_once(forked, monkeypatch):
    from reasoneval_mini.runner.session import Cancel

    monkeypatch.setattr(grading_process, "FORK_SERVER", forked)
    cancel, running, set_at = Cancel(), [], []

    def ctrl_c():
        deadline = time.monotonic() + 20
        while not running and time.monotonic() < deadline:
            running.extend(pid for pids in sessions(os.getpid()).values() for pid in pids)
            time.sleep(0.02)
        time.sleep(0.3)  # inside the student's first cell
        set_at.append(time.monotonic())
        cancel.set()

    task = Task("ex01_add.ipynb", ((1, "import time\ntime.sleep(30)\n"), (2, ADD)),
                {"add": "add_numbers"})
    setter = threading.Thread(target=ctrl_c)
    setter.start()
    try:
        run = run_grading_process(GradingJob(str(FAKE_REGISTRY), None, 60.0, OFF), [task],
                                  lambda *args: {"status": "passed", "message": "", "checks": []},
                                  cancel=cancel)
        ended_at = time.monotonic()
    finally:
        setter.join()
    assert running, "the student's session was never seen running"
    assert (run.ending, run.results) == (grading_process.ENDING_INTERRUPTED, {})
    assert ended_at - set_at[0] < 1.0, f"the run went on {ended_at - set_at[0]:.2f} s after the cancel"
    for pid in running:
        assert_gone_soon(pid)
