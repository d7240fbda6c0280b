"""The three ways of taking Ctrl-C, with real SIGINTs sent to this (main) thread."""

import os
import signal
import sys
import threading
import time

import pytest

from reasoneval_mini.support.interrupts import ctrl_c_once, interrupts_deferred, on_first_interrupt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) to oneself")


def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.02)  # Python runs the handler in the main thread, between two steps


def test_ctrl_c_once_raises_the_first_and_ignores_the_next_until_the_block_ends():
    steps = []
    with ctrl_c_once():
        try:
            ctrl_c()
        except KeyboardInterrupt:
            steps.append("first raised")
        ctrl_c()
        steps.append("second ignored")
    assert steps == ["first raised", "second ignored"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_interrupts_deferred_finishes_the_block_then_raises():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            ctrl_c()
            steps.append("the file is written")
    assert steps == ["the file is written"]


def test_off_the_main_thread_the_helpers_change_no_handler():
    seen = []

    def body():
        for helper in (ctrl_c_once(), on_first_interrupt(lambda: None), interrupts_deferred()):
            with helper:
                seen.append(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [True, True, True]
