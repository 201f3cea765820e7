"""Human adjudication: blind sheets for two scorers, and importing their marks (agreement, Cohen's
kappa, the agreed outcomes folded into the profile).

May import the scorer's ``aggregate``, ``context``, ``rates`` and ``measures``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.scoring.adjudication.merge import merge_sheets
    from apconform.ap1.scoring.adjudication.sheets import (
        sheet_csv,
        sheet_html,
        sheet_key,
        sheet_rows,
    )

__all__ = [
    "merge_sheets",
    "sheet_csv",
    "sheet_html",
    "sheet_key",
    "sheet_rows",
]

_EXPORTS = {
    "sheet_csv": "apconform.ap1.scoring.adjudication.sheets",
    "sheet_html": "apconform.ap1.scoring.adjudication.sheets",
    "sheet_key": "apconform.ap1.scoring.adjudication.sheets",
    "sheet_rows": "apconform.ap1.scoring.adjudication.sheets",
    "merge_sheets": "apconform.ap1.scoring.adjudication.merge",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
