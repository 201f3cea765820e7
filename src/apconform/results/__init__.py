"""Result documents: conformance reports, AP-1 score reports and APx results.

What kind a document is, whether it is valid, the facts it states about
itself, and how two results of one kind differ. The ledger keeps results;
``apconform report diff`` compares them; ``records`` is the JSON-lines file
format of a conformance report, which the harness writes and the ledger reads.
This package imports only core and models, so the harness, the ledger and every
face can build on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.results.check import check_result as check_result
    from apconform.results.diff import diff_files as diff_files
    from apconform.results.diff import diff_outcomes as diff_outcomes
    from apconform.results.diff import diff_results as diff_results
    from apconform.results.facts import result_facts as result_facts
    from apconform.results.kinds import RESULT_LIMITS as RESULT_LIMITS
    from apconform.results.kinds import ResultKind as ResultKind
    from apconform.results.kinds import detect_kind as detect_kind
    from apconform.results.kinds import read_result as read_result
    from apconform.results.outcomes import BAD as BAD
    from apconform.results.outcomes import GOOD as GOOD
    from apconform.results.outcomes import clause_outcome as clause_outcome
    from apconform.results.outcomes import clause_results as clause_results
    from apconform.results.outcomes import outcome_map as outcome_map
    from apconform.results.profile import DimensionFigure as DimensionFigure
    from apconform.results.profile import origin_label as origin_label
    from apconform.results.profile import profile_figures as profile_figures
    from apconform.results.render import render_diff_text as render_diff_text

__getattr__ = lazy_exports(__name__)
