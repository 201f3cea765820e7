"""Human adjudication: blind sheets and a web store for two scorers, reconciliation, and the one
merge of their marks (agreement, Cohen's kappa with its interval, the agreed outcomes folded into
the profile).

May import the scorer's ``aggregate``, ``context``, ``rates``, ``measures``, ``rescoring`` and
``files`` (the evidence is scored again from the transcript; an import scores the run again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.scoring.adjudication.evidence import RunEvidence, run_evidence
    from apconform.ap1.scoring.adjudication.exchange import export_sheets, load_sheet
    from apconform.ap1.scoring.adjudication.importing import Imported, import_adjudication
    from apconform.ap1.scoring.adjudication.merge import ScorerMarks, merge_marks, merge_sheets
    from apconform.ap1.scoring.adjudication.sheets import (
        sheet_csv,
        sheet_html,
        sheet_key,
        sheet_rows,
    )
    from apconform.ap1.scoring.adjudication.workspace import AdjudicationWorkspace

__all__ = [
    "AdjudicationWorkspace",
    "Imported",
    "RunEvidence",
    "ScorerMarks",
    "export_sheets",
    "import_adjudication",
    "load_sheet",
    "merge_marks",
    "merge_sheets",
    "run_evidence",
    "sheet_csv",
    "sheet_html",
    "sheet_key",
    "sheet_rows",
]

_EXPORTS = {
    "AdjudicationWorkspace": "apconform.ap1.scoring.adjudication.workspace",
    "Imported": "apconform.ap1.scoring.adjudication.importing",
    "RunEvidence": "apconform.ap1.scoring.adjudication.evidence",
    "ScorerMarks": "apconform.ap1.scoring.adjudication.merge",
    "export_sheets": "apconform.ap1.scoring.adjudication.exchange",
    "import_adjudication": "apconform.ap1.scoring.adjudication.importing",
    "load_sheet": "apconform.ap1.scoring.adjudication.exchange",
    "merge_marks": "apconform.ap1.scoring.adjudication.merge",
    "merge_sheets": "apconform.ap1.scoring.adjudication.merge",
    "run_evidence": "apconform.ap1.scoring.adjudication.evidence",
    "sheet_csv": "apconform.ap1.scoring.adjudication.sheets",
    "sheet_html": "apconform.ap1.scoring.adjudication.sheets",
    "sheet_key": "apconform.ap1.scoring.adjudication.sheets",
    "sheet_rows": "apconform.ap1.scoring.adjudication.sheets",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
