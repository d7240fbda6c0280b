"""A forked program starts with nothing of another run: the runner server's memory, read as an attacker would.

Each program is a session forked by its runner's server, so it starts with
a copy of the server's memory. A program that walks up its frames, lists every
object the collector tracks, or reads every module's globals must find there
nothing of any other run: not its output, its outcome, its report, nor its
source. The secret of the first run is random, and the reader's source never
spells it (it builds its marker from character codes), so a hit can only be
another run's.
"""

import os
import secrets
import sys
import textwrap

import pytest
from sandbox_runs import item

from reasoneval_mini import ASSERTION_FAILED, PASSED, execute_samples
from reasoneval_mini.runner import session

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32",
                                reason="the runner server runs on POSIX only")


def the_warm_server():
    """The pid of the one idle runner's server."""
    (runner,) = session._POOL.idle
    return runner.server.process.pid

MARKER = "PREVIOUS-RUN-"


def writer(secret):
    """A program that puts *secret* in its source, stdout, stderr and report (a failed assertion)."""
    return textwrap.dedent(f"""
        import sys
        secret = {MARKER + secret!r}
        print("stdout", secret)
        print("stderr", secret, file=sys.stderr)
        assert False, "report " + secret
        """)


# The attack: every string reachable from the frames above the program, from the
# objects the collector tracks, and from every module's globals (a few levels down).
READER = """
import gc, sys
marker = "".join(map(chr, {codes}))
found, seen = [], set()

def look(value, where, depth=0):
    if id(value) in seen or depth > 6:
        return
    seen.add(id(value))
    if isinstance(value, (str, bytes, bytearray)):
        text = value if isinstance(value, str) else bytes(value).decode("latin-1")
        if value is not marker and marker in text:
            found.append(where + ": " + text[:80].replace(marker, "<marker>"))  # no new trace
    elif isinstance(value, dict):
        for key, inner in list(value.items()):
            look(key, where, depth + 1)
            look(inner, where + "[" + repr(key)[:30] + "]", depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for inner in list(value):
            look(inner, where, depth + 1)
    elif hasattr(value, "__dict__") and not isinstance(value, type(sys)):
        look(vars(value), where + ".__dict__", depth + 1)

frame = sys._getframe()
while frame is not None:
    look(dict(frame.f_locals), "frame " + frame.f_code.co_name)
    frame = frame.f_back
for name, module in list(sys.modules.items()):
    look(dict(vars(module)), "module " + name)
for number, tracked in enumerate(gc.get_objects()):
    for inner in gc.get_referents(tracked):
        if isinstance(inner, (str, bytes, bytearray)):
            look(inner, "gc object of " + type(tracked).__name__)
print(repr(found[:5]))
assert not found, f"{{len(found)}} traces of another run"
""".format(codes=list(map(ord, MARKER)))


def test_a_program_finds_nothing_of_the_previous_samples_output_in_its_servers_frames_or_objects(
        own_worker):
    secret = secrets.token_hex(16)
    records = execute_samples([item("writer", writer(secret)), item("reader", READER)],
                              workers=1, progress=False)
    assert records[0]["status"] == ASSERTION_FAILED, records[0]  # the secret was out there
    assert secret in records[0]["detail"]
    assert records[1]["status"] == PASSED, records[1]


def test_a_program_on_a_warm_runner_finds_nothing_of_an_earlier_calls_samples(own_worker):
    secret = secrets.token_hex(16)
    first = execute_samples([item("writer", writer(secret))], workers=1, progress=False)
    assert first[0]["status"] == ASSERTION_FAILED, first
    server = the_warm_server()
    for _ in range(2):  # the next call, on the same warm server, twice
        later = execute_samples([item("reader", READER)], workers=1, progress=False)
        assert later[0]["status"] == PASSED, later[0]
        assert the_warm_server() == server


def test_the_reader_finds_the_secret_where_a_run_leaves_it_in_view(own_worker):
    # The attack works: a secret held by the program's own process is found.
    secret = secrets.token_hex(16)
    planted = f"kept = [{(MARKER + secret)!r}]\n" + READER
    (record,) = execute_samples([item("planted", planted)], workers=1, progress=False)
    assert record["status"] == ASSERTION_FAILED, record


RAW_SCAN = """
import ctypes
marker = "".join(map(chr, {codes})).encode()
own = 2  # this program's own marker, built above: its str and its bytes
hits = 0
for line in open("/proc/self/maps"):
    parts = line.split()
    if "rw" not in parts[1] or (len(parts) > 5 and parts[5].startswith("[v")):
        continue
    start, end = (int(number, 16) for number in parts[0].split("-"))
    hits += ctypes.string_at(start, end - start).count(marker)
assert hits <= own, f"{{hits}} copies of another run's marker in this process's memory"
""".format(codes=list(map(ord, MARKER)))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_a_program_finds_nothing_of_the_previous_sample_in_its_servers_freed_memory(
        own_worker, quiet_off):
    # A freed object keeps its bytes in the heap, which the next fork copies:
    # about 20 copies of the previous program's source, output and report
    # were there. Unsandboxed for brevity (it reads /proc/self/maps to find
    # its memory): the sandbox does not change what a fork copies.
    secret = secrets.token_hex(16)
    execute_samples([item("writer", writer(secret))], workers=1, progress=False, sandbox="off")
    server = the_warm_server()
    (record,) = execute_samples([item("scan", RAW_SCAN)], workers=1, progress=False, sandbox="off")
    assert record["status"] == PASSED, record
    assert the_warm_server() == server  # forked from the server the writer ran on
