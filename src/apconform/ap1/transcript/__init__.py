"""The transcript: append-only, hash-chained records of a run, and the verifier that locates faults.

May import the base modules of ``apconform.ap1``, ``apconform.core`` and ``apconform.models``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.transcript.chain import GENESIS as GENESIS
    from apconform.ap1.transcript.chain import TranscriptWriter as TranscriptWriter
    from apconform.ap1.transcript.chain import record_hash as record_hash
    from apconform.ap1.transcript.verdict import RunVerdict as RunVerdict
    from apconform.ap1.transcript.verdict import verify_run as verify_run
    from apconform.ap1.transcript.verdict import verify_run_at as verify_run_at
    from apconform.ap1.transcript.verify import TranscriptReport as TranscriptReport
    from apconform.ap1.transcript.verify import verify_transcript as verify_transcript
    from apconform.ap1.transcript.verify import verify_transcript_bytes as verify_transcript_bytes

__getattr__ = lazy_exports(__name__)
