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
    from apconform.ap1.scoring.adjudication.evidence import RunEvidence as RunEvidence
    from apconform.ap1.scoring.adjudication.evidence import run_evidence as run_evidence
    from apconform.ap1.scoring.adjudication.exchange import export_sheets as export_sheets
    from apconform.ap1.scoring.adjudication.exchange import load_sheet as load_sheet
    from apconform.ap1.scoring.adjudication.importing import Imported as Imported
    from apconform.ap1.scoring.adjudication.importing import (
        import_adjudication as import_adjudication,
    )
    from apconform.ap1.scoring.adjudication.merge import ScorerMarks as ScorerMarks
    from apconform.ap1.scoring.adjudication.merge import merge_marks as merge_marks
    from apconform.ap1.scoring.adjudication.merge import merge_sheets as merge_sheets
    from apconform.ap1.scoring.adjudication.sheets import sheet_csv as sheet_csv
    from apconform.ap1.scoring.adjudication.sheets import sheet_html as sheet_html
    from apconform.ap1.scoring.adjudication.sheets import sheet_key as sheet_key
    from apconform.ap1.scoring.adjudication.sheets import sheet_rows as sheet_rows
    from apconform.ap1.scoring.adjudication.workspace import (
        AdjudicationWorkspace as AdjudicationWorkspace,
    )

__getattr__ = lazy_exports(__name__)
