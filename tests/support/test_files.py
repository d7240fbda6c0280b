"""Atomic writes: text and bytes, no temporary file left behind, the old file kept on failure."""

import pytest

from reasoneval_mini.support.files import write_atomically


def test_text_is_written_as_utf8_with_newline_line_ends(tmp_path):
    path = tmp_path / "sub" / "a.txt"
    write_atomically(path, "é\nz\n")
    assert path.read_bytes() == "é\nz\n".encode("utf-8")


def test_bytes_are_written_as_they_are(tmp_path):
    path = tmp_path / "a.png"
    write_atomically(path, b"\x89PNG\r\n\x00")
    assert path.read_bytes() == b"\x89PNG\r\n\x00"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("old")
    with pytest.raises(TypeError):
        write_atomically(path, 12)  # neither str nor bytes: the write itself fails
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
