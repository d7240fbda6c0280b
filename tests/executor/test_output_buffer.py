"""HeadTailBuffer and ReusedHeadTail against the obvious reference: slicing the whole stream."""

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoneval_mini.runner.output_buffer import HeadTailBuffer, ReusedHeadTail, head_tail_text


@given(chunks=st.lists(st.binary(max_size=40), max_size=20),
       head=st.integers(0, 30), tail=st.integers(0, 30))
def test_keeps_exactly_the_head_and_tail_of_the_whole_stream(chunks, head, tail):
    stream = b"".join(chunks)
    buffer = HeadTailBuffer(head=head, tail=tail)
    for chunk in chunks:
        buffer.feed(chunk)
    assert buffer.total == len(stream)
    if len(stream) <= head + tail:
        expected = stream
    else:
        dropped = len(stream) - head - tail
        expected = (stream[:head] + f"\n[... {dropped} bytes omitted ...]\n".encode()
                    + stream[len(stream) - tail:])
    assert buffer.text() == expected.decode("utf-8", errors="replace")


def test_memory_stays_bounded_for_a_long_stream():
    buffer = HeadTailBuffer(head=10, tail=10)
    for _ in range(10_000):
        buffer.feed(b"y" * 1000)
    assert len(buffer.head) == 10 and len(buffer.tail) <= 2 * 10 + 1000
    assert buffer.total == 10_000_000


@pytest.mark.parametrize("bad", [-1, 1.5, None, True])
def test_bad_sizes_are_value_errors(bad):
    with pytest.raises(ValueError, match="must be an int >= 0"):
        HeadTailBuffer(head=bad)


def read_all(kept, chunks):
    """Feed *chunks* through a pipe into *kept*, one write and one read at a time."""
    read_end, write_end = os.pipe()
    try:
        for chunk in chunks:
            if chunk:
                os.write(write_end, chunk)
                kept.read_from(read_end)
    finally:
        os.close(read_end)
        os.close(write_end)


@given(streams=st.lists(st.lists(st.binary(max_size=40), max_size=20), min_size=1, max_size=3),
       head=st.integers(0, 30), tail=st.integers(0, 30))
def test_reused_memory_keeps_the_head_and_tail_of_each_stream_in_turn_and_is_zeroed(
        streams, head, tail):
    kept = ReusedHeadTail(head=head, tail=tail)
    for chunks in streams:  # one program after another, in the same memory
        stream = b"".join(chunks)
        read_all(kept, chunks)
        head_part, *tail_parts = (bytes(piece) for piece in kept.pieces())
        tail_part = b"".join(tail_parts)
        assert (head_part, kept.total) == (stream[:head], len(stream))
        assert tail_part == (stream[head:][-tail:] if tail else b"")
        assert (kept.head_size, kept.tail_size) == (len(head_part), len(tail_part))
        reference = HeadTailBuffer(head=head, tail=tail)
        reference.feed(stream)
        assert head_tail_text(head_part, tail_part, kept.total) == reference.text()
        kept.clear()
        assert not any(kept.store), "bytes of the last stream are still in the memory"
