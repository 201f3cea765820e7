"""Where a ledger lives: a file path (SQLite) or a PostgreSQL URL, from --ledger or the environment.

Passwords never appear in messages: every place that shows a location shows
:meth:`LedgerLocation.display`, with the password masked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from apconform.core.errors import ApconformError
from apconform.ledger.errors import LEDGER_LOCATION

__all__ = ["ENV_VAR", "LedgerLocation", "resolve_location"]

ENV_VAR = "APCONFORM_LEDGER"
_POSTGRES = ("postgresql", "postgres", "postgresql+psycopg")
_SQLITE = ("sqlite", "sqlite+pysqlite")


@dataclass(frozen=True)
class LedgerLocation:
    """A resolved ledger location: the SQLAlchemy URL, and the file for SQLite."""

    url: URL
    path: Path | None

    @property
    def dialect(self) -> str:
        return "sqlite" if self.path is not None else "postgresql"

    def display(self) -> str:
        """The location for messages: the file path, or the URL with its password masked."""
        if self.path is not None:
            return str(self.path)
        return self.url.render_as_string(hide_password=True)


def _from_url(text: str) -> LedgerLocation:
    try:
        url = make_url(text)
    except ArgumentError:
        raise ApconformError(LEDGER_LOCATION, "the ledger URL cannot be parsed") from None
    if url.drivername in _SQLITE:
        if not url.database or url.database == ":memory:":
            raise ApconformError(
                LEDGER_LOCATION, "an SQLite ledger must be a file, e.g. sqlite:///ledger.db"
            )
        path = Path(url.database)
        return LedgerLocation(URL.create("sqlite+pysqlite", database=str(path)), path)
    if url.drivername in _POSTGRES:
        if not url.database:
            raise ApconformError(
                LEDGER_LOCATION, "a PostgreSQL ledger URL must name the database (…/dbname)"
            )
        return LedgerLocation(url.set(drivername="postgresql+psycopg"), None)
    raise ApconformError(
        LEDGER_LOCATION,
        f"unsupported ledger database {url.drivername!r}; use a file path (SQLite) or "
        "postgresql+psycopg://…",
    )


def resolve_location(
    value: str | os.PathLike[str] | None, *, environ: Mapping[str, str] | None = None
) -> LedgerLocation:
    """The ledger named by ``value``, or else by ``APCONFORM_LEDGER``; an error when neither."""
    env = os.environ if environ is None else environ
    text = os.fspath(value) if value is not None else env.get(ENV_VAR, "")
    if not text.strip():
        raise ApconformError(
            LEDGER_LOCATION,
            f"no ledger given: pass --ledger PATH-OR-URL or set {ENV_VAR}",
        )
    if "://" in text:
        return _from_url(text)
    path = Path(text)
    return LedgerLocation(URL.create("sqlite+pysqlite", database=str(path)), path)
