"""AP-1 scoring: pure functions over transcript records and sealed inputs.

``measures/`` holds one module per measurement (figure identification, D1, D2, D7.1-D7.3,
answers); ``execution`` scores one record with all of them; ``aggregate`` accumulates;
``report/`` builds the profile document and renders it; ``adjudication/`` writes the blind
sheets and imports two scorers' marks; ``rescoring``, ``parallel`` and ``files`` re-score whole
transcripts. May import ``inputs``, ``calculator``, ``transcript``, ``seal`` and the base modules.

Public surface: prepare the sealed inputs once, score one execution, re-score a transcript
(in memory or streamed from a run directory), render the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.scoring.api import prepare_inputs, rescore, rescore_bytes, score_execution
    from apconform.ap1.scoring.context import ScoringInputs
    from apconform.ap1.scoring.files import (
        ScoredFiles,
        compare_reports,
        score_run,
        score_transcript,
    )
    from apconform.ap1.scoring.report.html import render_html
    from apconform.ap1.scoring.report.markdown import render_markdown
    from apconform.ap1.scoring.rescoring import Rescorer, ScoreReport

__all__ = [
    "Rescorer",
    "ScoreReport",
    "ScoredFiles",
    "ScoringInputs",
    "compare_reports",
    "prepare_inputs",
    "render_html",
    "render_markdown",
    "rescore",
    "rescore_bytes",
    "score_execution",
    "score_run",
    "score_transcript",
]

_EXPORTS = {
    "prepare_inputs": "apconform.ap1.scoring.api",
    "rescore": "apconform.ap1.scoring.api",
    "rescore_bytes": "apconform.ap1.scoring.api",
    "score_execution": "apconform.ap1.scoring.api",
    "ScoringInputs": "apconform.ap1.scoring.context",
    "ScoredFiles": "apconform.ap1.scoring.files",
    "compare_reports": "apconform.ap1.scoring.files",
    "score_run": "apconform.ap1.scoring.files",
    "score_transcript": "apconform.ap1.scoring.files",
    "render_html": "apconform.ap1.scoring.report.html",
    "render_markdown": "apconform.ap1.scoring.report.markdown",
    "Rescorer": "apconform.ap1.scoring.rescoring",
    "ScoreReport": "apconform.ap1.scoring.rescoring",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
