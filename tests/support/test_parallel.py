"""run_parallel: item order, finishing order, kept exceptions, Ctrl-C without lost results."""

import _thread
import threading
import time

import pytest

from reasoneval_mini.support.arguments import ArgumentTypeError
from reasoneval_mini.support.parallel import Done, Interrupted, run_parallel


def _finishing_last_to_first(count):
    """``(work, on_done, order)``: item i returns only once item i + 1 is done, so the last
    item finishes first; *order* is the finishing order on_done saw."""
    done_events = [threading.Event() for _ in range(count)]
    order = []

    def work(index):
        if index + 1 < count:
            assert done_events[index + 1].wait(timeout=30), "item %d never finished" % (index + 1)
        return index * 10

    def on_done(done):
        order.append((done.index, threading.current_thread()))
        done_events[done.index].set()

    return work, on_done, order


def test_results_come_back_in_item_order_whatever_the_finishing_order():
    work, on_done, order = _finishing_last_to_first(4)
    results = run_parallel(work, range(4), threads=4, on_done=on_done)
    assert [index for index, _ in order] == [3, 2, 1, 0]  # finished last to first
    assert [done.value for done in results] == [0, 10, 20, 30]
    assert [done.index for done in results] == [0, 1, 2, 3]


def test_on_done_sees_each_result_in_the_calling_thread_as_it_finishes():
    # Item 0 waits until on_done has seen item 1: run_parallel must report each result as it
    # finishes, not after all of them (waiting for all here would never end: item 0 times out).
    work, on_done, order = _finishing_last_to_first(2)
    results = run_parallel(work, range(2), threads=2, on_done=on_done)
    assert [index for index, _ in order] == [1, 0]
    assert all(thread is threading.main_thread() for _, thread in order)
    assert [done.error for done in results] == [None, None]


