"""Fixed-width records in an anonymous temporary file: written packed, read back by position."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apconform.core.spill import RecordFile, anonymous_file


def _record(n: int) -> bytes:
    return n.to_bytes(3, "big")


def test_records_come_back_by_position_and_in_batches(tmp_path: Path) -> None:
    with RecordFile(3, str(tmp_path), ".test-spill-") as spill:
        assert os.listdir(tmp_path) == []  # unlinked as it is created
        spill.append(b"".join(_record(n) for n in range(2500)))
        spill.append(_record(2500) + _record(2501))
        assert (len(spill), spill.width) == (2502, 3)
        assert spill.read(0, 2) == b"\x00\x00\x00\x00\x00\x01"
        assert spill.read(2501, 1) == b"\x00\x09\xc5"  # 2501
        assert spill.read(7, 0) == b""
        # 2,000 records from 500, read 1,024 at a time: across a batch boundary.
        assert list(spill.records(500, 2000)) == [_record(n) for n in range(500, 2500)]
        assert list(spill.records(2499)) == [_record(2499), _record(2500), _record(2501)]
        assert list(spill.records(10, 5, batch=2)) == [_record(n) for n in range(10, 15)]
    assert os.listdir(tmp_path) == []


def test_an_empty_file_has_no_records(tmp_path: Path) -> None:
    with RecordFile(40, str(tmp_path), ".test-spill-") as spill:
        spill.append(b"")
        assert len(spill) == 0
        assert list(spill.records()) == []
        assert spill.read(0, 0) == b""
        with pytest.raises(IndexError, match="no records 0 to 0 of 0"):
            spill.read(0, 1)


def test_partial_records_and_positions_past_the_end_are_refused(tmp_path: Path) -> None:
    with RecordFile(8, str(tmp_path), ".test-spill-") as spill:
        with pytest.raises(ValueError, match="12 bytes are not whole records of 8"):
            spill.append(b"x" * 12)
        assert len(spill) == 0
        spill.append(b"a" * 8 + b"b" * 8)
        with pytest.raises(IndexError, match="no records 1 to 2 of 2"):
            spill.read(1, 2)
        with pytest.raises(IndexError, match="no records -1 to -1 of 2"):
            spill.read(-1, 1)
    with pytest.raises(ValueError, match="at least one byte, not 0"):
        RecordFile(0, str(tmp_path), ".test-spill-")


def test_a_file_that_comes_back_short_is_an_error(tmp_path: Path) -> None:
    with RecordFile(4, str(tmp_path), ".test-spill-") as spill:
        spill.append(b"abcdefgh")
        spill.flush()
        os.ftruncate(spill._file.fileno(), 6)  # the disk lost the end of the second record
        assert spill.read(0, 1) == b"abcd"
        with pytest.raises(OSError, match="came back short"):
            spill.read(1, 1)


def test_a_forked_process_reads_what_was_flushed(tmp_path: Path) -> None:
    """Records appended are buffered; :meth:`RecordFile.flush` writes them for a process that
    shares the file (what a re-score's forked sheet writers do)."""
    spill = RecordFile(2, str(tmp_path), ".test-spill-")
    spill.append(b"p1q2")
    spill.flush()
    script = "import os, sys; fd = int(sys.argv[1]); sys.stdout.write(os.pread(fd, 4, 0).decode())"
    fd = spill._file.fileno()
    out = subprocess.run(
        [sys.executable, "-c", script, str(fd)],
        pass_fds=(fd,),
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "p1q2"
    spill.close()


def test_anonymous_file_leaves_nothing_behind(tmp_path: Path) -> None:
    with anonymous_file(str(tmp_path), ".test-spill-") as handle:
        handle.write(b"line\n")
        assert os.listdir(tmp_path) == []
        handle.flush()
        assert os.pread(handle.fileno(), 5, 0) == b"line\n"
