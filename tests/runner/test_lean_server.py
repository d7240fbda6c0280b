"""A runner server holds only what its sessions use: every fork copies it all.

Each fork copies the server's page tables and every mapping it has, and each
child's exit unmaps them again; a module's at-fork handler runs in every
child. So the modules a server of programs imports are a cost of every
program. Measured on the 164 canonical solutions (2 cores): the import set
below took a do-nothing child from 0.75 ms of CPU to 0.54 ms (threading's
at-fork handler alone 0.35 ms), and the server's mappings from 194 to about
120. And what every child would build for itself, the server builds once
before forking (the compiler's AST node types: ~2 ms of each child's CPU).
These tests keep it so: they fail on the runner that loaded shutil,
tempfile, subprocess, threading and dataclasses into every server, and on
one that left the node types to its children.
"""

import ast
import inspect
import json
import subprocess
import sys

import pytest

import reasoneval_mini.runner.child as child
from reasoneval_mini.executor.program import PRE_IMPORTS
from reasoneval_mini.grading.process import PROFILE
from reasoneval_mini.runner.environment import child_environment
from reasoneval_mini.runner.start import PACKAGE_PARENT, boot_command

#: Modules no server of programs needs, and what each costs it.
NOT_IN_A_SERVER = {
    "threading": "an at-fork handler in every child (0.35 ms each)",
    "shutil": "the zlib, bz2 and lzma libraries (30 mappings)",
    "tempfile": "random's libraries",
    "subprocess": "_posixsubprocess, and threading",
    "dataclasses": "inspect, dis and their objects (1.2 MB)",
    "inspect": "its objects",
    "ast": "ast.py's own classes (the node types themselves a server builds: see below)",
    "platform": "its objects",
    "unicodedata": "its library",
    "pickle": "its library (the calls of grading sessions only)",
    "base64": "binascii and zlib (the calls of grading sessions only)",
    "fractions": "decimal's library (the calls of grading sessions only)",
    "socket": "its enums and selectors (the server uses _socket itself)",
}

#: Libraries no server of programs maps, even once it has run sandboxed
#: programs (imported on first use, where the warm server above cannot show them).
NOT_MAPPED = {
    "array": "socket.recv_fds imports it: the server reads its descriptors with recvmsg",
    "fcntl": "the sandbox's F_DUPFD: os.dup instead (support.descriptors)",
    "_posixsubprocess": "subprocess: the caller starts the server",
    "zlib": "shutil, base64",
}


def warm_server(pre_imports, tmp_path):
    """What a runner server holds once warm (server.warm_up): its modules, and whether the AST node types are built and frozen."""
    probe = (f"import sys; sys.path[0] = {PACKAGE_PARENT!r}\n"
             "import reasoneval_mini.runner.server as server\n"
             f"server.warm_up({','.join(pre_imports)!r})\n"
             "import gc, json\n"
             "nodes = [kind for kind in object.__subclasses__() if kind.__name__ == 'AST']\n"
             "frozen = bool(nodes) and not any(seen is nodes[0] for seen in gc.get_objects())\n"
             "print(json.dumps({'modules': sorted(sys.modules), 'ast_nodes_frozen': frozen}))\n")
    # The server's own command line (its flags) and environment, running the probe instead of serve().
    command = boot_command("reasoneval_mini.runner.server", "serve")
    command[-1] = probe
    result = subprocess.run(command, capture_output=True, text=True, timeout=60,
                            env=child_environment(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_server_of_programs_loads_nothing_its_programs_do_not_need(tmp_path):
    loaded = set(warm_server(PRE_IMPORTS, tmp_path)["modules"])
    found = {name: why for name, why in NOT_IN_A_SERVER.items() if name in loaded}
    assert not found, f"a server of programs imports {found}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_a_server_that_ran_sandboxed_programs_maps_no_library_they_do_not_need():
    from reasoneval_mini.executor.program import (
        DEFAULT_MEMORY_MB, build_request, profile_for, run_request)
    from reasoneval_mini.runner.session import Runner, servers_possible

    if not servers_possible():
        pytest.skip("no runner server here")
    runner = Runner(profile_for(DEFAULT_MEMORY_MB))
    try:
        for program in ("print(6 * 7)", "raise SystemExit(3)"):
            assert "outcome" in run_request(runner, build_request(program, 5.0, DEFAULT_MEMORY_MB))
        with open(f"/proc/{runner.server.process.pid}/maps") as maps:
            files = {line.split()[-1].rsplit("/", 1)[-1] for line in maps if "/" in line}
    finally:
        runner.close()
    mapped = {name: why for name, why in NOT_MAPPED.items()
              if any(found.startswith(name + ".") for found in files)}
    assert not mapped, f"a server of programs maps {mapped}"


def test_the_graders_servers_warm_what_answering_calls_needs(tmp_path):
    # Bound before a job's first source (child._bind_calls): warm in the
    # grader's servers, so that no student's child imports them itself.
    loaded = set(warm_server(PROFILE.pre_imports, tmp_path)["modules"])
    assert set(child.CALL_MODULES) <= loaded


@pytest.mark.parametrize("pre_imports", [PRE_IMPORTS, PROFILE.pre_imports], ids=["programs", "grader"])
def test_a_server_builds_the_compilers_node_types_before_forking(pre_imports, tmp_path):
    # CPython builds its AST node types on a process's first compile() (the
    # server's modules load from .pyc, without one): in every child, ~2 ms and
    # ~100 written pages per program, unless the server compiled once and froze them.
    assert warm_server(pre_imports, tmp_path)["ast_nodes_frozen"]


def test_the_childs_compile_flags_are_the_standard_librarys():
    assert child._TOP_LEVEL_AWAIT == ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    assert child._CO_COROUTINE == inspect.CO_COROUTINE


@pytest.mark.skipif(not hasattr(sys, "getrefcount"), reason="CPython only")
def test_a_job_with_calls_binds_the_call_machinery_and_one_without_does_not(monkeypatch):
    bound = []
    monkeypatch.setattr(child, "_bind_calls", lambda: bound.append(True))
    monkeypatch.setattr(child, "emit", lambda event: None)
    child.run_session({"tasks": [{"sources": [["<a>", "x = 1"]]}]}, child._getpid())
    assert bound == []
    monkeypatch.setattr(child, "_serve_calls", lambda *args: True)
    child.run_session({"tasks": [{"sources": [["<a>", "x = 1"]], "answers": {"e": "x"}}]},
                      child._getpid())
    assert bound == [True]
