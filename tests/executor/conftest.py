"""Fixtures shared by the executor's tests."""

import warnings

import pytest

from reasoneval_mini.runner import session


@pytest.fixture
def quiet_off():
    """``sandbox="off"`` warns (once per session); the contrast runs expect that."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="reasoneval_mini: sandbox off")
        yield


@pytest.fixture
def own_worker():
    """A warm runner (and its server) for this test alone, closed afterwards (no patched one stays warm)."""
    session.close_idle()
    yield
    session.close_idle()
