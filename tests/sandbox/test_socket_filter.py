"""The seccomp socket filter: its program run by a small BPF interpreter, and installed for real."""

import errno
import os
import socket

import pytest

import reasoneval_mini.sandbox.seccomp as seccomp

X86_64, I386 = 0xC000003E, 0x40000003
SOCKET, SOCKETPAIR, IO_URING_SETUP, READ = 41, 53, 425, 0  # x86_64 numbers
DENY = seccomp.SECCOMP_RET_ERRNO | errno.EACCES


def run_filter(program, arch, nr):
    """What the kernel would answer for a call *nr* made through *arch*'s entry point."""
    accumulator, pc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == seccomp.BPF_LD | seccomp.BPF_W | seccomp.BPF_ABS:
            accumulator = {0: nr, 4: arch}[k]
            pc += 1
        elif code == seccomp.BPF_JMP | seccomp.BPF_JEQ | seccomp.BPF_K:
            pc += 1 + (jt if accumulator == k else jf)
        elif code == seccomp.BPF_JMP | seccomp.BPF_JGE | seccomp.BPF_K:
            pc += 1 + (jt if accumulator >= k else jf)
        elif code == seccomp.BPF_RET | seccomp.BPF_K:
            return k
        else:
            raise AssertionError(f"unknown instruction {code:#x}")


@pytest.mark.parametrize("arch, nr, expected", [
    (X86_64, SOCKET, DENY),
    (X86_64, IO_URING_SETUP, DENY),
    (X86_64, SOCKETPAIR, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, READ, seccomp.SECCOMP_RET_ALLOW),
    (X86_64, seccomp.X32_SYSCALL_BIT | SOCKET, DENY),  # the x32 entry point
    (X86_64, seccomp.X32_SYSCALL_BIT | READ, DENY),
    (I386, 102, DENY),  # socketcall through the 32-bit entry point
    (I386, 3, DENY),
], ids=["socket", "io_uring", "socketpair", "read", "x32-socket", "x32-read", "i386-socketcall",
        "i386-read"])
def test_the_filter_denies_new_sockets_and_foreign_entry_points_only(arch, nr, expected):
    program = seccomp._program(X86_64, SOCKET, IO_URING_SETUP, x32=True)
    assert run_filter(program, arch, nr) == expected


@pytest.mark.skipif(not seccomp.supported(), reason="seccomp filters on x86_64 or aarch64 Linux")
def test_installed_the_filter_refuses_socket_and_keeps_socketpair():
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            import reasoneval_mini.sandbox.landlock as landlock
            landlock._LIBC.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, as Landlock sets it
            seccomp.deny_sockets()
            left, right = socket.socketpair()
            outcome = ["pair ok"]
            try:
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                outcome.append("socket made")
            except PermissionError:
                outcome.append("socket refused")
        except BaseException as error:
            outcome = [f"{type(error).__name__}: {error}"]
        os.write(write_end, " / ".join(outcome).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        text = stream.read().decode()
    os.waitpid(pid, 0)
    assert text == "pair ok / socket refused"
