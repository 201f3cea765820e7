"""A run's transcript verdict, decided once: is the chain whole, anchored, finished?

``apconform ap1 verify-transcript``, the ``ap1.verify_transcript`` vector
operation and the engine's resume check all ask the same question of a verified
chain and its head; :func:`verify_run` answers it as a :class:`RunVerdict`, and
each face only renders that answer. :func:`verify_run_at` first reads what a
path names (a run directory, or a transcript file with the seal and head beside
it), as the command does.

The verdict's exit status is the command's: 0 complete and anchored (or of the
older format without a head), 1 a fault, 3 consistent but unfinished.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from apconform.ap1.rundir import SEAL_FILE, TRANSCRIPT_FILE, load_in
from apconform.ap1.transcript.head import HEAD_INVALID, Anchor, check_anchor, read_head
from apconform.ap1.transcript.records import TranscriptHead, is_transcript_head
from apconform.ap1.transcript.verify import TranscriptReport, verify_transcript
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.files import load_path
from apconform.core.trust import TrustAnchors, trust_anchors

__all__ = ["UNFINISHED", "RunVerdict", "ScoreReportCheck", "verify_run", "verify_run_at"]

UNFINISHED = 3
"""Exit status of a transcript that is consistent but not complete (resume it)."""


class ScoreReportCheck(Protocol):
    """How a published score report relates to the transcript (``ReportAnchorCheck``)."""

    @property
    def message(self) -> str: ...

    @property
    def fault(self) -> bool: ...

    def to_dict(self) -> dict[str, str]: ...


ScoreCheck = Callable[[Path, TranscriptReport, TrustAnchors], ScoreReportCheck | None]
"""Checks the score report in a folder against the verified chain (None: no report there)."""


@dataclass(frozen=True)
class RunVerdict:
    """The chain as verified, what its head says of its end, and what follows from both."""

    report: TranscriptReport
    anchor: Anchor
    score_report: ScoreReportCheck | None = None
    """The published score report's relation to the chain; None when none was checked."""
    require_anchor: bool = False
    """An unanchored chain (no head, older format) is a fault, not a pass."""
    path: Path | None = None
    """The transcript verified, when read from a file."""
    head: TranscriptHead | None = None
    """The head compared with the chain; None when there was none."""
    planned: int | None = None
    """The cells the seal plans; None without a seal."""

    @property
    def valid(self) -> bool:
        """The chain verifies, its end matches its head, and a score report matches it."""
        scored_fault = self.score_report is not None and self.score_report.fault
        return self.report.ok and not self.anchor.fault and not scored_fault

    @property
    def finished(self) -> bool:
        """The run finished and its head anchors the finishing record."""
        return self.report.finished and self.anchor.state != "tail"

    @property
    def deferred(self) -> list[str]:
        """The cells deferred (failed at the endpoint) and never recorded since."""
        return sorted(key for key in self.report.deferred if key not in self.report.cells)

    @property
    def exit_status(self) -> int:
        """0 complete and anchored (or older format), 1 a fault, 3 consistent but unfinished."""
        if not self.valid:
            return 1
        if self.require_anchor and self.anchor.state == "unanchored":
            return 1
        if not self.report.finished or self.anchor.state == "tail":
            return UNFINISHED
        return 0

    @property
    def blocks_resume(self) -> bool:
        """The head shows a fault a resumed run must not build on (a head missing after the
        first record alone is not one: the run stopped before it wrote its first head)."""
        stopped_before_head = self.anchor.state == "head-missing" and len(self.report.records) == 1
        return self.anchor.fault and not stopped_before_head

    @property
    def imported_from(self) -> str | None:
        """The instrument the run was imported from (its run-started provenance), or None."""
        records = self.report.records
        started = records[0].get("runStarted") if records else None
        provenance = started.get("provenance") if isinstance(started, dict) else None
        source = provenance.get("source") if isinstance(provenance, dict) else None
        return source if isinstance(source, str) and source else None


def verify_run(
    report: TranscriptReport,
    head: TranscriptHead | None,
    *,
    seal_hash: str | None,
    anchors: TrustAnchors | None = None,
    score_report: ScoreReportCheck | None = None,
    require_anchor: bool = False,
    path: Path | None = None,
    planned: int | None = None,
) -> RunVerdict:
    """The verdict on a verified chain and its head (a schema-valid head document, or None).

    ``anchors`` judge a signed head's signer (None: only whether its signature matches).
    """
    anchor = check_anchor(report, head, seal_hash=seal_hash, anchors=anchors)
    return RunVerdict(report, anchor, score_report, require_anchor, path, head, planned)


def verify_run_at(
    target: Path,
    *,
    head_file: str | None = None,
    trusted_keys: Iterable[str] | None = None,
    trust_file: str | os.PathLike[str] | None = None,
    require_anchor: bool = False,
    score_check: ScoreCheck | None = None,
) -> RunVerdict:
    """Verify the run directory ``target`` (or the transcript file it names, with the seal and
    head beside it): the chain against its seal, its end against the head (``head_file`` when
    given), and, in a run directory, the published score report (``score_check``)."""
    in_run = target.is_dir()
    path = target / TRANSCRIPT_FILE if in_run else target
    folder = path.parent
    seal = load_in(folder, SEAL_FILE) if os.path.lexists(folder / SEAL_FILE) else None
    seal_hash = seal.get("sealHash") if isinstance(seal, dict) else None
    anchors = trust_anchors(trusted_keys, trust_file)
    report = verify_transcript(path, seal_hash=seal_hash, in_run_dir=in_run)
    head: TranscriptHead | None
    if head_file is not None:
        head = _checked_head(load_path(Path(head_file)), head_file)
    else:
        head = read_head(folder) if path.name == TRANSCRIPT_FILE else None
    verdict = verify_run(
        report, head, seal_hash=seal_hash, anchors=anchors, require_anchor=require_anchor, path=path
    )
    scored = (
        score_check(folder / "report", report, anchors)
        if in_run and score_check is not None
        else None
    )
    planned = int(seal["plan"]["cells"]) if isinstance(seal, dict) else None
    return replace(verdict, score_report=scored, planned=planned)


def _checked_head(head: object, name: str) -> TranscriptHead:
    try:
        if is_transcript_head(head, what=f"head file {name}"):
            return head
    except DocumentRefused as refused:
        raise ApconformError(HEAD_INVALID, refused.message) from None
    raise ApconformError(HEAD_INVALID, f"head file {name}: not a JSON object")
