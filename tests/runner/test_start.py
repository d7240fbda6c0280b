"""The one way a child interpreter starts: its command line, its environment, its session."""

import json
import os
import subprocess
import sys

import pytest

import reasoneval_mini.runner.start as start
from reasoneval_mini.runner import child_environment, make_workdir, remove_tree, start_child
from reasoneval_mini.runner.start import PACKAGE_PARENT, boot_command

#: Run in the child by ``builtins.exec``: what it sees of its start, as JSON on stdout.
LOOK = ("import json, os, sys\n"
        "print(json.dumps({'path': sys.path, 'env': dict(os.environ), 'cwd': os.getcwd(),\n"
        "    'user_site': sys.flags.no_user_site,\n"
        "    'utf8': sys.flags.utf8_mode, 'session': os.getsid(0) == os.getpid(),\n"
        "    'fds': sorted(int(fd) for fd in os.listdir('/proc/self/fd'))}))\n")


@pytest.fixture
def workdir():
    folder = make_workdir()
    yield folder
    remove_tree(folder)


def look(workdir, **options):
    process = start_child("builtins", "exec", (LOOK,), workdir=workdir, cwd=workdir, **options)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    return json.loads(out)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_a_child_has_only_its_own_environment_folder_and_descriptors(workdir, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/nonexistent-instructor-path")
    monkeypatch.setenv("INSTRUCTOR_API_KEY", "sk-secret")
    seen = look(workdir)
    # Neither the package's folder nor the working folder ("") stays importable.
    assert PACKAGE_PARENT not in seen["path"] and "" not in seen["path"]
    assert "/nonexistent-instructor-path" not in seen["path"]
    assert seen["env"] == child_environment(workdir)
    assert seen["cwd"] == os.path.realpath(workdir)
    assert seen["user_site"] == 1 and seen["utf8"] == 1 and seen["session"]
    assert seen["fds"] == [0, 1, 2, 3]  # the last: listdir's own descriptor


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_a_child_gets_its_extra_settings_and_the_descriptors_passed_and_no_others(workdir):
    read_end, write_end = os.pipe()
    other_read, other_write = os.pipe()
    os.set_inheritable(other_write, True)  # inheritable, yet not passed: closed all the same
    try:
        seen = look(workdir, extra_env={"PYTHONHASHSEED": "0"}, pass_fds=(write_end,))
    finally:
        for fd in (read_end, write_end, other_read, other_write):
            os.close(fd)
    assert seen["env"] == child_environment(workdir, PYTHONHASHSEED="0")
    assert write_end in seen["fds"] and other_write not in seen["fds"]


def test_a_child_imports_the_module_from_this_copy_of_the_package(workdir, monkeypatch):
    # The course may run from a checkout while another copy is installed
    # (here: the venv's editable install may name another folder).
    monkeypatch.setattr(start, "BOOT", start.BOOT.replace(
        "del sys.path[0]; ", "print(_entry.__file__); del sys.path[0]; "))
    process = start_child("reasoneval_mini.runner.environment", "child_environment", (workdir,),
                          workdir=workdir)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    # Independent reference: the module this process imported (from the folder pytest runs in).
    assert out.decode().strip() == child_environment.__code__.co_filename
    assert os.path.dirname(os.path.dirname(os.path.dirname(out.decode().strip()))) == PACKAGE_PARENT


def test_the_arguments_arrive_as_the_values_they_were(workdir):
    args = (None, True, -3, 2.5, "it's \"quoted\"\n; import os")
    process = start_child("builtins", "print", (json.dumps(args),), workdir=workdir)
    out, _ = process.communicate(timeout=30)
    assert json.loads(out) == list(args)


@pytest.mark.parametrize("module, function, args, error", [
    ("os; import sys", "getpid", (), ValueError),
    ("builtins", "print(1) or print", (), ValueError),
    ("builtins", "print", ([1],), TypeError),
    ("builtins", "print", (b"bytes",), TypeError),
])
def test_a_boot_command_refuses_what_is_not_a_name_or_a_plain_value(module, function, args,
                                                                    error):
    with pytest.raises(error, match="boot"):
        boot_command(module, function, args)


def test_a_boot_command_names_this_interpreter():
    command = boot_command("builtins", "print")
    assert command[0] == sys.executable
    assert subprocess.run(command, capture_output=True, timeout=30).stdout == b"\n"
