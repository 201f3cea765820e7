"""A throw-away PostgreSQL server for tests and benchmarks: initdb and pg_ctl in a temporary
folder, listening on 127.0.0.1 at a free port, stopped and removed afterwards.

PostgreSQL refuses to run as root, and the tests do run as root on CI: the
server then runs as the unprivileged ``nobody`` through ``runuser``, in a
folder that user owns. Where the binaries are missing the tests skip, except
under CI (``CI=true``), where that fails them.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "pg_bin", "running_postgres"]

_USER = "apconform"


def pg_bin() -> Path | None:
    """The folder holding initdb and pg_ctl (PostgreSQL 15 from Debian first), or None."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if Path(folder, "pg_ctl").exists() and Path(folder, "initdb").exists():
            return Path(folder)
    found = shutil.which("pg_ctl")
    return Path(found).parent if found and Path(found).with_name("initdb").exists() else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    """A running server; :meth:`create_database` gives each test its own database."""

    port: int
    root: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{_USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        import psycopg

        name = f"ledger_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user={_USER} dbname=postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_owner(command: list[str], owner: str | None) -> list[str]:
    return ["runuser", "-u", owner, "--", *command] if owner else command


@contextmanager
def running_postgres(*, fsync: bool = False) -> Iterator[PostgresServer]:
    """Start a server (as ``nobody`` when running as root) and stop it when done."""
    folder = pg_bin()
    if folder is None:
        message = "PostgreSQL binaries are not installed (apt-get install -y postgresql-15)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    owner = "nobody" if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="apconform-pg-"))
    if owner:
        shutil.chown(root, user=owner)
    data, log = root / "data", root / "server.log"
    port = _free_port()
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    try:
        subprocess.run(
            _as_owner(
                [
                    str(folder / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    _USER,
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "--locale=C.UTF-8",
                ],
                owner,
            ),
            check=True,
            capture_output=True,
            env=env,
            timeout=120,
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=60"
        if not fsync:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        subprocess.run(
            _as_owner(
                [
                    str(folder / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(log),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "60",
                    "start",
                ],
                owner,
            ),
            check=True,
            capture_output=True,
            env=env,
            timeout=90,
        )
        try:
            yield PostgresServer(port, root)
        finally:
            subprocess.run(
                _as_owner(
                    [str(folder / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], owner
                ),
                check=False,
                capture_output=True,
                env=env,
                timeout=60,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
