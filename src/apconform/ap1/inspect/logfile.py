"""The Inspect log as the import reads it: a private copy, hashed, its expanded size bounded.

Inspect reads a ``.eval`` log (a zip archive) by expanding each member it
needs whole, and a ``.json`` log by parsing all of it, so a small archive that
expands to gigabytes, or a huge JSON file, would be read into memory before
anything could refuse it. The import therefore copies the named file (through
the kit's bounded reader, hashing it on the way, so what Inspect reads is what
was hashed) and, before Inspect sees the copy, checks it: a ``.json`` log is
bounded by its size; for a ``.eval`` log the archive's directory (its entry
count and size, read from the end record), each member's declared expanded
size, their sum, and each member's actual expansion, streamed and stopped at
the declared size, so a member that lies about its size is caught after
reading at most that much. Anything beyond a bound is refused with
``AP1-INSPECT-LOG-SIZE`` before the memory is spent.
"""

from __future__ import annotations

import contextlib
import hashlib
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from apconform.core.errors import ApconformError, define_code
from apconform.core.files import open_binary, refuse_special

__all__ = [
    "LOG_SIZE",
    "LOG_UNREADABLE",
    "MAX_EVAL_BYTES",
    "MAX_EXPANDED_BYTES",
    "MAX_JSON_BYTES",
    "MAX_MEMBERS",
    "MAX_MEMBER_BYTES",
    "LogCopy",
    "private_copy",
]

LOG_UNREADABLE = define_code(
    "AP1-INSPECT-LOG",
    "The Inspect log cannot be read",
    "Give the path of a log file (.eval or .json) written by `inspect eval apconform/ap1`.",
)
LOG_SIZE = define_code(
    "AP1-INSPECT-LOG-SIZE",
    "The Inspect log is larger, or expands to more, than the import reads",
    "Check that you named the log of an apconform/ap1 run; a log beyond the bounds the message "
    "states is refused before it is expanded. Split a very large plan into several runs.",
)

MAX_EVAL_BYTES = 1 << 30
"""A ``.eval`` log's size on disk (compressed)."""
MAX_JSON_BYTES = 256 << 20
"""A ``.json`` log's size: Inspect parses all of it at once."""
MAX_MEMBER_BYTES = 64 << 20
"""One member of a ``.eval`` log, expanded (one sample of an AP-1 run is well below 1 MiB)."""
MAX_EXPANDED_BYTES = 1 << 30
"""Every member of a ``.eval`` log together, expanded."""
MAX_MEMBERS = 100_000
"""Members of a ``.eval`` log (one per sample, and a few more)."""
_DIRECTORY_BYTES = 64 << 20
"""The archive's central directory, which Python's zip reader holds in memory."""
_ZSTD_WINDOW = 1 << 27
_CHUNK = 1 << 20
_STORED, _DEFLATED, _ZSTD = 0, 8, 93


@dataclass(frozen=True)
class LogCopy:
    """The private copy Inspect reads, and the digest of the file the user named."""

    path: Path
    sha256: str
    size: int


def _refuse(name: str, message: str) -> ApconformError:
    return ApconformError(LOG_SIZE, f"{name}: {message}", context={"source": name})


def _directory(handle: BinaryIO, size: int, name: str) -> None:
    """Refuse an archive whose directory holds too many entries or bytes, from its end record."""
    tail = min(size, 22 + 65_535)
    handle.seek(size - tail)
    data = handle.read(tail)
    at = data.rfind(b"PK\x05\x06")
    if at < 0 or len(data) - at < 22:
        raise ApconformError(LOG_UNREADABLE, f"{name} is not a zip archive (no end record)")
    entries, directory = struct.unpack_from("<HI", data, at + 10)
    if at >= 20 and data[at - 20 : at - 16] == b"PK\x06\x07":  # zip64: the real numbers
        (offset,) = struct.unpack_from("<Q", data, at - 12)
        if offset + 56 > size:
            raise ApconformError(LOG_UNREADABLE, f"{name}: the zip64 end record is out of range")
        handle.seek(offset)
        record = handle.read(56)
        if record[:4] != b"PK\x06\x06":
            raise ApconformError(LOG_UNREADABLE, f"{name}: the zip64 end record is missing")
        entries, directory = struct.unpack_from("<QQ", record, 32)
    if entries > MAX_MEMBERS:
        raise _refuse(name, f"the archive holds {entries:,} members; the limit is {MAX_MEMBERS:,}")
    if directory > _DIRECTORY_BYTES:
        raise _refuse(
            name,
            f"the archive's directory is {directory:,} bytes; the limit is {_DIRECTORY_BYTES:,}",
        )


