"""Lists of JSON rows that move to an anonymous temporary file once they grow, and sorting them.

A re-score of a million executions lists hundreds of thousands of rows (the
operand audit, the rows routed to people); holding them as Python objects
until the report is written is what made memory grow with the run. A
:class:`SpooledRows` keeps its first rows in memory and, past a threshold,
writes every row as one JSON line to a temporary file that is unlinked when
it is created (nothing is left behind, whatever stops the process), reading
them back in order when iterated, or by position (each row's offset is
written, eight bytes a row, to a second anonymous file, a
:class:`~apconform.core.spill.RecordFile`: held in memory they were 7 MB of a
million-execution re-score, in the parent and in each process it forks) so
that a sorted order of small keys can be read back without holding the rows.
Rows are plain JSON data (dicts, lists, strings, integers, booleans, None);
they come back equal and with the same key order.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

import orjson

from apconform.core.spill import RecordFile, anonymous_file

__all__ = ["EncodedRows", "MappedRows", "RowStream", "SpooledRows", "plain_rows"]

MEMORY_ROWS = 5_000
"""Rows held as objects before a spool moves to its file."""
_BATCH = 2_000
_READ = 1 << 20
_ASCII_ENCODE = json.JSONEncoder(separators=(",", ":")).encode
"""ASCII JSON: every string, lone surrogates included, comes back exactly."""
_DECODE_TEXT = json.JSONDecoder().decode
_OFFSET = array("Q")
_PREFIX = ".apconform-spool-"


def _encode(row: Any) -> bytes:
    """One row as a line: orjson's UTF-8 JSON, or (what orjson refuses: a lone surrogate, an
    integer past 64 bits, a non-string key) a space and the standard library's ASCII JSON."""
    try:
        return orjson.dumps(row)
    except orjson.JSONEncodeError:
        return b" " + _ASCII_ENCODE(row).encode("ascii")


def _decode(line: bytes) -> Any:
    """The row of a line written by :func:`_encode` (each writer's line read by its reader)."""
    if line[:1] == b" ":
        return _DECODE_TEXT(line.decode("ascii"))
    return orjson.loads(line)


class RowStream:
    """A sized, re-iterable sequence of rows that need not be in memory (a JSON array)."""

    def __len__(self) -> int:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError

    def at(self, positions: Iterable[int]) -> Iterator[Any]:
        """The rows at these positions (0 is the first), in the order given."""
        raise NotImplementedError

    def head(self, count: int) -> list[Any]:
        """The first ``count`` rows, as a list."""
        out: list[Any] = []
        if count <= 0:
            return out
        for row in self:
            out.append(row)
            if len(out) >= count:
                break
        return out

    def map(self, convert: Callable[[Any], Any]) -> MappedRows:
        """The rows, each passed through ``convert`` when read."""
        return MappedRows(self, convert)


class MappedRows(RowStream):
    """Another stream's rows, converted one by one as they are read."""

    def __init__(self, source: RowStream, convert: Callable[[Any], Any]) -> None:
        self._source, self._convert = source, convert

    @property
    def source(self) -> RowStream:
        """The rows before conversion."""
        return self._source

    @property
    def convert(self) -> Callable[[Any], Any]:
        """What each row is converted with."""
        return self._convert

    def __len__(self) -> int:
        return len(self._source)

    def __iter__(self) -> Iterator[Any]:
        return map(self._convert, self._source)

    def at(self, positions: Iterable[int]) -> Iterator[Any]:
        return map(self._convert, self._source.at(positions))


class EncodedRows:
    """Rows kept as the lines a spool writes, encoded as they are appended.

    What a worker process sends back: a list of bytes is pickled and read
    again far faster than the rows, and :meth:`SpooledRows.extend_encoded`
    takes the lines as they are, so the process that merges does not encode
    them again.
    """

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def append(self, row: Any) -> None:
        self.lines.append(_encode(row))

    def extend(self, rows: Iterable[Any]) -> None:
        for row in rows:
            self.append(row)

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self) -> Iterator[Any]:
        return map(_decode, self.lines)


def _read_lines(handle: IO[bytes], end: int) -> Iterator[bytes]:
    """The lines of ``handle`` up to byte ``end``, read with their own offset (pread)."""
    fd, offset, rest = handle.fileno(), 0, b""
    while offset < end:
        piece = os.pread(fd, min(_READ, end - offset), offset)
        if not piece:
            break
        offset += len(piece)
        lines = (rest + piece).split(b"\n")
        rest = lines.pop()
        yield from lines
    if rest:
        yield rest


