"""The two databases a ledger can live in, behind one small seam.

A backend makes the engine and takes the locks: the write lock that makes
appends one at a time (so the chain never forks), and the schema lock that
makes a first-time set-up safe when several processes open a new ledger at
once. Everything else is portable SQLAlchemy Core.
"""

from apconform.ledger.backends.base import Backend, backend_for

__all__ = ["Backend", "backend_for"]
