"""Lists of JSON rows that move to an anonymous temporary file once they grow, and sorting them.

A re-score of a million executions lists hundreds of thousands of rows (the
operand audit, the rows routed to people); holding them as Python objects
until the report is written is what made memory grow with the run. A
:class:`SpooledRows` keeps its first rows in memory and, past a threshold,
writes every row as one JSON line to a temporary file that is unlinked when
it is created (nothing is left behind, whatever stops the process), reading
them back in order when iterated. :func:`external_sorted` orders rows like
``sorted(rows, key=...)`` (stable, the same order) in runs of bounded size
merged from temporary files. Rows are plain JSON data (dicts, lists, strings,
integers, booleans, None); they come back equal and with the same key order.
"""

from __future__ import annotations

import heapq
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

__all__ = ["RowStream", "SpooledRows", "external_sorted", "plain_rows"]

MEMORY_ROWS = 5_000
"""Rows held as objects before a spool moves to its file."""
_BATCH = 2_000
_READ = 1 << 20
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode
"""ASCII JSON: every string, lone surrogates included, comes back exactly."""
_DECODE_TEXT = json.JSONDecoder().decode


def _decode(line: bytes) -> Any:
    return _DECODE_TEXT(line.decode("ascii"))


class RowStream:
    """A sized, re-iterable sequence of rows that need not be in memory (a JSON array)."""

    def __len__(self) -> int:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Any]:
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

    def __len__(self) -> int:
        return len(self._source)

    def __iter__(self) -> Iterator[Any]:
        return map(self._convert, self._source)


def _temporary(directory: str | None) -> IO[bytes]:
    return tempfile.TemporaryFile(dir=directory, prefix=".apconform-spool-")


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

    def __init__(self, directory: str | None = None, memory_rows: int = MEMORY_ROWS) -> None:
        self._directory, self._memory_rows = directory, memory_rows
        self._rows: list[Any] = []
        self._pending: list[str] = []
        self._file: IO[bytes] | None = None
        self._size = 0
        self._count = 0

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
        self._pending.append(_ENCODE(row))
        if len(self._pending) >= _BATCH:
            self._flush()

    def extend(self, rows: Iterable[Any]) -> None:
        for row in rows:
            self.append(row)

    def _spill(self) -> None:
        self._file = _temporary(self._directory)
        self._pending = [_ENCODE(row) for row in self._rows]
        self._rows = []
        self._flush()

    def _flush(self) -> None:
        if self._file is not None and self._pending:
            data = ("\n".join(self._pending) + "\n").encode("ascii")
            self._file.write(data)
            self._size += len(data)
            self._pending = []

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Any]:
        if self._file is None:
            return iter(list(self._rows))
        self._flush()
        self._file.flush()
        return map(_decode, _read_lines(self._file, self._size))

    def close(self) -> None:
        """Drop the rows and the temporary file."""
        if self._file is not None:
            self._file.close()
        self._file, self._rows, self._pending, self._count, self._size = None, [], [], 0, 0


def plain_rows(rows: list[Any] | SpooledRows) -> list[Any] | SpooledRows:
    """A plain list while the rows are in memory (a small run's document is ordinary data)."""
    if isinstance(rows, SpooledRows) and not rows.spilled:
        return rows.rows
    return rows


def external_sorted(
    rows: Iterable[Any],
    key: Callable[[Any], str],
    *,
    directory: str | None = None,
    run_rows: int = 20_000,
) -> Iterator[Any]:
    """``sorted(rows, key=key)`` (stable) with at most ``run_rows`` rows in memory per run.

    Each run is sorted in memory and written to an anonymous temporary file;
    the runs are merged by (key, position), so rows with equal keys keep their
    input order, exactly as :func:`sorted` does. The files close when the
    iterator is exhausted or dropped.
    """
    runs: list[IO[bytes]] = []
    batch: list[tuple[str, int, Any]] = []
    position = 0
    try:
        for row in rows:
            batch.append((key(row), position, row))
            position += 1
            if len(batch) >= run_rows:
                runs.append(_write_run(batch, directory))
                batch = []
        batch.sort(key=lambda entry: (entry[0], entry[1]))
        if not runs:
            for _, _, row in batch:
                yield row
            return
        if batch:
            runs.append(_write_run(batch, directory))
            batch = []
        streams = [_read_run(run) for run in runs]
        for _, _, row in heapq.merge(*streams, key=lambda entry: (entry[0], entry[1])):
            yield row
    finally:
        for run in runs:
            run.close()


def _write_run(batch: list[tuple[str, int, Any]], directory: str | None) -> IO[bytes]:
    batch.sort(key=lambda entry: (entry[0], entry[1]))
    handle = _temporary(directory)
    for start in range(0, len(batch), _BATCH):
        lines = (_ENCODE(entry) for entry in batch[start : start + _BATCH])
        handle.write(("\n".join(lines) + "\n").encode("ascii"))
    handle.flush()
    return handle


def _read_run(handle: IO[bytes]) -> Iterator[tuple[str, int, Any]]:
    end = handle.seek(0, os.SEEK_END)
    for line in _read_lines(handle, end):
        sort_key, position, row = _decode(line)
        yield sort_key, position, row
