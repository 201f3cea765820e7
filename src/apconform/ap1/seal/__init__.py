"""The seal: every input hashed and every declared rule recorded before the first request.

Sealing, verifying a sealed run directory, the instrument's source identity, and the reference
instrument's published hashes. May import ``inputs``, ``calculator`` and the base modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.seal.build import build_seal as build_seal
    from apconform.ap1.seal.build import composite_hash as composite_hash
    from apconform.ap1.seal.build import write_sealed_run as write_sealed_run
    from apconform.ap1.seal.reference import reference_config_hash as reference_config_hash
    from apconform.ap1.seal.reference import reference_seal_hashes as reference_seal_hashes
    from apconform.ap1.seal.source import instrument_source_hash as instrument_source_hash
    from apconform.ap1.seal.verify import Finding as Finding
    from apconform.ap1.seal.verify import SealedRun as SealedRun
    from apconform.ap1.seal.verify import open_sealed_run as open_sealed_run
    from apconform.ap1.seal.verify import verify_seal as verify_seal
    from apconform.ap1.seal.verify import verify_seal_documents as verify_seal_documents

__getattr__ = lazy_exports(__name__)
