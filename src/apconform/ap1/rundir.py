"""The run directory: where a sealed run's files live; one directory holds one run.

RUN_DIR/seal.json              the seal record
RUN_DIR/inputs/...             the sealed copies of every input
RUN_DIR/transcript.jsonl       the append-only transcript
RUN_DIR/transcript.head.json   the transcript's head: record count and last hash
RUN_DIR/.lock                  held while a process runs or resumes the run
RUN_DIR/report/...             the score report (derived; replaced by scoring again)

Nothing in a run directory is ever a symbolic link, and the directory itself
is a real directory. Every file in it is opened here, one path component at a
time, with ``O_NOFOLLOW`` (and ``O_EXCL`` for a file that must be new), so a
link planted in the directory (a dangling ``transcript.jsonl``, a ``.lock``
pointing elsewhere, a ``report`` link to another folder) is refused with an
error naming it, never followed. The same functions serve any folder the kit
writes derived files into (a report folder named with ``--output-dir``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from apconform.core.errors import ApconformError, define_code
from apconform.core.files import FILE_IS_LINK, load_path, open_regular, read_file

__all__ = [
    "HEAD_FILE",
    "INPUT_FILES",
    "RUN_DIR_UNUSABLE",
    "RUN_LINK",
    "SEAL_FILE",
    "TRANSCRIPT_FILE",
    "create_file",
    "ensure_directory",
    "load_in",
    "locked",
    "open_append",
    "open_binary_in",
    "open_existing",
    "read_in",
    "refuse_existing_run",
    "refuse_links",
    "replace_file",
    "replacing",
]

SEAL_FILE = "seal.json"
TRANSCRIPT_FILE = "transcript.jsonl"
HEAD_FILE = "transcript.head.json"
INPUT_FILES = {
    "config": "inputs/config.json",
    "fixture": "inputs/fixture.json",
    "questions": "inputs/questions.json",
    "derivations": "inputs/derivations.json",
    "ap1Text": "inputs/ap1-text.md",
}
_LOCK_FILE = ".lock"
_RUN_ENTRIES = (SEAL_FILE, TRANSCRIPT_FILE, HEAD_FILE, "inputs", _LOCK_FILE, "report")

RUN_EXISTS = define_code(
    "AP1-RUN-EXISTS",
    "The output directory already holds a run",
    "Choose a new --output-dir, or continue the run with `apconform ap1 run --resume DIR`.",
)
RUN_BUSY = define_code(
    "AP1-RUN-BUSY",
    "Another process is running this run directory",
    "Wait for it to finish (or stop it), then resume.",
)
RUN_LINK = define_code(
    "AP1-RUN-LINK",
    "A path in the run directory (or the directory itself) is a symbolic link",
    "Nothing in a run directory is ever a link: remove the link named in the message, find out "
    "how it got there, and run the command again.",
)
RUN_DIR_UNUSABLE = define_code(
    "AP1-RUN-DIR",
    "The directory cannot be used for a run or its reports",
    "Name a directory you can create and write to (or an empty one that exists); "
    "the message says what is wrong with this one.",
)
RUN_FILE = define_code(
    "AP1-RUN-FILE",
    "A file in the run directory cannot be created, opened or written",
    "The message names the file and the reason; check the directory's permissions and space.",
)

_BINARY = getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FD = os.open in os.supports_dir_fd and os.mkdir in os.supports_dir_fd
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK)


def _link(path: Path) -> ApconformError:
    return ApconformError(
        RUN_LINK,
        f"{path} is a symbolic link; it is refused, never followed",
        context={"path": str(path)},
    )


def _unusable(path: Path, why: str) -> ApconformError:
    return ApconformError(RUN_DIR_UNUSABLE, f"{path}: {why}", context={"path": str(path)})


def _file_error(path: Path, action: str, exc: OSError) -> ApconformError:
    return ApconformError(
        RUN_FILE,
        f"cannot {action} {path} ({exc.strerror or type(exc).__name__})",
        context={"path": str(path)},
    )


def ensure_directory(path: Path, *, create: bool = True) -> None:
    """Make sure ``path`` is a real directory (created with its parents when asked).

    Refuses a link (even one to a directory), a file, and a path that cannot be
    created, each with a stable code naming the path.
    """
    if str(path) == "":
        raise _unusable(path, "the directory name is empty")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if not create:
            raise _unusable(path, "no such directory") from None
        try:
            os.makedirs(path, exist_ok=True)
        except FileExistsError:
            if os.path.islink(path):
                raise _link(path) from None
            raise _unusable(path, "it exists and is not a directory") from None
        except NotADirectoryError:
            raise _unusable(path, "a part of the path is a file, not a directory") from None
        except OSError as exc:
            raise _unusable(
                path, f"cannot create it ({exc.strerror or type(exc).__name__})"
            ) from None
        info = os.lstat(path)
    except NotADirectoryError:
        raise _unusable(path, "a part of the path is a file, not a directory") from None
    except OSError as exc:
        raise _unusable(path, f"cannot examine it ({exc.strerror or type(exc).__name__})") from None
    if stat.S_ISLNK(info.st_mode):
        raise _link(path)
    if not stat.S_ISDIR(info.st_mode):
        raise _unusable(path, "it exists and is not a directory")


def _open_folder(base: Path, parts: list[str], *, create: bool) -> int:
    """A descriptor of ``base/parts...``, each component opened without following a link."""
    ensure_directory(base, create=False)
    fd = os.open(base, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    here = base
    try:
        for part in parts:
            here = here / part
            try:
                child = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise _unusable(here, "no such directory") from None
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:  # a dangling link is "not found", then "exists"
                    raise (
                        _link(here)
                        if _is_link(fd, part)
                        else _unusable(here, "it exists and is not a directory")
                    ) from None
                child = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _LINK_ERRORS or _is_link(fd, part):
                    raise _link(here) from None
                if exc.errno == errno.ENOTDIR:
                    raise _unusable(here, "it exists and is not a directory") from None
                raise _file_error(here, "open the directory", exc) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


@contextmanager
def _folder(base: Path, rel: str, *, create: bool) -> Iterator[tuple[int | None, str, Path]]:
    """(descriptor of the folder or None, the file's name in it, its full path) for ``rel``."""
    parts = rel.split("/")
    full = base.joinpath(*parts)
    if not _DIR_FD:  # pragma: no cover - Windows: check every component, then open by path
        ensure_directory(base, create=False)
        here = base
        for part in parts[:-1]:
            here = here / part
            if os.path.islink(here):
                raise _link(here)
            if create:
                ensure_directory(here)
        if os.path.islink(full):
            raise _link(full)
        yield None, str(full), full
        return
    fd = _open_folder(base, parts[:-1], create=create)
    try:
        yield fd, parts[-1], full
    finally:
        os.close(fd)


def _open(base: Path, rel: str, flags: int, mode: int, *, create_parents: bool, action: str) -> int:
    with _folder(base, rel, create=create_parents) as (dir_fd, name, full):
        try:
            return os.open(name, flags | _NOFOLLOW | _BINARY | _CLOEXEC, mode, dir_fd=dir_fd)
        except FileExistsError:
            if (dir_fd is not None and _is_link(dir_fd, name)) or os.path.islink(full):
                raise _link(full) from None
            raise ApconformError(
                RUN_FILE,
                f"{full} already exists; it is never overwritten",
                context={"path": str(full)},
            ) from None
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise _link(full) from None
            raise _file_error(full, action, exc) from None


def create_file(base: Path, rel: str, data: bytes) -> None:
    """Create ``base/rel`` (it must not exist, not even as a link), write it and sync it."""
    fd = _open(
        base, rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, create_parents=True, action="create"
    )
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def open_append(base: Path, rel: str) -> int:
    """Open (or create) ``base/rel`` for appending; a link there is refused."""
    return _open(
        base,
        rel,
        os.O_WRONLY | os.O_APPEND | os.O_CREAT,
        0o644,
        create_parents=False,
        action="open for appending",
    )


def open_existing(base: Path, rel: str, *, write: bool = False) -> int:
    """Open an existing regular file ``base/rel`` for reading (or reading and writing)."""
    flags = (os.O_RDWR if write else os.O_RDONLY) | getattr(os, "O_NONBLOCK", 0)
    fd = _open(base, rel, flags, 0, create_parents=False, action="open")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _unusable(base / rel, "it is not a regular file")
    return fd


@contextmanager
def _links_refused(full: Path) -> Iterator[None]:
    """Turn the file layer's link refusal into the run folder's own (AP1-RUN-LINK)."""
    try:
        yield
    except ApconformError as error:
        if error.error_code is FILE_IS_LINK:
            raise _link(full) from None
        raise


def read_in(base: Path, rel: str, *, max_bytes: int, what: str) -> bytes:
    """The bytes of the regular file ``base/rel`` (at most ``max_bytes``), links refused."""
    with _folder(base, rel, create=False) as (dir_fd, name, full), _links_refused(full):
        return read_file(
            name,
            max_bytes=max_bytes,
            what=what,
            source=str(full),
            follow_links=False,
            dir_fd=dir_fd,
        )


def load_in(base: Path, rel: str) -> Any:
    """The JSON document ``base/rel`` through the bounded loader, links refused."""
    with _folder(base, rel, create=False) as (dir_fd, name, full), _links_refused(full):
        return load_path(name, source=str(full), follow_links=False, dir_fd=dir_fd)


def open_binary_in(
    base: Path, rel: str, *, max_bytes: int, what: str, buffering: int = -1
) -> BinaryIO:
    """A binary reader over the regular file ``base/rel`` (links refused), for streaming."""
    with _folder(base, rel, create=False) as (dir_fd, name, full), _links_refused(full):
        fd = open_regular(
            name,
            source=str(full),
            max_bytes=max_bytes,
            what=what,
            follow_links=False,
            dir_fd=dir_fd,
        )
    return os.fdopen(fd, "rb", buffering=buffering)


def replace_file(
    base: Path, rel: str, content: bytes | Iterable[bytes], *, sync: bool = False
) -> None:
    """Write ``base/rel`` whole: into a new partial file, then renamed over the old one."""
    with replacing(base, rel, sync=sync) as handle:
        if isinstance(content, bytes | bytearray):
            handle.write(content)
        else:
            for piece in content:
                handle.write(piece)


@contextmanager
def replacing(base: Path, rel: str, *, sync: bool = False) -> Iterator[BinaryIO]:
    """A writer on ``base/rel.partial`` that replaces ``base/rel`` when the block ends without
    an error (and, when it raises, leaves the old file alone and removes the partial one).

    The partial file is created exclusively and the target, when it exists,
    must be a regular file: a link at either place is refused, never followed.
    With ``sync`` the new content reaches stable storage before the rename.
    """
    partial = rel + ".partial"
    with _folder(base, rel, create=True) as (dir_fd, name, full):
        for candidate, path in (
            (name, full),
            (name + ".partial", full.with_name(full.name + ".partial")),
        ):
            try:
                info = os.lstat(candidate, dir_fd=dir_fd)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(info.st_mode):
                raise _link(path)
            if not stat.S_ISREG(info.st_mode):
                raise _unusable(path, "it exists and is not a regular file")
            if candidate.endswith(".partial"):  # left by a crash: derived, safe to drop
                os.unlink(candidate, dir_fd=dir_fd)
        fd = _open(
            base,
            partial,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL,
            0o644,
            create_parents=True,
            action="create",
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                yield handle
                if sync:
                    handle.flush()
                    os.fsync(handle.fileno())
        except BaseException:
            with contextlib.suppress(OSError):  # the old file stays; the partial one goes
                os.unlink(name + ".partial", dir_fd=dir_fd)
            raise
        try:
            os.replace(name + ".partial", name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            if sync and dir_fd is not None:
                os.fsync(dir_fd)
        except OSError as exc:
            raise _file_error(full, "replace", exc) from None


def refuse_links(run_dir: Path) -> None:
    """Refuse a run directory that is a link or holds a link where a file of the run belongs
    (a directory that does not exist yet holds nothing to refuse)."""
    if not os.path.lexists(run_dir):
        return
    ensure_directory(run_dir, create=False)
    for name in _RUN_ENTRIES:
        if os.path.islink(run_dir / name):
            raise _link(run_dir / name)


def refuse_existing_run(run_dir: Path) -> None:
    """Refuse a directory that already holds any file of a run (or a link where one would be)."""
    refuse_links(run_dir)
    found = [name for name in (SEAL_FILE, TRANSCRIPT_FILE, "inputs") if (run_dir / name).exists()]
    if found:
        raise ApconformError(
            RUN_EXISTS,
            f"{run_dir} already holds a run ({', '.join(found)}); a run directory is never reused",
        )


def _lock(fd: int, run_dir: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - no advisory lock there; best effort
        return
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ApconformError(
            RUN_BUSY, f"{run_dir} is locked by another apconform process"
        ) from None


@contextmanager
def locked(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the run directory (released by the OS even after kill -9)."""
    fd = _open(
        run_dir, _LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600, create_parents=False, action="create"
    )
    try:
        _lock(fd, run_dir)
        yield
    finally:
        os.close(fd)
