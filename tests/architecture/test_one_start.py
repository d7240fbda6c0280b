"""Untrusted code starts one way: a runner session, and each job of starting it has one home in ``runner/``.

The process machinery (``runner/``, ``executor/``, ``grading/``) is parsed
with ``ast`` (nothing is imported), so these tests read what the code does,
not what it says. Each names the one module allowed to do the job.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "reasoneval_mini"
MACHINERY = sorted(path for part in ("runner", "executor", "grading")
                   for path in (PACKAGE / part).rglob("*.py"))
#: The one home of the command line that starts an interpreter and of the call that starts it.
START = PACKAGE / "runner" / "start.py"


def name_of(path):
    return path.relative_to(PACKAGE.parent).as_posix()


def dotted(node):
    """``"a.b.c"`` for an attribute chain ``a.b.c`` (or a bare name), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def places(predicate, allowed=START):
    """``["path:line"]`` of every node of the machinery (outside *allowed*) that *predicate* takes."""
    found = []
    for path in MACHINERY:
        if path == allowed:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A docstring (any bare string statement) describes; it does not run.
        prose = {id(node.value) for node in ast.walk(tree)
                 if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
        for node in ast.walk(tree):
            if id(node) not in prose and predicate(node):
                found.append(f"{name_of(path)}:{node.lineno}")
    return found


def test_the_home_of_starting_exists():
    assert START.is_file(), f"{name_of(START)} is missing"


def test_only_the_runner_writes_a_boot_string():
    # A boot string is Python source given to ``-c`` that puts the package on sys.path.
    def boot_string(node):
        return (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and "sys.path" in node.value and "import" in node.value)

    assert places(boot_string) == []


def test_only_the_runner_changes_sys_path():
    # A script run by path (``python child.py``) has to put the package on sys.path itself.
    def touches_sys_path(node):
        return isinstance(node, ast.Attribute) and dotted(node) == "sys.path"

    assert places(touches_sys_path) == []


def test_only_the_runner_names_the_interpreter():
    def interpreter(node):
        return isinstance(node, ast.Attribute) and dotted(node) == "sys.executable"

    assert places(interpreter) == []


#: Every way the standard library starts a process from a command line.
STARTERS = {"subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
            "subprocess.check_output", "os.posix_spawn", "os.posix_spawnp", "os.system",
            "os.spawnv", "os.spawnve", "os.execv", "os.execve", "os.execvp", "os.execvpe"}


def test_only_the_runner_starts_a_process_from_a_command_line():
    def starter(node):
        return isinstance(node, ast.Attribute) and dotted(node) in STARTERS

    def imported_starter(node):
        return (isinstance(node, ast.ImportFrom) and node.module in ("subprocess", "os")
                and any(f"{node.module}.{alias.name}" in STARTERS for alias in node.names))

    assert places(lambda node: starter(node) or imported_starter(node)) == []


#: The two ways a session's child starts, both the runner's: forked by a warm
#: server (started here), or a fresh interpreter where there is no fork.
CALLERS = ("runner/session.py", "runner/server.py")


@pytest.mark.parametrize("caller", CALLERS)
def test_each_way_of_running_untrusted_code_starts_through_the_runner(caller):
    tree = ast.parse((PACKAGE / caller).read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and (dotted(node.func) or "").split(".")[-1] == "start_child"]
    assert calls, f"{caller} does not start its child with runner.start.start_child"


#: What starts, forks, signals, waits for or talks to a process at the system's level.
PROCESS_CALLS = {"os.fork", "os.pipe", "os.kill", "os.killpg", "os.waitpid", "os.setsid",
                 "socket.socketpair", "socket.send_fds", "socket.recv_fds", "start_child",
                 "kill_process_group", "kill_process_tree", "kill_descendants"}


@pytest.mark.parametrize("client", ["executor", "grading"])
def test_the_executor_and_the_grader_run_untrusted_code_only_through_runner_sessions(client):
    # Issue 24, item 1: runner/ is the only code that starts, confines, talks
    # to and reaps untrusted code; its clients open sessions and read them.
    found = []
    for path in sorted((PACKAGE / client).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (dotted(node.func) or "") in PROCESS_CALLS:
                found.append(f"{name_of(path)}:{node.lineno} {dotted(node.func)}")
    assert found == []


@pytest.mark.parametrize("gone", ["executor/fork_server.py", "executor/fresh_interpreter.py",
                                  "executor/watch_child.py", "executor/child.py",
                                  "executor/workers.py", "grading/child.py", "grading/server.py"])
def test_the_second_and_third_ways_of_starting_untrusted_code_are_gone(gone):
    assert not (PACKAGE / gone).exists(), f"{gone} is back: untrusted code starts through runner/"


def test_no_child_keeps_a_keeper_of_its_own():
    # The grader's keeper (a subreaper per student, _keep and _become_worker)
    # is gone: the runner server is the one subreaper of every session.
    found = [f"{name_of(path)}:{node.lineno} {node.name}" for path in MACHINERY
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.FunctionDef) and node.name in ("_keep", "_become_worker")]
    subreapers = {name_of(path) for path in MACHINERY if path.name != "reaping.py"
                  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                  if calls_named({"become_subreaper"})(node)}
    assert found == []
    assert subreapers == {"reasoneval_mini/runner/server.py"}


# --- Limits and confinement: one function, one order -------------------------------

#: Applied only by :func:`reasoneval_mini.runner.confinement.limit_and_confine`.
SETUP_STEPS = {"apply_limits", "confine_child", "cap_workdir", "confine"}
CONFINEMENT = PACKAGE / "runner" / "confinement.py"


def calls_named(names):
    def call(node):
        return (isinstance(node, ast.Call)
                and (dotted(node.func) or "").split(".")[-1] in names)
    return call


def test_only_the_runner_limits_and_confines_a_child():
    assert places(calls_named(SETUP_STEPS), allowed=CONFINEMENT) == []


def test_the_one_child_limits_and_confines_itself_with_the_one_function():
    callers = [f"{name_of(path)}:{node.lineno}" for path in MACHINERY
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if calls_named({"limit_and_confine"})(node)]
    assert [place.split(":")[0] for place in callers] == ["reasoneval_mini/runner/child.py"]


# --- Dying with the parent: one rule ----------------------------------------------

REAPING = PACKAGE / "runner" / "reaping.py"


def test_only_the_runner_asks_who_the_parent_is_or_arms_a_death_signal():
    # The rule (PR_SET_PDEATHSIG, then getppid for the parent that died
    # first) and the poll of a parent that cannot send one live in one place.
    def parent_question(node):
        return ((isinstance(node, ast.Attribute) and dotted(node) == "os.getppid")
                or (isinstance(node, ast.Name) and node.id in ("PR_SET_PDEATHSIG", "prctl"))
                or (isinstance(node, ast.alias) and node.name in ("PR_SET_PDEATHSIG", "prctl")))

    found = []
    for path in MACHINERY:
        if path == REAPING:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if parent_question(node):
                found.append(f"{name_of(path)}:{getattr(node, 'lineno', '?')}")
    assert found == []


@pytest.mark.parametrize("keeper", ["runner/server.py", "runner/child.py"])
def test_the_server_and_the_child_die_with_their_parent_by_the_one_rule(keeper):
    tree = ast.parse((PACKAGE / keeper).read_text(encoding="utf-8"))
    assert [node for node in ast.walk(tree) if calls_named({"die_with_parent"})(node)], (
        f"{keeper} does not use runner.reaping.die_with_parent")


# --- A failed setup: one way to say it ------------------------------------------

def test_the_setup_failure_status_and_note_are_defined_once_in_the_runner():
    def defines(node):
        return (isinstance(node, ast.Assign)
                and any(isinstance(target, ast.Name)
                        and target.id in ("SETUP_FAILED", "MAX_SETUP_NOTE")
                        for target in node.targets))

    assert places(defines, allowed=CONFINEMENT) == []


def test_a_failed_setup_is_said_on_the_events_channel_before_confinement_and_read_once():
    # One channel (the session's events), one writer (the child, before any
    # untrusted code), one reader (the session, which believes it only before
    # ``confined``): no setup pipe, no setup file, no second event of the kind.
    child = (PACKAGE / "runner" / "child.py").read_text(encoding="utf-8")
    session = (PACKAGE / "runner" / "session.py").read_text(encoding="utf-8")
    assert '"setup_failed"' in child and '"setup_failed"' in session
    for path in MACHINERY:
        if path.name in ("child.py", "session.py") and path.parent.name == "runner":
            continue
        assert '"setup_failed"' not in path.read_text(encoding="utf-8"), name_of(path)
