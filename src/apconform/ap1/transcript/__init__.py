"""The transcript: append-only, hash-chained records of a run, and the verifier that locates faults.

May import the base modules of ``apconform.ap1``, ``apconform.core`` and ``apconform.models``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.transcript.chain import GENESIS, TranscriptWriter, record_hash
    from apconform.ap1.transcript.verify import (
        TranscriptReport,
        verify_transcript,
        verify_transcript_bytes,
    )

__all__ = [
    "GENESIS",
    "TranscriptReport",
    "TranscriptWriter",
    "record_hash",
    "verify_transcript",
    "verify_transcript_bytes",
]

_EXPORTS = {
    "GENESIS": "apconform.ap1.transcript.chain",
    "TranscriptWriter": "apconform.ap1.transcript.chain",
    "record_hash": "apconform.ap1.transcript.chain",
    "TranscriptReport": "apconform.ap1.transcript.verify",
    "verify_transcript": "apconform.ap1.transcript.verify",
    "verify_transcript_bytes": "apconform.ap1.transcript.verify",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
