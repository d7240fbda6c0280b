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


def test_end_of_stream_reads_as_none(pipe):
    read_end, write_end = pipe
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


def test_a_frame_reader_returns_the_same_messages_however_the_bytes_are_cut():
    import random

    sent = [{"event": "source", "i": i, "text": "é" * i} for i in range(40)]
    stream = b"".join(messages.encode_message(message) for message in sent)
    generator = random.Random(7)
    for _ in range(50):
        reader, received, at = messages.FrameReader(max_bytes=1 << 10), [], 0
        while at < len(stream):
            step = generator.randint(1, 64)
            received += reader.feed(stream[at:at + step])
            at += step
        assert received == sent  # what was sent, whatever the cuts


def test_a_frame_reader_skips_a_body_that_is_not_json_and_goes_on():
    reader = messages.FrameReader(max_bytes=100)
    not_json, too_deep = struct.pack(">Q", 3) + b"{{{", struct.pack(">Q", 60) + b"[" * 60
    assert reader.feed(not_json + too_deep + messages.encode_message({"a": 1})) == [{"a": 1}]


def test_a_frame_reader_holds_nothing_once_a_frame_claims_too_much():
    reader = messages.FrameReader(max_bytes=100)
    with pytest.raises(MessageTooLarge):
        reader.feed(struct.pack(">Q", 101) + b"x" * 50)
    assert reader.buffer == bytearray()
