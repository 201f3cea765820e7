"""The two databases a ledger can live in, behind one small seam.

A backend makes the engine and takes the locks: the write lock that makes
appends one at a time (so the chain never forks), and the schema lock that
makes a first-time set-up safe when several processes open a new ledger at
once. Everything else is portable SQLAlchemy Core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ledger.backends.base import Backend as Backend
    from apconform.ledger.backends.base import backend_for as backend_for

__getattr__ = lazy_exports(__name__)
