"""support.descriptors: a copy of a descriptor numbered above a floor, without fcntl."""

import os
import subprocess
import sys

import pytest

from reasoneval_mini.runner.start import PACKAGE_PARENT
from reasoneval_mini.support.descriptors import dup_above


def lowest_free(fd):
    """The number the next descriptor opened would get."""
    probe = os.dup(fd)
    os.close(probe)
    return probe


def test_the_copy_lands_above_the_floor_and_reaches_the_same_pipe():
    read_end, write_end = os.pipe()
    free = lowest_free(read_end)
    floor = free + 10  # ten numbers or more taken on the way
    copy = dup_above(write_end, floor)
    try:
        assert copy > floor and not os.get_inheritable(copy)
        os.write(copy, b"through the copy")
        assert os.read(read_end, 100) == b"through the copy"
        assert lowest_free(read_end) == free  # every number taken on the way was given back
    finally:
        for fd in (read_end, write_end, copy):
            os.close(fd)


def test_a_descriptor_that_is_not_open_raises():
    read_end, write_end = os.pipe()
    os.close(write_end)
    free = lowest_free(read_end)
    with pytest.raises(OSError):
        dup_above(write_end, free + 10)
    assert lowest_free(read_end) == free
    os.close(read_end)


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_NOFILE")
def test_running_out_of_descriptors_on_the_way_gives_back_every_copy_made():
    # In a child process: the limit on descriptors is lowered there only.
    probe = (
        "import os, resource, sys\n"
        f"sys.path.insert(0, {PACKAGE_PARENT!r})\n"
        "from reasoneval_mini.support.descriptors import dup_above\n"
        "read_end, write_end = os.pipe()\n"
        "free = os.dup(read_end); os.close(free)\n"
        "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (free + 5, hard))\n"
        "try:\n"
        "    dup_above(write_end, free + 10)\n"
        "    print('no error')\n"
        "except OSError as error:\n"
        "    after = os.dup(read_end); os.close(after)\n"
        "    print(error.errno == __import__('errno').EMFILE, after == free)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.split() == ["True", "True"], result.stderr
