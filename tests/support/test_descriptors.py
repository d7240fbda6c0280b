"""support.descriptors: a copy of a descriptor numbered above a floor, without fcntl."""

import os

import pytest

from reasoneval_mini.support.descriptors import dup_above


def test_the_copy_lands_above_the_floor_and_reaches_the_same_pipe():
    read_end, write_end = os.pipe()
    copy = dup_above(write_end, 40)
    try:
        assert copy > 40 and not os.get_inheritable(copy)
        os.write(copy, b"through the copy")
        assert os.read(read_end, 100) == b"through the copy"
        # Every lower number it took on the way was given back: the next
        # descriptor opened gets the lowest free one, as before the call.
        probe = os.dup(read_end)
        os.close(probe)
        assert probe < 40
    finally:
        for fd in (read_end, write_end, copy):
            os.close(fd)


def test_a_descriptor_that_is_not_open_raises_and_leaves_nothing_open():
    read_end, write_end = os.pipe()
    os.close(write_end)
    before = os.dup(read_end)
    os.close(before)
    with pytest.raises(OSError):
        dup_above(write_end, 9)
    after = os.dup(read_end)
    os.close(after)
    os.close(read_end)
    assert after == before