def test_an_exception_is_kept_in_its_item_and_the_others_go_on():
    results = run_parallel(lambda n: 10 // n, [5, 0, 2], threads=1)
    assert [done.value for done in results] == [2, None, 5]
    assert isinstance(results[1].error, ZeroDivisionError)
    assert results[0].error is None and results[2].error is None


def test_never_more_than_threads_items_run_at_once():
    # Each item waits at a barrier for two others: three run at once, in three rounds. A
    # fourth thread would raise the peak before its barrier; fewer than three break it.
    running, peak, lock = [0], [0], threading.Lock()
    barrier = threading.Barrier(3, timeout=30)

    def work(_):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        barrier.wait()
        with lock:
            running[0] -= 1

    results = run_parallel(work, range(9), threads=3)
    assert [done.error for done in results] == [None] * 9
    assert peak[0] == 3


def test_no_items_give_no_results_and_start_no_thread():
    before = threading.active_count()
    assert run_parallel(lambda item: item, [], threads=4) == []
    assert threading.active_count() == before


def test_ctrl_c_cancels_the_running_items_and_keeps_every_finished_result():
    release = threading.Event()
    cancels = []

    def work(item):
        if item == "slow":
            release.wait(10)  # until cancelled
            return "cancelled slow"
        return item.upper()

    def cancel():
        cancels.append(1)
        release.set()

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    before = threading.active_count()
    with pytest.raises(Interrupted) as caught:
        run_parallel(work, ["a", "slow"], threads=2, cancel=cancel)
    timer.cancel()
    results = caught.value.results
    assert cancels == [1]
    assert results[0] == Done(0, value="A")
    # Finished after the interrupt, through the cancel: kept, not lost.
    assert results[1] == Done(1, value="cancelled slow")
    assert threading.active_count() <= before  # no thread outlives the call


def test_after_ctrl_c_no_new_item_is_handed_out():
    started = []
    release = threading.Event()

    def work(item):
        started.append(item)
        release.wait(10)
        return item

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(Interrupted) as caught:
        run_parallel(work, [1, 2, 3, 4], threads=1, cancel=release.set)
    timer.cancel()
    assert started == [1]
    assert caught.value.results[1:] == [None, None, None]


def test_interrupted_is_a_keyboard_interrupt_for_callers_that_do_not_catch_it():
    assert issubclass(Interrupted, KeyboardInterrupt)


def test_an_error_from_on_done_cancels_the_rest_and_is_raised_as_it_is():
    cancels = []

    def on_done(done):
        raise RuntimeError("bar broke")

    with pytest.raises(RuntimeError, match="bar broke"):
        run_parallel(lambda item: item, [1, 2, 3], threads=1, on_done=on_done,
                     cancel=lambda: cancels.append(1))
    assert cancels == [1]


@pytest.mark.parametrize("arguments, words", [
    ({"work": None}, "work must be callable, got None"),
    ({"on_done": 3}, "on_done must be callable or None, got 3"),
    ({"cancel": "no"}, "cancel must be callable or None, got 'no'"),
    ({"items": 5}, "items must be iterable, got 5"),
    ({"threads": 1.5}, r"threads must be a positive int, got 1.5 \(float\)"),
])
def test_a_wrong_type_is_an_argument_type_error_showing_the_value(arguments, words):
    call = dict({"work": str, "items": [1], "threads": 1}, **arguments)
    with pytest.raises(ArgumentTypeError, match=words):
        run_parallel(call.pop("work"), call.pop("items"), **call)


@pytest.mark.parametrize("threads", [0, -2])
def test_threads_below_one_is_a_value_error(threads):
    with pytest.raises(ValueError, match=f"threads must be an int >= 1, got {threads}"):
        run_parallel(str, [1], threads=threads)


def test_a_progress_bar_is_drawn_on_a_terminal_only(monkeypatch):
    pytest.importorskip("tqdm")
    from reasoneval_mini.support import parallel

    monkeypatch.setattr(parallel, "_in_jupyter_kernel", lambda: False)
    monkeypatch.setattr(parallel, "_is_terminal", lambda stream: False)
    assert parallel.progress_bar(3, "x", "item") is None  # a log file gets no \r frames
    monkeypatch.setattr(parallel, "_is_terminal", lambda stream: True)
    bar = parallel.progress_bar(3, "x", "item")
    try:
        assert bar is not None and bar.total == 3
    finally:
        bar.close()
    assert parallel.progress_bar(3, "x", "item", enabled=False) is None


def test_the_terminal_check_survives_streams_without_isatty():
    from reasoneval_mini.support.parallel import _is_terminal

    class Closed:
        def isatty(self):
            raise ValueError("I/O operation on closed file")

    assert _is_terminal(None) is False and _is_terminal(Closed()) is False


def test_a_generator_is_read_only_when_a_thread_is_free():
    # Each item is the number of items finished when it was read: read all
    # at once, they would all be 0.
    finished = []

    def items():
        for _ in range(4):
            yield len(finished)

    results = run_parallel(finished.append, items(), threads=1)
    assert finished == [0, 1, 2, 3]
    assert [done.index for done in results] == [0, 1, 2, 3]


def test_a_generator_read_by_many_threads_is_read_by_one_at_a_time():
    # A generator read by two threads at once raises "generator already executing".
    def items():
        for number in range(200):
            time.sleep(0.001)  # inside the generator: two readers would overlap here
            yield number

    results = run_parallel(lambda n: n, items(), threads=4)
    assert [done.value for done in results] == list(range(200))
    assert all(done.error is None for done in results)


def test_an_error_reading_the_items_stops_handing_out_and_is_raised_after_the_running_ones():
    seen = []

    def items():
        yield "a"
        raise LookupError("no more items")

    with pytest.raises(LookupError, match="no more items"):
        run_parallel(lambda item: item, items(), threads=2, on_done=seen.append)
    assert [done.value for done in seen] == ["a"]
