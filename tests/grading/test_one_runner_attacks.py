"""Red-team attacks on the one runner, from a student's side: each replays one that got through.

Each test runs a real (sandboxed, where the kernel has Landlock) grading child
and fails on the code it was written against; the docstring of each says what
the attack does and what should have stopped it.
"""

import sys
import threading
import time
from pathlib import Path

import pytest

from reasoneval_mini.grading.process import GradingJob, Task, run_grading_process
from reasoneval_mini.runner import session as runner_session
from reasoneval_mini.runner.deadlines import KILL_GRACE_SECONDS
from reasoneval_mini.sandbox.policy import plan_isolation

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="F_SETPIPE_SZ and the runner server are Linux's")]

FAKE_REGISTRY = Path(__file__).parent / "fixtures" / "fake_registry.py"
STEP_SECONDS = 1.0


@pytest.fixture(autouse=True)
def fresh_servers():
    runner_session.close_idle()
    yield
    runner_session.close_idle()


# The student's first cell: it shrinks its requests pipe (descriptor 4) to one
# page (where the filter lets it: it no longer does) and fills it through
# /proc/self/fd/4, which a sandboxed process may open for writing; says "ready"
# with its own nonce (dug out of the runner, as the docs allow a session to
# forge its own events); and then never reads a request: SIGALRM, the
# watchdog's, is ignored, and the cell sleeps. The grader answers "ready" by
# writing the exercise's calls on that full pipe: it waited in write(2), with
# no deadline, until the cell's sleep ended, whatever the step's timeout.
STALL_THE_GRADERS_WRITE = """\
import fcntl, os, signal, time
from reasoneval_mini.runner import child as _runner
try:
    fcntl.fcntl(4, 1031, 4096)  # F_SETPIPE_SZ
except OSError:
    pass
filler = os.open("/proc/self/fd/4", os.O_WRONLY | os.O_NONBLOCK)
try:
    while True:
        os.write(filler, b"x" * 4096)
except BlockingIOError:
    pass
signal.signal(signal.SIGALRM, signal.SIG_IGN)
_runner.emit({"event": "ready", "task": 0, "answers": {"add": True}})
time.sleep(25)
"""


def test_a_student_cannot_hold_the_grader_in_a_write_past_the_steps_deadline():
    """Fix: write requests without blocking (poll for POLLOUT up to the step's deadline, a
    stalled write is the step's timeout), and refuse fcntl(F_SETPIPE_SZ) in the filter."""
    task = Task("ex01_add.ipynb", ((1, STALL_THE_GRADERS_WRITE),), {"add": "add_numbers"})
    big = "7" * 12000  # one planned call's argument: a request of about 16 KB
    runs, judged = [], []

    def judge(exercise_id, defined, answer, failures):
        judged.append(defined)
        answer(big, 1)
        return {"status": "failed", "message": "", "checks": []}

    job = GradingJob(str(FAKE_REGISTRY), None, STEP_SECONDS, plan_isolation("auto"))
    grading = threading.Thread(target=lambda: runs.append(run_grading_process(
        job, [task], judge, plan=lambda exercise_id: [((big, 1), {})])), daemon=True)
    started = time.monotonic()
    grading.start()
    grading.join(STEP_SECONDS + KILL_GRACE_SECONDS + 5)
    took = time.monotonic() - started
    assert not grading.is_alive(), (
        f"the grader is still writing the student's calls {took:.1f} s after the run began "
        f"(a step is {STEP_SECONDS} s + {KILL_GRACE_SECONDS} s of grace)")
    assert runs and runs[0].ending == "timeout", runs
