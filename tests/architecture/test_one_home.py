"""Each job of the process machinery has one home (issue 24, item 1).

Like the layer test, this reads the package's source with ``ast`` and imports
nothing: a job written a second time, anywhere in the package, fails here and
names the module that wrote it.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "reasoneval_mini"
MODULES = sorted(PACKAGE.rglob("*.py"))


def module_name(path, package=PACKAGE):
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _trees():
    return [(module_name(path), ast.parse(path.read_text(encoding="utf-8"))) for path in MODULES]


TREES = _trees()


def _dotted(node):
    """``"ctypes.CDLL"`` for the expression ``ctypes.CDLL``; None for anything that is no dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def calls_of(names, trees=None):
    """``[(module, line)]`` for every call of a function spelled as one of *names*."""
    found = []
    for module, tree in TREES if trees is None else trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _dotted(node.func) in names:
                found.append((module, node.lineno))
    return sorted(found)


def test_the_call_finder_sees_calls_inside_functions_and_expressions():
    # The checker itself must be able to fail.
    tree = ast.parse("import ctypes\n"
                     "def f():\n    return x or ctypes.CDLL(None)\n"
                     "y = CDLL(None)\nz = ctypes.CDLL\n")
    assert calls_of({"ctypes.CDLL", "CDLL"}, [("probe", tree)]) == [("probe", 3), ("probe", 4)]


def test_libc_is_loaded_with_ctypes_in_exactly_one_place():
    # Each load makes a new ctypes library object, with its own function
    # classes; one home loads it once, and every user shares it.
    loads = calls_of({"ctypes.CDLL", "CDLL", "ctypes.cdll.LoadLibrary", "cdll.LoadLibrary",
                      "ctypes.util.find_library", "find_library"})
    assert [module for module, _ in loads] == ["reasoneval_mini.sandbox.libc"], (
        "libc must be loaded once, in reasoneval_mini.sandbox.libc (use its libc()); loaded at:\n"
        + "\n".join(f"{module}:{line}" for module, line in loads))


@pytest.mark.parametrize("module", ["reasoneval_mini.sandbox.landlock", "reasoneval_mini.sandbox.policy",
                                    "reasoneval_mini.sandbox.seccomp", "reasoneval_mini.runner.reaping",
                                    "reasoneval_mini.runner.workdir"])
def test_every_user_of_libc_takes_it_from_its_home(module):
    tree = dict(TREES)[module]
    used = {name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module == "reasoneval_mini.sandbox.libc" for name in (a.name for a in node.names)}
    assert "libc" in used, f"{module} does not import libc from reasoneval_mini.sandbox.libc"


