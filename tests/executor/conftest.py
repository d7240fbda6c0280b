"""Fixtures shared by the executor's tests."""

import os

import pytest


@pytest.fixture
def stdin_pipe():
    """fd 0 as an open, empty pipe: a fork server run in this process reads it as its cancel line."""
    saved = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)
