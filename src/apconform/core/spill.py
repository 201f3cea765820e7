"""Packed fixed-width records spilled to an anonymous temporary file and read back by position.

A long re-score bounds its memory in three places by moving packed records
out of Python objects into a file: the sorted runs of a scorer's sheet order
(key and position, 40 bytes), the D2 digests of a
:class:`~apconform.core.distinct.DistinctCounter` (group and digest, 36
bytes, one file per bucket) and a spooled listing's row offsets (8 bytes).
Each had its own copy of the file handling and record arithmetic (record n
at byte n x width, a flush before reading back; one of them checked for a
short read); :class:`RecordFile` is the one copy. What the records mean, and
how they are sorted, merged, partitioned or counted, stays with each caller.
The files are unlinked as they are created: nothing is left behind, whatever
stops the process.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from types import TracebackType
from typing import IO

__all__ = ["READ_BATCH", "RecordFile", "anonymous_file"]

READ_BATCH = 1024
"""Records read at a time by :meth:`RecordFile.records` unless told otherwise."""


def anonymous_file(directory: str | None, prefix: str) -> IO[bytes]:
    """A temporary file in ``directory`` (None: the system's) that has no name once created."""
    return tempfile.TemporaryFile(dir=directory, prefix=prefix)


class RecordFile:
    """Records of ``width`` bytes appended to an anonymous file and read back by position."""

    def __init__(self, width: int, directory: str | None, prefix: str) -> None:
        if width <= 0:
            raise ValueError(f"a record is at least one byte, not {width}")
        self._width = width
        self._file = anonymous_file(directory, prefix)
        self._count = 0
        self._unflushed = False

    @property
    def width(self) -> int:
        """The bytes of one record."""
        return self._width

    def __len__(self) -> int:
        return self._count

    def append(self, data: bytes) -> None:
        """Append whole records, packed one after another in ``data``."""
        if len(data) % self._width:
            raise ValueError(f"{len(data)} bytes are not whole records of {self._width}")
        if data:
            self._file.write(data)
            self._count += len(data) // self._width
            self._unflushed = True

    def flush(self) -> None:
        """Write what is buffered to the file (before another process reads it)."""
        if self._unflushed:
            self._file.flush()
            self._unflushed = False

    def read(self, start: int, count: int) -> bytes:
        """Records ``start`` to ``start + count - 1`` (0 is the first), packed."""
        if start < 0 or count < 0 or start + count > self._count:
            raise IndexError(f"no records {start} to {start + count - 1} of {self._count}")
        self.flush()
        size = count * self._width
        data = os.pread(self._file.fileno(), size, start * self._width)
        if len(data) != size:
            raise OSError("a temporary file of records came back short")
        return data

    def records(
        self, start: int = 0, count: int | None = None, batch: int = READ_BATCH
    ) -> Iterator[bytes]:
        """``count`` records (None: to the end) from ``start``, one by one, read ``batch`` at a
        time (so only ``batch`` records are held however many are read)."""
        if count is None:
            count = self._count - start
        width = self._width
        while count > 0:
            take = min(count, batch)
            data = self.read(start, take)
            yield from (data[i : i + width] for i in range(0, len(data), width))
            start += take
            count -= take

    def close(self) -> None:
        """Drop the file."""
        self._file.close()
        self._count, self._unflushed = 0, False

    def __enter__(self) -> RecordFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
