"""Fixtures shared by the executor's tests."""

import os
import warnings

import pytest

from reasoneval_mini.executor import pool


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


@pytest.fixture
def quiet_off():
    """``sandbox="off"`` warns (once per session); the contrast runs expect that."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="reasoneval_mini: sandbox off")
        yield


@pytest.fixture
def own_worker():
    """A warm fork server for this test alone, closed afterwards (no patched one stays warm)."""
    pool._close_idle_workers()
    yield
    pool._close_idle_workers()
