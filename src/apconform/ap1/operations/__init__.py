"""The AP-1 operations the vectors exercise, each a thin call into the instrument or the scorer.

Importing this package registers every AP-1 operation with
:mod:`apconform.conformance.operations`. May import every other part of ``apconform.ap1``.
"""

from __future__ import annotations

from apconform.ap1.operations import documents, importing, instrument, scoring

__all__: list[str] = []
_REGISTERED = (documents, importing, instrument, scoring)
