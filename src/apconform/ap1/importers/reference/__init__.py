"""The reference instrument (zorrzai/ap1-run): importing a published run and comparing verdicts.

``report`` reads its published report, ``documents`` converts its inputs,
``records`` converts its transcript record by record, ``run_import`` checks
and writes the run directory, ``comparison`` sets the kit's verdicts beside the
reference's and classifies every disagreement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.importers.reference.comparison import compare_reference
    from apconform.ap1.importers.reference.run_import import (
        ImportedRun,
        ReferenceSources,
        import_reference_run,
    )

__all__ = ["ImportedRun", "ReferenceSources", "compare_reference", "import_reference_run"]

_EXPORTS = {
    "ImportedRun": "apconform.ap1.importers.reference.run_import",
    "ReferenceSources": "apconform.ap1.importers.reference.run_import",
    "import_reference_run": "apconform.ap1.importers.reference.run_import",
    "compare_reference": "apconform.ap1.importers.reference.comparison",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
