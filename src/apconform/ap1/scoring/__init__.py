"""AP-1 scoring: pure functions over transcript records and sealed inputs, a module per measure.

Public surface: prepare the sealed inputs once, score one execution, re-score a
transcript (in memory or streamed from a run directory), render the report.
"""

from apconform.ap1.scoring.api import prepare_inputs, rescore, rescore_bytes, score_execution
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.files import ScoredFiles, compare_reports, score_run, score_transcript
from apconform.ap1.scoring.html_report import render_html
from apconform.ap1.scoring.markdown import render_markdown
from apconform.ap1.scoring.rescore import Rescorer, ScoreReport

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
