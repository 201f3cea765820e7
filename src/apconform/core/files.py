"""Reading the files a user names: regular files only, bounded, and never blocking.

Every reader opens the path with ``O_NONBLOCK`` and checks what it got with
``fstat`` before reading a byte, so a directory, a FIFO or a device
(``/dev/zero``) is refused at once instead of hanging or filling memory; a
regular file larger than the limit for its kind of input is refused from its
size, and no reader ever takes more than the limit plus one byte (a file that
grows while it is read, or a ``/proc`` file that reports size 0, is still
bounded). Standard input is read only by commands documented to read a
stream, through the same bound.

:func:`load_path` and :func:`load_stream` hand the bytes to the bounded JSON
loader; :func:`read_file`, :func:`read_text` and :func:`open_regular` serve
text, sheets, reports and transcripts.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import DEFAULT_LIMITS, Limits, loads, size_error

__all__ = [
    "FILE_IS_LINK",
    "FILE_NOT_DIRECTORY",
    "FILE_NOT_FOUND",
    "FILE_NOT_REGULAR",
    "FILE_NOT_TEXT",
    "FILE_TOO_LARGE",
    "FILE_UNREADABLE",
    "load_path",
    "load_stream",
    "open_binary",
    "open_regular",
    "read_file",
    "read_stream",
    "read_text",
    "refuse_special",
]

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
FILE_NOT_DIRECTORY = define_code(
    "APC-FILE-NOT-DIRECTORY",
    "The path is not a folder",
    "Give the path of a folder (a run directory, an inputs folder, a vector folder), "
    "not a file, device or pipe.",
)
FILE_UNREADABLE = define_code(
    "APC-FILE-UNREADABLE",
    "The file could not be read",
    "Check the file's permissions and that it is not locked by another program.",
)
FILE_IS_LINK = define_code(
    "APC-FILE-LINK",
    "The path is a symbolic link where a file of the kit's own is expected",
    "Remove the link and find out how it got there; the kit never follows links among the "
    "files it writes and reads back.",
)
FILE_TOO_LARGE = define_code(
    "APC-FILE-TOO-LARGE",
    "The file is larger than the limit for its kind of input",
    "Check that you named the right file; the limit is stated in the message.",
)
FILE_NOT_TEXT = define_code(
    "APC-FILE-NOT-TEXT",
    "The file is not UTF-8 text",
    "Give a UTF-8 text file (convert it first if it uses another encoding).",
)

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK)  # what O_NOFOLLOW gives for a link (Linux, BSD)


def _read_at_most(read: Callable[[int], bytes], limit: int) -> bytes:
    """Read until end of input or ``limit`` bytes, whichever comes first."""
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        chunk = read(min(limit - total, 1 << 20))
        if not chunk:
            break
        if not isinstance(chunk, bytes | bytearray):
            raise TypeError("a binary stream is needed (for stdin: sys.stdin.buffer)")
        chunks.append(bytes(chunk))
        total += len(chunk)
    return b"".join(chunks)


def _not_regular(name: str, kind: str) -> ApconformError:
    return ApconformError(
        FILE_NOT_REGULAR, f"{name}: is {kind}, not a regular file", context={"source": name}
    )


def _describe_mode(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _too_large(name: str, what: str, limit: int, size: int | None) -> ApconformError:
    measured = f"is {size:,} bytes" if size is not None else "is larger than that"
    return ApconformError(
        FILE_TOO_LARGE,
        f"{name}: the file {measured}; the limit for {what} is {limit:,} bytes",
        context={"source": name, "limit": limit, "size": size},
    )


def refuse_special(path: str | os.PathLike[str], *, expect: str, source: str | None = None) -> None:
    """Refuse at once a named path that exists and is not what the command expects.

    ``expect`` is ``"directory"`` (a folder to read), ``"file"`` (a regular file) or
    ``"output"`` (a file or folder the command writes: either may exist, a device, a
    FIFO or a socket may not, since writing would block on it or replace it). A
    missing path passes: the command reports or creates it. Only ``stat`` is
    called, which never blocks, and links are followed to what they name.
    """
    name = source if source is not None else os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError:
        return  # the command's own reader reports what it cannot open
    if expect == "directory":
        if not stat.S_ISDIR(mode):
            kind = "a regular file" if stat.S_ISREG(mode) else _describe_mode(mode)
            raise ApconformError(
                FILE_NOT_DIRECTORY, f"{name}: is {kind}, not a folder", context={"source": name}
            )
    elif expect == "file":
        if not stat.S_ISREG(mode):
            raise _not_regular(name, _describe_mode(mode))
    elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ApconformError(
            FILE_NOT_REGULAR,
            f"{name}: is {_describe_mode(mode)}, not a regular file or folder to write",
            context={"source": name},
        )


def open_regular(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    max_bytes: int | None = None,
    what: str = "this input",
    follow_links: bool = True,
    dir_fd: int | None = None,
) -> int:
    """Open a regular file for reading without blocking; return its descriptor.

    Refuses (with a stable code, before reading) a missing path, a directory,
    a FIFO, a device or a socket, and a file whose size exceeds ``max_bytes``;
    with ``follow_links=False`` also a path whose last component is a symbolic
    link. The caller owns the descriptor and closes it.
    """
    name = source if source is not None else os.fspath(path)
    flags = _FLAGS if follow_links else _FLAGS | _NOFOLLOW
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise ApconformError(
            FILE_NOT_FOUND, f"{name}: no such file", context={"source": name}
        ) from None
    except IsADirectoryError:
        raise _not_regular(name, "a directory") from None
    except OSError as exc:
        if not follow_links and exc.errno in _LINK_ERRORS:
            raise ApconformError(
                FILE_IS_LINK,
                f"{name}: is a symbolic link; it is refused, not followed",
                context={"source": name},
            ) from None
        if dir_fd is None and os.path.isdir(path):  # Windows refuses directories with EACCES
            raise _not_regular(name, "a directory") from None
        raise ApconformError(
            FILE_UNREADABLE,
            f"{name}: cannot open the file ({exc.strerror or exc.__class__.__name__})",
            context={"source": name},
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(name, _describe_mode(info.st_mode))
        if max_bytes is not None and info.st_size > max_bytes:
            raise _too_large(name, what, max_bytes, info.st_size)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_fd(fd: int, name: str, limit: int) -> bytes:
    try:
        return _read_at_most(lambda size: os.read(fd, size), limit)
    except OSError as exc:
        raise ApconformError(
            FILE_UNREADABLE,
            f"{name}: reading failed ({exc.strerror or exc.__class__.__name__})",
            context={"source": name},
        ) from None


def read_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    what: str = "this input",
    source: str | None = None,
    follow_links: bool = True,
    dir_fd: int | None = None,
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (refused, never truncated)."""
    name = source if source is not None else os.fspath(path)
    fd = open_regular(
        path, source=name, max_bytes=max_bytes, what=what, follow_links=follow_links, dir_fd=dir_fd
    )
    try:
        data = _read_fd(fd, name, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise _too_large(name, what, max_bytes, None)
    return data


def read_text(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    what: str = "this text",
    source: str | None = None,
    follow_links: bool = True,
    dir_fd: int | None = None,
) -> str:
    """A regular file of at most ``max_bytes`` decoded as UTF-8 (refused if it is not)."""
    name = source if source is not None else os.fspath(path)
    data = read_file(
        path, max_bytes=max_bytes, what=what, source=name, follow_links=follow_links, dir_fd=dir_fd
    )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApconformError(
            FILE_NOT_TEXT,
            f"{name}: byte {exc.start} is not UTF-8 ({exc.reason})",
            context={"source": name},
        ) from None


class _BinaryReader(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


def read_stream(
    stream: _BinaryReader, *, max_bytes: int, what: str = "this input", source: str = "<stdin>"
) -> bytes:
    """At most ``max_bytes`` of a binary stream, for commands documented to read standard input."""
    data = _read_at_most(stream.read, max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_large(source, what, max_bytes, None)
    return data


def open_binary(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    what: str = "this input",
    source: str | None = None,
    buffering: int = -1,
    follow_links: bool = True,
) -> BinaryIO:
    """A binary file object over a checked regular file, for streaming readers."""
    fd = open_regular(
        path, source=source, max_bytes=max_bytes, what=what, follow_links=follow_links
    )
    try:
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def load_path(
    path: str | os.PathLike[str],
    *,
    limits: Limits = DEFAULT_LIMITS,
    source: str | None = None,
    follow_links: bool = True,
    dir_fd: int | None = None,
) -> Any:
    """Load a JSON document from a regular file, reading at most ``max_bytes + 1`` bytes."""
    name = source if source is not None else os.fspath(path)
    fd = open_regular(path, source=name, follow_links=follow_links, dir_fd=dir_fd)
    try:
        size = os.fstat(fd).st_size
        if size > limits.max_bytes:
            raise size_error(name, limits, size)
        data = _read_fd(fd, name, limits.max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > limits.max_bytes:
        raise size_error(name, limits, None)
    return loads(data, limits=limits, source=name)


def load_stream(
    stream: _BinaryReader, *, limits: Limits = DEFAULT_LIMITS, source: str = "<stdin>"
) -> Any:
    """Load a JSON document from a binary stream (stdin), reading at most ``max_bytes + 1``."""
    data = _read_at_most(stream.read, limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise size_error(source, limits, None)
    return loads(data, limits=limits, source=source)
