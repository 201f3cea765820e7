"""Reading documents from files and streams, bounded before a byte too many is read.

Both readers take at most ``max_bytes + 1`` bytes (a huge file or an endless
stdin costs nothing) and hand the bytes to :func:`apconform.core.jsonload.loads`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any, Protocol

from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import DEFAULT_LIMITS, Limits, loads, size_error

__all__ = ["load_path", "load_stream"]

FILE_NOT_FOUND = define_code(
    "APC-FILE-NOT-FOUND",
    "The file does not exist",
    "Check the path (relative paths start at the current directory).",
)
FILE_NOT_REGULAR = define_code(
    "APC-FILE-NOT-REGULAR",
    "The path is not a regular file",
    "Give the path of a regular file, not a directory, device or pipe; "
    "use '-' to read from standard input where the command supports it.",
)
FILE_UNREADABLE = define_code(
    "APC-FILE-UNREADABLE",
    "The file could not be read",
    "Check the file's permissions and that it is not locked by another program.",
)


def _read_at_most(read: Callable[[int], bytes], limit: int) -> bytes:
    """Read until end of input or ``limit`` bytes, whichever comes first."""
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        chunk = read(limit - total)
        if not chunk:
            break
        if not isinstance(chunk, bytes | bytearray):
            raise TypeError("load_stream needs a binary stream (for stdin: sys.stdin.buffer)")
        chunks.append(bytes(chunk))
        total += len(chunk)
    return b"".join(chunks)


def load_path(
    path: str | os.PathLike[str],
    *,
    limits: Limits = DEFAULT_LIMITS,
    source: str | None = None,
) -> Any:
    """Load a JSON document from a regular file, reading at most ``max_bytes + 1`` bytes."""
    name = source if source is not None else os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ApconformError(
            FILE_NOT_FOUND, f"{name}: no such file", context={"source": name}
        ) from None
    except IsADirectoryError:
        raise _not_regular(name, "a directory") from None
    except OSError as exc:
        if os.path.isdir(path):  # Windows refuses to open directories with a permission error
            raise _not_regular(name, "a directory") from None
        raise ApconformError(
            FILE_UNREADABLE,
            f"{name}: cannot open the file ({exc.strerror or exc.__class__.__name__})",
            context={"source": name},
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise _not_regular(name, kind)
        if info.st_size > limits.max_bytes:
            raise size_error(name, limits, info.st_size)
        try:
            data = _read_at_most(lambda size: os.read(fd, size), limits.max_bytes + 1)
        except OSError as exc:
            raise ApconformError(
                FILE_UNREADABLE,
                f"{name}: reading failed ({exc.strerror or exc.__class__.__name__})",
                context={"source": name},
            ) from None
    finally:
        os.close(fd)
    if len(data) > limits.max_bytes:
        raise size_error(name, limits, None)
    return loads(data, limits=limits, source=name)


def _not_regular(name: str, kind: str) -> ApconformError:
    return ApconformError(
        FILE_NOT_REGULAR, f"{name}: is {kind}, not a regular file", context={"source": name}
    )


class _BinaryReader(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


def load_stream(
    stream: _BinaryReader, *, limits: Limits = DEFAULT_LIMITS, source: str = "<stdin>"
) -> Any:
    """Load a JSON document from a binary stream (stdin), reading at most ``max_bytes + 1``."""
    data = _read_at_most(stream.read, limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise size_error(source, limits, None)
    return loads(data, limits=limits, source=source)
