"""Result documents: conformance reports, AP-1 score reports and APx results.

What kind a document is, whether it is valid, the facts it states about
itself, and how two results of one kind differ. The ledger keeps results;
``apconform report diff`` compares them. This package may import core,
models and conformance; nothing here imports the ledger, the API or the CLI.
"""

from apconform.results.check import check_result
from apconform.results.diff import diff_files, diff_outcomes, diff_results
from apconform.results.facts import result_facts
from apconform.results.kinds import RESULT_LIMITS, ResultKind, detect_kind, read_result
from apconform.results.outcomes import BAD, GOOD, clause_outcome, clause_results, outcome_map
from apconform.results.profile import DimensionFigure, origin_label, profile_figures
from apconform.results.render import render_diff_text

__all__ = [
    "BAD",
    "GOOD",
    "RESULT_LIMITS",
    "DimensionFigure",
    "ResultKind",
    "check_result",
    "clause_outcome",
    "clause_results",
    "detect_kind",
    "diff_files",
    "diff_outcomes",
    "diff_results",
    "origin_label",
    "outcome_map",
    "profile_figures",
    "read_result",
    "render_diff_text",
    "result_facts",
]