def _expansion(handle: BinaryIO, info: zipfile.ZipInfo) -> Iterator[int]:
    """The sizes of the member's expanded chunks, read from its compressed bytes in order."""
    handle.seek(info.header_offset)
    header = handle.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise ValueError("its local header is missing")
    name_length, extra_length = struct.unpack_from("<HH", header, 26)
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    left = info.compress_size

    def compressed() -> Iterator[bytes]:
        nonlocal left
        while left > 0:
            chunk = handle.read(min(left, _CHUNK))
            if not chunk:
                raise ValueError("its compressed data is cut short")
            left -= len(chunk)
            yield chunk

    if info.compress_type == _STORED:
        for chunk in compressed():
            yield len(chunk)
    elif info.compress_type == _DEFLATED:
        inflater = zlib.decompressobj(-15)
        for chunk in compressed():
            pending = chunk
            while pending:
                yield len(inflater.decompress(pending, _CHUNK))
                pending = inflater.unconsumed_tail
        yield len(inflater.flush())
    elif info.compress_type == _ZSTD:
        import zstandard

        reader = zstandard.ZstdDecompressor(max_window_size=_ZSTD_WINDOW).stream_reader(
            _Chunks(compressed()),  # type: ignore[arg-type]  # it reads with read() alone
            read_across_frames=True,
        )
        while block := reader.read(_CHUNK):
            yield len(block)
    else:
        raise ValueError(
            f"it is compressed with method {info.compress_type}, which Inspect does not write"
        )


class _Chunks:
    """A read-only file over an iterator of byte chunks (what zstandard's reader reads from)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._buffer) < size:
            chunk = next(self._chunks, None)
            if chunk is None:
                break
            self._buffer += chunk
        if size < 0:
            size = len(self._buffer)
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out


def _check_archive(path: Path, name: str) -> None:
    with path.open("rb") as handle:
        size = path.stat().st_size
        _directory(handle, size, name)
        try:
            members = zipfile.ZipFile(handle).infolist()
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ApconformError(
                LOG_UNREADABLE, f"{name} is not a readable zip archive ({exc})"
            ) from None
        total = 0
        for info in members:
            if info.file_size > MAX_MEMBER_BYTES:
                raise _refuse(
                    name,
                    f"member {info.filename} expands to {info.file_size:,} bytes; the limit for "
                    f"one member is {MAX_MEMBER_BYTES:,}",
                )
            total += info.file_size
            if total > MAX_EXPANDED_BYTES:
                raise _refuse(
                    name,
                    f"the members expand to more than {MAX_EXPANDED_BYTES:,} bytes together (the "
                    "limit)",
                )
        for info in members:
            expanded = 0
            try:
                for count in _expansion(handle, info):
                    expanded += count
                    if expanded > info.file_size:
                        raise _refuse(
                            name,
                            f"member {info.filename} expands beyond the {info.file_size:,} bytes "
                            "its directory entry declares",
                        )
            except ApconformError:
                raise
            except Exception as exc:  # zlib.error, zstandard.ZstdError, a member cut short
                raise ApconformError(
                    LOG_UNREADABLE, f"{name}: member {info.filename} cannot be read ({exc})"
                ) from None
            if expanded != info.file_size:
                raise ApconformError(
                    LOG_UNREADABLE,
                    f"{name}: member {info.filename} expands to {expanded:,} bytes, not the "
                    f"{info.file_size:,} its directory entry declares",
                )


@contextlib.contextmanager
def private_copy(path: Path) -> Iterator[LogCopy]:
    """A checked private copy of the log at ``path`` (see the module docstring), removed after."""
    name = str(path)
    refuse_special(path, expect="file")  # a device or FIFO is refused as one, whatever its name
    suffix = path.suffix.lower()
    if suffix not in (".eval", ".json"):
        raise ApconformError(
            LOG_UNREADABLE, f"{name} is neither a .eval nor a .json log (Inspect's two formats)"
        )
    limit = MAX_EVAL_BYTES if suffix == ".eval" else MAX_JSON_BYTES
    with (
        open_binary(
            path, max_bytes=limit, what=f"an Inspect {suffix} log", follow_links=False
        ) as src,
        tempfile.TemporaryDirectory(prefix="apconform-inspect-") as folder,
    ):
        copy = Path(folder) / f"log{suffix}"
        digest = hashlib.sha256()
        size = 0
        with copy.open("wb") as out:
            while chunk := src.read(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise ApconformError(
                        LOG_SIZE, f"{name} grew beyond {limit:,} bytes while it was read"
                    )
                digest.update(chunk)
                out.write(chunk)
        if suffix == ".eval":
            _check_archive(copy, name)
        yield LogCopy(copy, digest.hexdigest(), size)