def _constant_text(node):
    """The literal text of a string or f-string (its ``{}`` parts as ``{}``); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return node.value if isinstance(node.value, str) else node.value.decode("latin-1")
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def strings_matching(predicate, trees=None):
    """``[(module, line)]`` for every string literal or f-string whose text satisfies *predicate*."""
    found = []
    for module, tree in TREES if trees is None else trees:
        parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        for node in ast.walk(tree):
            if isinstance(parents.get(node), ast.JoinedStr):
                continue  # a piece of an f-string: the whole f-string is checked
            text = _constant_text(node)
            if text is not None and predicate(text):
                found.append((module, node.lineno))
    return sorted(found)


def _names_a_proc_stat_file(text):
    return text.startswith("/proc/") and text.endswith("/stat") and "\n" not in text


def test_the_string_finder_sees_f_strings_whole():
    tree = ast.parse('a = f"/proc/{pid}/stat"\nb = "/proc/self/stat"\nc = f"/proc/{pid}/status"\n'
                     '"""Reads /proc/<pid>/stat."""\n')
    assert strings_matching(_names_a_proc_stat_file, [("probe", tree)]) == [("probe", 1), ("probe", 2)]


def test_proc_stat_is_read_in_exactly_one_place():
    # The state and parent of a process, read one way: the name in field 2
    # may hold spaces and ")" (a program picks its own), so the fields are
    # split after the last ")", and a zombie counts as dead.
    reads = strings_matching(_names_a_proc_stat_file)
    assert [module for module, _ in reads] == ["reasoneval_mini.runner.reaping"], (
        "/proc/<pid>/stat must be read once, by reasoneval_mini.runner.reaping.process_stat; read at:\n"
        + "\n".join(f"{module}:{line}" for module, line in reads))


#: Threads started outside the one parallel runner, each for a job that is no pool of work.
OTHER_THREADS = {
    # One watcher per call, which interrupts the caller at its deadline.
    "reasoneval_mini.support.time_limit",
    # Where pipes cannot be polled (Windows): one reader per pipe of a session's child.
    "reasoneval_mini.runner.session",
}
POOLS = {"ThreadPoolExecutor", "ProcessPoolExecutor", "concurrent.futures.ThreadPoolExecutor",
         "concurrent.futures.ProcessPoolExecutor", "multiprocessing.Pool",
         "multiprocessing.pool.ThreadPool", "ThreadPool", "Pool"}


def test_work_runs_in_parallel_only_through_support_parallel():
    # support/parallel.run_parallel is the one pool: progress, Ctrl-C and
    # results in item order are written there once.
    pools = [(module, line) for module, line in calls_of(POOLS)
             if module != "reasoneval_mini.support.parallel"]
    threads = [(module, line) for module, line in calls_of({"threading.Thread", "Thread"})
               if module not in OTHER_THREADS | {"reasoneval_mini.support.parallel"}]
    assert not pools + threads, (
        "a pool or threads outside reasoneval_mini.support.parallel (use run_parallel):\n"
        + "\n".join(f"{module}:{line}" for module, line in pools + threads))


def _functions_defined(tree):
    return {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _names_imported_from(tree, module):
    return {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module == module for alias in node.names}


def test_an_exception_is_described_and_rebuilt_across_the_boundary_in_one_place():
    # The child describes what its untrusted code raised as plain bounded
    # fields (name, built-in base, message); the trusted side rebuilds a
    # stand-in from them. Written once, so that the executor's and the
    # grader's bounds and hostile-__str__ guards cannot drift apart.
    home = "reasoneval_mini.runner.exceptions"
    trees = dict(TREES)
    assert home in trees, f"{home} does not exist"
    assert {"describe_exception", "rebuild_exception"} <= _functions_defined(trees[home])
    reading_classes = [(module, node.lineno) for module, tree in TREES if module != home
                       for node in ast.walk(tree)
                       if isinstance(node, ast.Attribute) and node.attr == "__mro__"]
    assert not reading_classes, (f"an exception's class is read outside {home}:\n"
                                 + "\n".join(f"{module}:{line}" for module, line in reading_classes))
    for module, name in (("reasoneval_mini.runner.child", "describe_exception"),
                         ("reasoneval_mini.executor.program", "bounded_fields"),
                         ("reasoneval_mini.grading.process", "rebuild_exception")):
        assert name in _names_imported_from(trees[module], home), f"{module} does not use {home}.{name}"
        assert name not in _functions_defined(trees[module]), f"{module} defines its own {name}"


#: Waits that are no wait on a child: the parallel runner's calling thread looks for a
#: Ctrl-C (support/ is below runner/, and that poll is no child's deadline).
OTHER_POLLS = {("reasoneval_mini.support.parallel", "POLL_SECONDS")}


def _timing_constants(tree):
    """Module-level ``NAME = number`` where NAME is a grace, guard or poll in seconds."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, (int, float)):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.endswith(
                        ("GRACE_SECONDS", "GUARD_SECONDS", "POLL_SECONDS")):
                    found.append((target.id, node.lineno))
    return found


def test_the_grace_past_a_childs_limit_and_the_cancel_polls_are_set_in_one_place():
    # How long the trusted side waits past a child's own limit, and how often
    # it looks at a cancel while it waits: one table, so the executor and the
    # grader can be compared and changed together.
    home = "reasoneval_mini.runner.deadlines"
    elsewhere = [f"{module}:{line} {name}" for module, tree in TREES if module != home
                 for name, line in _timing_constants(tree) if (module, name) not in OTHER_POLLS]
    assert not elsewhere, f"set outside {home}:\n" + "\n".join(elsewhere)
    trees = dict(TREES)
    assert home in trees, f"{home} does not exist"
    for module in ("reasoneval_mini.runner.session", "reasoneval_mini.runner.server",
                   "reasoneval_mini.grading.process"):
        assert _names_imported_from(trees[module], home), f"{module} does not use {home}"


def test_a_package_loads_its_names_lazily_only_through_support_exports():
    # The PEP 562 hooks (a package's __getattr__ and __dir__) are written once,
    # in support/exports.lazy_exports: three packages had each their own copy.
    home = "reasoneval_mini.support.exports"
    own_hooks = [(module, node.lineno) for module, tree in TREES if module != home
                 for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__")]
    assert not own_hooks, (f"a module-level __getattr__ or __dir__ outside {home} (use lazy_exports):\n"
                           + "\n".join(f"{module}:{line}" for module, line in own_hooks))
    users = [module for module, tree in TREES if "lazy_exports" in _names_imported_from(tree, home)]
    assert {"reasoneval_mini", "reasoneval_mini.runner", "reasoneval_mini.executor"} <= set(users)
