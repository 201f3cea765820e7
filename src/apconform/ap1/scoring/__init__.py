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
    from apconform.ap1.scoring.api import prepare_inputs as prepare_inputs
    from apconform.ap1.scoring.api import rescore as rescore
    from apconform.ap1.scoring.api import rescore_bytes as rescore_bytes
    from apconform.ap1.scoring.api import score_execution as score_execution
    from apconform.ap1.scoring.api import transcript_lines as transcript_lines
    from apconform.ap1.scoring.context import ScoringInputs as ScoringInputs
    from apconform.ap1.scoring.files import RescoreOutcome as RescoreOutcome
    from apconform.ap1.scoring.files import ScoredFiles as ScoredFiles
    from apconform.ap1.scoring.files import compare_reports as compare_reports
    from apconform.ap1.scoring.files import rescore_run as rescore_run
    from apconform.ap1.scoring.files import score_run as score_run
    from apconform.ap1.scoring.files import score_transcript as score_transcript
    from apconform.ap1.scoring.report.html import render_html as render_html
    from apconform.ap1.scoring.report.markdown import render_markdown as render_markdown
    from apconform.ap1.scoring.rescoring import Rescorer as Rescorer
    from apconform.ap1.scoring.rescoring import ScoreReport as ScoreReport

__getattr__ = lazy_exports(__name__)
