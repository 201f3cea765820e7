"""Importers from the systems around APx: resource meters, ruClip receipts, MetaHarness packs.

None of them reaches a live service. Each maps an upstream record onto the
APx contract and keeps what it cannot vouch for visible: an unmetered value
stays unknown (never 0), an approval is not acceptance, and a contract
adapter says ``nativeIntegration: false``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.apx.importers.contract import autogenous_adapter as autogenous_adapter
    from apconform.apx.importers.contract import metaharness_adapter as metaharness_adapter
    from apconform.apx.importers.metaharness import metaharness_manifest as metaharness_manifest
    from apconform.apx.importers.metaharness import validate_task_pack as validate_task_pack
    from apconform.apx.importers.meter import apply_meters as apply_meters
    from apconform.apx.importers.meter import import_meter as import_meter
    from apconform.apx.importers.ruclip import attach_ruclip as attach_ruclip
    from apconform.apx.importers.ruclip import import_ruclip_receipt as import_ruclip_receipt

__getattr__ = lazy_exports(__name__)
