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
    from apconform.ap1.importers.reference.comparison import compare_reference as compare_reference
    from apconform.ap1.importers.reference.run_import import ImportedRun as ImportedRun
    from apconform.ap1.importers.reference.run_import import ReferenceSources as ReferenceSources
    from apconform.ap1.importers.reference.run_import import (
        import_reference_run as import_reference_run,
    )

__getattr__ = lazy_exports(__name__)
