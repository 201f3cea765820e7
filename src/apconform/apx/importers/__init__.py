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
    from apconform.apx.importers.contract import autogenous_adapter, metaharness_adapter
    from apconform.apx.importers.metaharness import metaharness_manifest, validate_task_pack
    from apconform.apx.importers.meter import apply_meters, import_meter
    from apconform.apx.importers.ruclip import attach_ruclip, import_ruclip_receipt

__all__ = [
    "apply_meters",
    "attach_ruclip",
    "autogenous_adapter",
    "import_meter",
    "import_ruclip_receipt",
    "metaharness_adapter",
    "metaharness_manifest",
    "validate_task_pack",
]

_EXPORTS = {
    "apply_meters": "apconform.apx.importers.meter",
    "attach_ruclip": "apconform.apx.importers.ruclip",
    "autogenous_adapter": "apconform.apx.importers.contract",
    "import_meter": "apconform.apx.importers.meter",
    "import_ruclip_receipt": "apconform.apx.importers.ruclip",
    "metaharness_adapter": "apconform.apx.importers.contract",
    "metaharness_manifest": "apconform.apx.importers.metaharness",
    "validate_task_pack": "apconform.apx.importers.metaharness",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