class SpooledRows(RowStream):
    """Rows appended in order, held in memory up to ``memory_rows``, then in a temporary file."""

    def __init__(self, directory: str | None = None, memory_rows: int | None = None) -> None:
        self._directory = directory
        self._memory_rows = MEMORY_ROWS if memory_rows is None else memory_rows
        self._rows: list[Any] = []
        self._pending: list[bytes] = []
        self._file: IO[bytes] | None = None
        self._size = 0
        self._count = 0
        self._index: RecordFile | None = None
        """The offset of each row in the file."""

    @property
    def directory(self) -> str | None:
        """Where the temporary file goes (None: the system's temporary directory)."""
        return self._directory

    @property
    def spilled(self) -> bool:
        """Whether the rows are in the temporary file (else :attr:`rows` holds them)."""
        return self._file is not None

    @property
    def rows(self) -> list[Any]:
        """The rows, while they are in memory."""
        if self._file is not None:
            raise ValueError("the rows are in a temporary file; iterate over them")
        return self._rows

    def append(self, row: Any) -> None:
        self._count += 1
        if self._file is None:
            self._rows.append(row)
            if len(self._rows) > self._memory_rows:
                self._spill()
            return
        self._pending.append(_encode(row))
        if len(self._pending) >= _BATCH:
            self._flush()

    def extend(self, rows: Iterable[Any]) -> None:
        for row in rows:
            self.append(row)

    def extend_encoded(self, rows: EncodedRows) -> None:
        """Append the rows of ``rows`` (the same as appending each row; once this spool is in
        its file, their lines are written as they are)."""
        if self._file is None:
            self.extend(rows)
            return
        self._count += len(rows.lines)
        self._pending.extend(rows.lines)
        if len(self._pending) >= _BATCH:
            self._flush()

    def _spill(self) -> None:
        self._file = anonymous_file(self._directory, _PREFIX)
        self._index = RecordFile(_OFFSET.itemsize, self._directory, _PREFIX)
        self._pending = [_encode(row) for row in self._rows]
        self._rows = []
        self._flush()

    def _flush(self) -> None:
        if self._file is not None and self._index is not None and self._pending:
            offsets, at = array("Q"), self._size
            for line in self._pending:
                offsets.append(at)
                at += len(line) + 1
            data = b"\n".join(self._pending) + b"\n"
            self._file.write(data)
            self._index.append(offsets.tobytes())
            self._size += len(data)
            self._pending = []

    def __len__(self) -> int:
        return self._count

    def flush(self) -> None:
        """Write the rows still pending to the temporary file (before a forked process reads it)."""
        self._flush()
        if self._file is not None and self._index is not None:
            self._file.flush()
            self._index.flush()

    def __iter__(self) -> Iterator[Any]:
        if self._file is None:
            return iter(list(self._rows))
        self._flush()
        self._file.flush()
        return map(_decode, _read_lines(self._file, self._size))

    def at(self, positions: Iterable[int]) -> Iterator[Any]:
        if self._file is None:
            rows = self._rows
            for position in positions:
                yield rows[position]
            return
        self.flush()
        assert self._index is not None
        fd, index, last = self._file.fileno(), self._index, len(self._index) - 1
        for position in positions:
            if not 0 <= position <= last:
                raise IndexError(f"no row {position} of {last + 1}")
            # This row's offset and the next one's (the last row ends where the file ends).
            pair = array("Q", index.read(position, 2 if position < last else 1))
            end = pair[1] if position < last else self._size
            yield _decode(os.pread(fd, end - pair[0] - 1, pair[0]))

    def close(self) -> None:
        """Drop the rows and the temporary files."""
        for handle in (self._file, self._index):
            if handle is not None:
                handle.close()
        self._file, self._rows, self._pending, self._count, self._size = None, [], [], 0, 0
        self._index = None


def plain_rows(rows: list[Any] | SpooledRows | EncodedRows) -> list[Any] | SpooledRows:
    """A plain list while the rows are in memory (a small run's document is ordinary data)."""
    if isinstance(rows, EncodedRows):
        return list(rows)
    if isinstance(rows, SpooledRows) and not rows.spilled:
        return rows.rows
    return rows
