"""The run directory: where a sealed run's files live; one directory holds one run.

RUN_DIR/seal.json           the seal record
RUN_DIR/inputs/...          the sealed copies of every input
RUN_DIR/transcript.jsonl    the append-only transcript
RUN_DIR/.lock               held while a process runs or resumes the run
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from apconform.core.errors import ApconformError, define_code

__all__ = [
    "INPUT_FILES",
    "SEAL_FILE",
    "TRANSCRIPT_FILE",
    "locked",
    "refuse_existing_run",
]

SEAL_FILE = "seal.json"
TRANSCRIPT_FILE = "transcript.jsonl"
INPUT_FILES = {
    "config": "inputs/config.json",
    "fixture": "inputs/fixture.json",
    "questions": "inputs/questions.json",
    "derivations": "inputs/derivations.json",
    "ap1Text": "inputs/ap1-text.md",
}
_LOCK_FILE = ".lock"

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


def refuse_existing_run(run_dir: Path) -> None:
    """Refuse a directory that already holds any file of a run."""
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
    path = run_dir / _LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd, run_dir)
        yield
    finally:
        os.close(fd)
