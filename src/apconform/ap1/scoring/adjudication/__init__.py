"""Human adjudication: blind sheets for two scorers, and importing their marks (agreement, Cohen's
kappa, the agreed outcomes folded into the profile).

May import the scorer's ``aggregate``, ``context``, ``rates`` and ``measures``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.scoring.adjudication.merge import merge_sheets as merge_sheets
    from apconform.ap1.scoring.adjudication.sheets import sheet_csv as sheet_csv
    from apconform.ap1.scoring.adjudication.sheets import sheet_html as sheet_html
    from apconform.ap1.scoring.adjudication.sheets import sheet_key as sheet_key
    from apconform.ap1.scoring.adjudication.sheets import sheet_rows as sheet_rows

__getattr__ = lazy_exports(__name__)
