"""What a score report scored: the transcript's record count and head hash, optionally signed.

Every score report carries, in ``integrity.transcript``, how many records it
read and the ``sha256`` of the last one. That pins the exact transcript: a
transcript cut, extended or re-chained since has another count or another
hash at that position, which ``ap1 rescore`` and ``ap1 verify-transcript``
report in words. ``ap1 score --sign-with KEY`` also writes
``score-report.sig.json``: the report's own SHA-256 and the transcript anchor,
signed, so neither file can be swapped without the key.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.ap1.rundir import load_in, read_in, replace_file
from apconform.ap1.transcript.verify import TranscriptReport
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.signing import SIG_INVALID, Ed25519Key, sign_document
from apconform.core.trust import TrustAnchors, verify_trusted
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1ScoreAnchor

__all__ = [
    "ANCHOR_FILE",
    "ReportAnchorCheck",
    "check_report_anchor",
    "transcript_change",
    "write_score_anchor",
]

ANCHOR_FILE = "score-report.sig.json"
_REPORT = "score-report.json"
_REPORT_LIMIT = 1024 * 1024 * 1024


def _scored(document: dict[str, Any]) -> tuple[int, str] | None:
    """(records, head hash) a score report says it scored; None for a report without them."""
    transcript = document.get("integrity", {}).get("transcript", {})
    if "headSha256" not in transcript:
        return None
    return int(transcript["records"]), str(transcript["headSha256"])


def write_score_anchor(folder: Path, document: dict[str, Any], key: Ed25519Key) -> Path:
    """Sign the report in ``folder`` together with what it scored; return the anchor's path."""
    scored = _scored(document)
    assert scored is not None  # every report this version writes carries its anchor
    body = {
        "schemaVersion": "apconform-ap1-score-anchor/1",
        "report": _REPORT,
        "reportSha256": sha256_bytes(
            read_in(folder, _REPORT, max_bytes=_REPORT_LIMIT, what="a score report")
        ),
        "sealHash": document["run"]["sealHash"],
        "transcriptRecords": str(scored[0]),
        "transcriptHeadSha256": scored[1],
    }
    signed = sign_document(body, key)
    replace_file(folder, ANCHOR_FILE, (json.dumps(signed, indent=2) + "\n").encode("utf-8"))
    return folder / ANCHOR_FILE


@dataclass(frozen=True)
class ReportAnchorCheck:
    """How a published score report relates to the transcript as it is now."""

    state: str
    """matches, prefix (the run went on after scoring), differs, unanchored or invalid."""
    message: str

    @property
    def fault(self) -> bool:
        return self.state in ("differs", "invalid")

    def to_dict(self) -> dict[str, str]:
        return {"state": self.state, "message": self.message}


def transcript_change(scored: tuple[int, str], report: TranscriptReport) -> str | None:
    """In words, how the transcript differs from the one a report scored (None: it does not)."""
    count, head = scored
    total = len(report.records)
    if count > total:
        return (
            f"the report scored {count} records; the transcript now holds {total} "
            "(records were cut since it was scored)"
        )
    found = report.records[count - 1]["sha256"] if count else "0" * 64
    if found != head:
        return (
            f"the report scored {count} records ending in {head[:16]}...; record {count} of the "
            f"transcript now hashes to {found[:16]}... (it was rewritten since)"
        )
    return None


def check_report_anchor(
    folder: Path, report: TranscriptReport, anchors: TrustAnchors | None
) -> ReportAnchorCheck | None:
    """Check the score report in ``folder`` (and its signed anchor, if any) against the
    verified transcript; None when the folder holds no report."""
    if not os.path.lexists(folder / _REPORT):
        return None
    try:
        document = load_in(folder, _REPORT)
    except ApconformError as error:
        return ReportAnchorCheck("invalid", f"{folder / _REPORT} cannot be read: {error.message}")
    scored = _scored(document) if isinstance(document, dict) else None
    if scored is None:
        return ReportAnchorCheck(
            "unanchored", "the score report carries no transcript anchor (older format)"
        )
    signed = ""
    if os.path.lexists(folder / ANCHOR_FILE):
        problem, signed = _signed(folder, scored, anchors)
        if problem is not None:
            return ReportAnchorCheck("invalid", problem)
    change = transcript_change(scored, report)
    if change is not None:
        return ReportAnchorCheck("differs", change + signed)
    if scored[0] < len(report.records):
        return ReportAnchorCheck(
            "prefix",
            f"the report scored the first {scored[0]} records (the run went on after it was "
            f"scored; score it again){signed}",
        )
    return ReportAnchorCheck(
        "matches", f"the report scored exactly these {scored[0]} records{signed}"
    )


def _signed(
    folder: Path, scored: tuple[int, str], anchors: TrustAnchors | None
) -> tuple[str | None, str]:
    """(a problem, or None; the words to add) for the report's signed anchor."""
    anchor = load_in(folder, ANCHOR_FILE)
    try:
        validate_document(Ap1ScoreAnchor, anchor, what=f"score anchor {ANCHOR_FILE}")
    except DocumentRefused as refused:
        return f"{folder / ANCHOR_FILE}: {refused.message}", ""
    actual = sha256_bytes(read_in(folder, _REPORT, max_bytes=_REPORT_LIMIT, what="a score report"))
    try:
        statement = verify_trusted(anchor, anchors) if anchors is not None else "not judged"
    except ApconformError as error:
        if error.error_code is not SIG_INVALID:
            return f"the score anchor's signature: {error.message}", ""
        edited = "the report" if anchor["reportSha256"] != actual else "the anchor"
        return (
            "the score anchor's signature does not match its content: it was edited after "
            f"signing ({edited} no longer matches what was signed)",
            "",
        )
    if anchor["reportSha256"] != actual:
        return f"{folder / _REPORT} changed after it was signed", ""
    if (anchor["transcriptRecords"], anchor["transcriptHeadSha256"]) != (str(scored[0]), scored[1]):
        return "the signed anchor names another transcript than the report does", ""
    return None, f"; signed anchor {statement}"
