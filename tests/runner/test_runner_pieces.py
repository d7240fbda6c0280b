"""What both runners give an untrusted child: environment, folder, limits, confinement."""

import os
import sys
import time
import warnings

import pytest

from reasoneval_mini.runner import (
    MINIMAL_ENV,
    ConfinementFailed,
    apply_limits,
    child_environment,
    confine_child,
    make_workdir,
    plan_sandbox,
    remove_tree,
)
import reasoneval_mini.runner.confinement as confinement
import reasoneval_mini.sandbox.landlock as landlock
from reasoneval_mini.sandbox import SandboxUnavailable


def in_fork(body):
    """Run *body()* in a forked child; return what it returned, as text."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            result = body()
        except BaseException as error:
            result = f"{type(error).__name__}: {error}"
        os.write(write_end, str(result).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        text = stream.read().decode()
    os.waitpid(pid, 0)
    return text


def test_the_child_environment_carries_nothing_of_the_callers(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-instructor")
    env = child_environment("/tmp/run-x")
    assert "OPENAI_API_KEY" not in env
    assert env["HOME"] == env["TMPDIR"] == "/tmp/run-x"
    assert {key: env[key] for key in MINIMAL_ENV} == MINIMAL_ENV


def test_a_working_folder_the_child_locked_is_still_removed():
    folder = make_workdir()
    inner = os.path.join(folder, "deep", "er")
    os.makedirs(inner)
    open(os.path.join(inner, "f"), "w").close()
    os.chmod(os.path.join(folder, "deep"), 0)
    os.chmod(folder, 0o500)
    remove_tree(folder)
    assert not os.path.exists(folder)



def chain(folder, depth):
    """*depth* folders nested in *folder*, made bottom-up as a hostile program makes them."""
    os.mkdir(os.path.join(folder, "chain"))
    for _ in range(depth):
        os.mkdir(os.path.join(folder, "next"))
        os.rename(os.path.join(folder, "chain"), os.path.join(folder, "next", "chain"))
        os.rename(os.path.join(folder, "next"), os.path.join(folder, "chain"))


def test_remove_tree_stops_at_its_deadline_and_leaves_the_rest_for_later():
    folder = make_workdir()
    chain(folder, 20000)
    remove_tree(folder, deadline=time.monotonic() + 0.02)
    assert os.path.exists(folder), "20,000 levels removed in 20 ms: the deadline was not kept"
    remove_tree(folder)  # without one, the rest goes
    assert not os.path.exists(folder)


def test_remove_tree_with_a_deadline_still_removes_an_ordinary_or_locked_folder():
    folder = make_workdir()
    os.makedirs(os.path.join(folder, "a", "b"))
    open(os.path.join(folder, "a", "b", "f"), "w").close()
    os.chmod(os.path.join(folder, "a"), 0o500)
    remove_tree(folder, deadline=time.monotonic() + 5)
    assert not os.path.exists(folder)

@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="POSIX rlimits")
def test_limits_lower_the_hard_limit_so_the_child_cannot_raise_them_again():
    def body():
        import resource
        warnings_ = apply_limits(memory_mb=256, cpu_seconds=5, file_size_mb=1, open_files=32)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (2**40, 2**40))
            raised = "raised"
        except (ValueError, OSError):
            raised = "refused"
        return (warnings_, raised, resource.getrlimit(resource.RLIMIT_AS),
                resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_CORE))
    assert in_fork(body) == str(([], "refused", (256 * 2**20,) * 2, (5, 6), (0, 0)))


def test_each_sandbox_warning_is_given_once_per_session(monkeypatch):
    monkeypatch.setattr(confinement, "_WARNED", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan_sandbox("off")
        plan_sandbox("off")
    assert [str(w.message) for w in caught] == [
        "reasoneval_mini: " + confinement.plan_isolation("off").warning()]


def test_required_is_refused_in_the_caller_where_the_kernel_lacks_a_feature(monkeypatch):
    monkeypatch.setattr(landlock, "abi_version", lambda: 3)
    with pytest.raises(SandboxUnavailable, match="network .needs ABI 4"):
        plan_sandbox("required")


@pytest.mark.skipif(landlock.abi_version() < 1, reason="needs Landlock")
def test_a_refused_confinement_raises_rather_than_running_unconfined(tmp_path):
    def body():
        landlock.SYS_landlock_restrict_self = 4095  # a system call the kernel does not have
        confine_child(plan_sandbox("auto"), str(tmp_path))
        return "ran unconfined"
    assert in_fork(body).startswith(f"{ConfinementFailed.__name__}: ")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mount namespaces are Linux's")
@pytest.mark.parametrize("user", ["as it runs", "an ordinary user"])
def test_a_capped_folder_refuses_writes_past_its_size_and_shows_nothing_outside(user):
    from reasoneval_mini.runner import cap_workdir

    if user != "as it runs" and os.geteuid() != 0:
        pytest.skip("only root can become another user; 'as it runs' is an ordinary user here")
    folder = make_workdir()
    if user != "as it runs":
        os.chown(folder, 65534, 65534)
    try:
        def body():
            if user != "as it runs":  # root mounts in a mount namespace; anyone else needs a user one
                import ctypes
                os.setgid(65534)
                os.setuid(65534)
                # Changing user made us non-dumpable (/proc/self root's): undo, as a login would be.
                ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
            if not cap_workdir(folder, 2):
                return "refused"
            written = 0
            try:
                with open("big", "wb") as handle:
                    for _ in range(8):
                        handle.write(b"x" * (1 << 19))
                        handle.flush()
                        written += 1
            except OSError as error:
                return f"{written} half-MB, then errno {error.errno}"
            return f"{written} half-MB, no error"

        outcome = in_fork(body)
        if outcome == "refused":
            pytest.skip("this kernel refuses user namespaces: the folder cannot be capped")
        assert outcome == "4 half-MB, then errno 28"  # ENOSPC at 2 MB, not 4
        assert os.listdir(folder) == []  # the child's files were never in the caller's folder
    finally:
        remove_tree(folder)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux's")
def test_a_child_is_limited_before_it_is_confined_and_stays_limited_when_the_sandbox_is_refused(
        tmp_path):
    from reasoneval_mini.runner import limit_and_confine

    def body():
        import resource

        landlock.SYS_landlock_restrict_self = 4095  # the sandbox's last step fails
        try:
            limit_and_confine(plan_sandbox("auto"), str(tmp_path), open_files=40, file_size_mb=3)
        except ConfinementFailed:
            # Independent reference: the kernel's own record of this process's limits.
            return (resource.getrlimit(resource.RLIMIT_NOFILE),
                    resource.getrlimit(resource.RLIMIT_FSIZE))
        return "ran unconfined"

    if not plan_sandbox("auto").enforced:
        pytest.skip("no sandbox to refuse on this kernel")
    assert in_fork(body) == str(((40, 40), (3 << 20, 3 << 20)))


def test_limit_and_confine_returns_the_limits_the_platform_refused_and_whether_it_capped(tmp_path):
    from reasoneval_mini.runner import limit_and_confine
    import reasoneval_mini.runner.limits as limits

    def body(cap_mb):
        def run():
            limits.resource = None  # as on Windows
            return limit_and_confine(plan_sandbox("off"), str(tmp_path), memory_mb=64, cap_mb=cap_mb)
        return run

    refused = ["no resource limits: the resource module is missing on this platform"]
    assert in_fork(body(None)) == str((refused, None))  # no cap asked: None
    # "off" is off: no namespaces, no file system of its own, whatever cap was asked.
    assert in_fork(body(2)) == str((refused, False))


def test_a_process_whose_parent_is_gone_already_ends_at_once():
    from reasoneval_mini.runner.reaping import die_with_parent

    pid = os.fork()
    if pid == 0:
        die_with_parent(os.getppid() + 100_000)  # not our parent: as if it had died first
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_process_that_dies_with_its_parent_is_killed_when_the_parent_dies():
    import signal

    from reasoneval_mini.runner.reaping import become_subreaper, die_with_parent

    def watcher():
        # A subreaper of its own (not this test's process), so that the
        # orphan comes back to it and its end can be read from waitpid.
        become_subreaper()
        armed_r, armed_w = os.pipe()  # child to parent
        told_r, told_w = os.pipe()  # parent to the watcher
        parent = os.fork()
        if parent == 0:
            child = os.fork()
            if child == 0:
                armed = die_with_parent(os.getppid(), signal.SIGKILL)
                os.write(armed_w, str(armed).encode())
                time.sleep(60)  # the oracle: only the death signal ends it early
                os._exit(0)
            os.write(told_w, os.read(armed_r, 16))
            os._exit(0)  # the parent dies; its child must die with it
        armed = os.read(told_r, 16).decode()
        os.waitpid(parent, 0)
        start = time.monotonic()
        _, status = os.wait()  # the orphan, handed to this subreaper
        return armed, os.WIFSIGNALED(status) and os.WTERMSIG(status), time.monotonic() - start < 30

    assert in_fork(watcher) == str(("True", int(signal.SIGKILL), True))


def test_a_failed_setups_note_names_the_refusal_and_is_bounded():
    # The note travels in the child's setup_failed event; that a real refused
    # sandbox says so before anything runs, and exits with SETUP_FAILED, is
    # tests/runner/test_sessions.py's to prove.
    from reasoneval_mini.runner.confinement import MAX_SETUP_NOTE, setup_note

    note = setup_note(ConfinementFailed(1, "the sandbox could not be applied: " + "é" * 900))
    assert note.startswith("ConfinementFailed: [Errno 1] the sandbox could not be applied: éé")
    assert len(note) == MAX_SETUP_NOTE == 500
