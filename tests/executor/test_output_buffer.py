"""HeadTailBuffer against the obvious reference: slicing the whole stream."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoneval_mini.runner.output_buffer import HeadTailBuffer


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

