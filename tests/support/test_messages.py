"""The one framed-JSON protocol: round trips, limits, and a writer that cannot be rebound."""

import json
import os
import struct

import pytest

from reasoneval_mini.support import messages
from reasoneval_mini.support.messages import MessageTooLarge, read_message, write_message


@pytest.fixture
def pipe():
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_message_round_trips_with_non_ascii_text(pipe):
    read_end, write_end = pipe
    write_message(write_end, {"text": "é ✓ \ud800"})
    assert read_message(read_end) == {"text": "é ✓ \ud800"}  # the lone surrogate survives


def test_a_frame_claiming_more_than_the_limit_is_refused_before_it_is_read(pipe):
    read_end, write_end = pipe
    os.write(write_end, struct.pack(">Q", 10**12) + b"{}")
    with pytest.raises(MessageTooLarge, match="1000000000000 bytes claimed; at most 100"):
        read_message(read_end, max_bytes=100)


def test_end_of_stream_and_the_cancel_byte_read_as_none(pipe):
    read_end, write_end = pipe
    os.write(write_end, messages.CANCEL_BYTE)
    assert read_message(read_end) is None
    os.close(write_end)
    assert read_message(read_end) is None


def test_replacing_json_dumps_after_import_does_not_change_what_is_sent(pipe, monkeypatch):
    read_end, write_end = pipe
    monkeypatch.setattr(json, "dumps", lambda *args, **kwargs: '{"forged": true}')
    write_message(write_end, {"honest": True})
    monkeypatch.undo()
    assert read_message(read_end) == {"honest": True}


def test_a_write_that_makes_no_progress_raises_instead_of_looping(monkeypatch):
    monkeypatch.setattr(messages, "_write", lambda fd, data: 0)
    with pytest.raises(OSError, match="no progress"):
        messages.write_all(99, b"abc")


def test_raw_parts_follow_their_message_byte_for_byte_even_past_a_pipes_capacity(pipe):
    import threading

    read_end, write_end = pipe
    big = bytes(range(256)) * 1024  # 256 KiB: several partial writes into a 64 KiB pipe
    parts = (b"abc", bytearray(), memoryview(bytearray(b"defgh")), big)
    sizes = [len(part) for part in parts]
    writer = threading.Thread(target=write_message, args=(write_end, {"parts": sizes}, parts))
    writer.start()
    message = read_message(read_end)
    received = messages.read_exactly(read_end, sum(message["parts"]))
    writer.join()
    assert message == {"parts": sizes}
    assert bytes(received) == b"".join(bytes(part) for part in parts)


def test_read_exactly_fills_the_memory_it_is_given_and_says_none_at_end_of_file(pipe):
    read_end, write_end = pipe
    into = memoryview(bytearray(8))
    os.write(write_end, b"12345")
    assert messages.read_exactly(read_end, 5, into=into) is into
    assert bytes(into) == b"12345\0\0\0"
    os.close(write_end)
    assert messages.read_exactly(read_end, 1, into=into) is None
