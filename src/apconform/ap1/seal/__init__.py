"""The seal: every input hashed and every declared rule recorded before the first request.

Sealing, verifying a sealed run directory, the instrument's source identity, and the reference
instrument's published hashes. May import ``inputs``, ``calculator`` and the base modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.seal.build import build_seal, composite_hash, write_sealed_run
    from apconform.ap1.seal.reference import reference_config_hash, reference_seal_hashes
    from apconform.ap1.seal.source import instrument_source_hash
    from apconform.ap1.seal.verify import (
        Finding,
        SealedRun,
        open_sealed_run,
        verify_seal,
        verify_seal_documents,
    )

__all__ = [
    "Finding",
    "SealedRun",
    "build_seal",
    "composite_hash",
    "instrument_source_hash",
    "open_sealed_run",
    "reference_config_hash",
    "reference_seal_hashes",
    "verify_seal",
    "verify_seal_documents",
    "write_sealed_run",
]

_EXPORTS = {
    "build_seal": "apconform.ap1.seal.build",
    "composite_hash": "apconform.ap1.seal.build",
    "write_sealed_run": "apconform.ap1.seal.build",
    "Finding": "apconform.ap1.seal.verify",
    "SealedRun": "apconform.ap1.seal.verify",
    "open_sealed_run": "apconform.ap1.seal.verify",
    "verify_seal": "apconform.ap1.seal.verify",
    "verify_seal_documents": "apconform.ap1.seal.verify",
    "reference_config_hash": "apconform.ap1.seal.reference",
    "reference_seal_hashes": "apconform.ap1.seal.reference",
    "instrument_source_hash": "apconform.ap1.seal.source",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
