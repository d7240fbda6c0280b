"""Untrusted code starts one way: each job of starting a child has one home in ``runner/``.

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


#: The three ways untrusted code starts: a fork server, a fresh interpreter, a grading child.
CALLERS = ("executor/fork_server.py", "executor/fresh_interpreter.py", "grading/process.py")


@pytest.mark.parametrize("caller", CALLERS)
def test_each_way_of_running_untrusted_code_starts_through_the_runner(caller):
    tree = ast.parse((PACKAGE / caller).read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and (dotted(node.func) or "").split(".")[-1] == "start_child"]
    assert calls, f"{caller} does not start its child with runner.start.start_child"


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


#: The three places a child sets itself up before untrusted code runs.
CHILDREN = ("executor/fork_server.py", "executor/child.py", "grading/child.py")


@pytest.mark.parametrize("child", CHILDREN)
def test_each_child_limits_and_confines_itself_with_the_one_function(child):
    tree = ast.parse((PACKAGE / child).read_text(encoding="utf-8"))
    assert [node for node in ast.walk(tree) if calls_named({"limit_and_confine"})(node)], (
        f"{child} does not set itself up with runner.confinement.limit_and_confine")


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


@pytest.mark.parametrize("keeper", ["executor/fork_server.py", "grading/child.py"])
def test_each_keeper_of_untrusted_code_dies_with_its_parent_by_the_one_rule(keeper):
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


@pytest.mark.parametrize("child, parent", [("executor/fork_server.py", "executor/fork_server.py"),
                                           ("executor/child.py", "executor/fresh_interpreter.py")])
def test_each_executor_child_writes_its_setup_failure_and_its_parent_reads_it_the_one_way(
        child, parent):
    # A pipe (fork server) or a file (fresh interpreter, where pass_fds is
    # missing): either way a descriptor the program never holds, one writer, one reader.
    for path, name in ((child, "fail_setup"), (parent, "read_setup_note")):
        tree = ast.parse((PACKAGE / path).read_text(encoding="utf-8"))
        assert [node for node in ast.walk(tree) if calls_named({name})(node)], (
            f"{path} does not use runner.confinement.{name}")
