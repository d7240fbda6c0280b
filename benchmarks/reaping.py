"""Benchmark: the runner's /proc reading against psutil's, for what runs after every sample.

Run:  python benchmarks/reaping.py   (Linux; psutil comes with the course's Jupyter)

Side by side, in the same process, best of 7: is a process running
(``reaping.is_running`` against ``psutil.Process(pid).status()``), and the
processes below this one (``reaping.descendants`` against
``psutil.Process().children(recursive=True)``), with none (the usual case
after a sample) and with three. psutil finds children by reading every
process's ``stat`` file; the runner reads this subtree's ``children`` files.
"""

import os
import subprocess
import sys
import time
import timeit

from reasoneval_mini.runner.reaping import descendants, is_running, kill_descendants

try:
    import psutil
except ImportError:  # pragma: no cover - benchmark needs the course extra
    sys.exit('needs psutil: python -m pip install -e ".[course]"')


def psutil_running(pid):
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def psutil_descendants(pid):
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def per_call_us(function, number):
    return min(timeit.repeat(function, number=number, repeat=7)) / number * 1e6


def row(label, ours, theirs):
    print(f"{label:<28} {ours:9.1f} {theirs:9.1f} {theirs / ours:7.1f}x")


def main():
    if not sys.platform.startswith("linux"):
        sys.exit("Linux only: elsewhere the runner reads no /proc")
    me = os.getpid()
    print(f"{len(psutil.pids())} processes on this machine; microseconds per call")
    print(f"{'':<28} {'ours':>9} {'psutil':>9} {'psutil/ours':>8}")
    row("is_running(this process)", per_call_us(lambda: is_running(me), 5000),
        per_call_us(lambda: psutil_running(me), 5000))
    row("descendants, none", per_call_us(lambda: descendants(me), 2000),
        per_call_us(lambda: psutil_descendants(me), 200))
    children = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                for _ in range(3)]
    try:
        time.sleep(0.5)
        assert sorted(descendants(me)) == sorted(psutil_descendants(me)) == sorted(
            child.pid for child in children), "the two readers disagree"
        row("descendants, three", per_call_us(lambda: descendants(me), 2000),
            per_call_us(lambda: psutil_descendants(me), 200))
    finally:
        for child in children:
            child.kill()
            child.wait()
    print(f"kill_descendants, none: {per_call_us(lambda: kill_descendants(me), 2000):.1f} us")


if __name__ == "__main__":
    main()
