"""A runner server holds only what its sessions use: every fork copies it all.

Each fork copies the server's page tables and every mapping it has, and each
child's exit unmaps them again; a module's at-fork handler runs in every
child. So the modules a server of programs imports are a cost of every
program. Measured on the 164 canonical solutions (2 cores): the import set
below took a do-nothing child from 0.75 ms of CPU to 0.54 ms (threading's
at-fork handler alone 0.35 ms), and the server's mappings from 194 to about
120. These tests keep it so: they fail on the runner that loaded shutil,
tempfile, subprocess, threading and dataclasses into every server.
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
    "ast": "its classes (0.5 MB)",
    "platform": "its objects",
    "unicodedata": "its library",
    "pickle": "its library (the calls of grading sessions only)",
    "base64": "binascii and zlib (the calls of grading sessions only)",
    "fractions": "decimal's library (the calls of grading sessions only)",
}


def modules_of_a_server(pre_imports, tmp_path):
    """The modules a runner server has loaded once it is warm: its boot, its child's code, *pre_imports*."""
    probe = (f"import sys, importlib; sys.path[0] = {PACKAGE_PARENT!r}\n"
             "import reasoneval_mini.runner.server\n"
             f"for name in ['reasoneval_mini.runner.child', *{list(pre_imports)!r}]:\n"
             "    importlib.import_module(name)\n"
             "print(__import__('json').dumps(sorted(sys.modules)))\n")
    # The server's own command line (its flags) and environment, running the probe instead of serve().
    command = boot_command("reasoneval_mini.runner.server", "serve")
    command[-1] = probe
    result = subprocess.run(command, capture_output=True, text=True, timeout=60,
                            env=child_environment(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout))


def test_a_server_of_programs_loads_nothing_its_programs_do_not_need(tmp_path):
    loaded = modules_of_a_server(PRE_IMPORTS, tmp_path)
    found = {name: why for name, why in NOT_IN_A_SERVER.items() if name in loaded}
    assert not found, f"a server of programs imports {found}"


def test_the_graders_servers_warm_what_answering_calls_needs(tmp_path):
    # Bound before a job's first source (child._bind_calls): warm in the
    # grader's servers, so that no student's child imports them itself.
    loaded = modules_of_a_server(PROFILE.pre_imports, tmp_path)
    assert set(child.CALL_MODULES) <= loaded


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
