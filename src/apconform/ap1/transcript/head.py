"""The transcript's head: its record count and last hash, kept beside it, so a cut end shows.

A hash chain proves that its records belong together in their order; it
cannot show that none was removed from its end, or that the whole chain was
not recomputed after an edit. The head file (``transcript.head.json``) pins
the end: the engine rewrites it (atomically) after ``run-started`` and
``run-resumed`` and after ``run-stopped`` and ``run-finished``, with the number
of records and the ``sha256`` of the last one. A transcript shorter than its
head was cut; one whose record at the head's position carries another hash
was rewritten and re-chained. Records after the head are those of a run that
did not end cleanly (a crash): consistent with the chain, but not anchored.

An unsigned head guards against accidents and naive edits; someone who can
rewrite both files can make them agree. Signed (``ap1 run --sign-with KEY``),
the head cannot be forged without the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from apconform.ap1.clock import utc_now
from apconform.ap1.rundir import HEAD_FILE, load_in, replace_file
from apconform.ap1.transcript.records import TranscriptHead, is_transcript_head
from apconform.ap1.transcript.verify import TranscriptReport
from apconform.core.canonical import canonical_text
from apconform.core.errors import ApconformError, DocumentRefused, define_code
from apconform.core.signing import SIG_INVALID, Ed25519Key, sign_document, verify_document
from apconform.core.trust import TrustAnchors, verify_trusted

__all__ = [
    "HEAD_INVALID",
    "HEAD_SCHEMA_VERSION",
    "Anchor",
    "check_anchor",
    "head_document",
    "read_head",
    "write_head",
]

HEAD_SCHEMA_VERSION = "apconform-ap1-transcript-head/1"

HEAD_INVALID = define_code(
    "AP1-HEAD-INVALID",
    "The transcript's head file is not a valid head",
    "The head was edited or damaged: keep the run directory as evidence, and verify the "
    "transcript with `apconform ap1 verify-transcript RUN_DIR`.",
    exit_status=1,
)

# Anchor states: the first three are faults, "tail" means unfinished, the rest are fine.
FAULTS = frozenset({"cut", "rechained", "head-missing", "head-invalid"})


class AnchorJson(TypedDict):
    """The anchor in the ``verify-transcript --format json`` document."""

    state: str
    message: str
    headRecords: int | None
    signature: str | None


@dataclass(frozen=True)
class Anchor:
    """What the head says about the end of the chain."""

    state: str
    """anchored, tail, unanchored, cut, rechained, head-missing or head-invalid."""
    message: str
    head_records: int | None = None
    signature: str | None = None
    """In words, who signed the head and why that key is trusted (None: unsigned)."""

    @property
    def fault(self) -> bool:
        return self.state in FAULTS

    def to_dict(self) -> AnchorJson:
        """The anchor in the ``verify-transcript --format json`` document."""
        return {
            "state": self.state,
            "message": self.message,
            # a JSON number, as the verdict's own "records" beside it
            "headRecords": self.head_records,
            "signature": self.signature,
        }


def head_document(
    seal_hash: str,
    records: int,
    head_sha256: str,
    last_kind: str,
    *,
    sign_key: Ed25519Key | None = None,
    written_at: str | None = None,
) -> dict[str, Any]:
    """The head for a transcript of ``records`` records ending in ``head_sha256``."""
    document: TranscriptHead = {
        "schemaVersion": HEAD_SCHEMA_VERSION,
        "sealHash": seal_hash,
        "records": str(records),
        "headSha256": head_sha256,
        "lastKind": last_kind,
        "writtenAt": written_at or utc_now(),
    }
    return sign_document(document, sign_key) if sign_key is not None else dict(document)


def write_head(run_dir: Path, document: Mapping[str, object]) -> None:
    """Replace the head file in one rename (a link there is refused)."""
    replace_file(run_dir, HEAD_FILE, (canonical_text(document) + "\n").encode("utf-8"), sync=True)


def read_head(run_dir: Path) -> TranscriptHead | None:
    """The head file of ``run_dir`` checked against its schema, or None when there is none."""
    if not os.path.lexists(run_dir / HEAD_FILE):
        return None
    document: object = load_in(run_dir, HEAD_FILE)
    try:
        if is_transcript_head(document, what=f"head file {HEAD_FILE}"):
            return document.copy()
    except DocumentRefused as refused:
        raise ApconformError(HEAD_INVALID, f"{run_dir / HEAD_FILE}: {refused.message}") from None
    raise ApconformError(HEAD_INVALID, f"{run_dir / HEAD_FILE}: not a JSON object")


def _signature(
    head: TranscriptHead, report: TranscriptReport, anchors: TrustAnchors | None
) -> tuple[str | None, Anchor | None]:
    """(statement, None) for a valid trusted signature; (None, fault) otherwise."""
    if "signature" not in head:
        if anchors is not None and anchors.named:
            return None, Anchor(
                "head-invalid",
                "the head is not signed, but trusted keys were named: a signed head was expected "
                "(was its signature removed?)",
            )
        return None, None
    try:
        if anchors is None:  # whether the signature matches, whoever signed it
            verify_document(head)
            return f"signed by {head['signature']['keyId']} (the signer was not judged)", None
        return verify_trusted(head, anchors), None
    except ApconformError as error:
        if error.error_code is not SIG_INVALID:
            return None, Anchor("head-invalid", f"the head's signature: {error.message}")
        changed = []
        count = int(head["records"])
        if count != len(report.records):
            changed.append(f"records (says {count}, the transcript holds {len(report.records)})")
        elif report.records and report.records[-1]["sha256"] != head["headSha256"]:
            changed.append("headSha256 (it is not the last record's hash)")
        named = (
            "changed: " + ", ".join(changed)
            if changed
            else ("which member changed cannot be determined (it still matches the transcript)")
        )
        return None, Anchor("head-invalid", f"the head's signature does not match; {named}")


def check_anchor(
    report: TranscriptReport,
    head: TranscriptHead | None,
    *,
    seal_hash: str | None = None,
    anchors: TrustAnchors | None = None,
) -> Anchor:
    """Compare the verified chain with its head; say exactly what was found.

    ``anchors`` judge a signed head's signer (None: only whether its signature matches).
    """
    total = len(report.records)
    if head is None:
        if report.declares_head:
            return Anchor(
                "head-missing",
                f"the head file {HEAD_FILE} is missing, but the run that wrote this transcript "
                "keeps one: its end cannot be checked (was it cut?)",
            )
        return Anchor(
            "unanchored",
            "unanchored (older format): no head file, so nothing shows whether records were "
            "cut from the end or the whole chain recomputed",
        )
    statement, fault = _signature(head, report, anchors)
    if fault is not None:
        return fault
    count = int(head["records"])
    if seal_hash is not None and head["sealHash"] != seal_hash:
        return Anchor(
            "head-invalid",
            f"the head names seal {head['sealHash']}, not the run's {seal_hash}",
            count,
            statement,
        )
    if total < count:
        if total == 0:
            found = f"emptied: the transcript holds no record; its head says {count}"
        else:
            missing = (
                "the run-finished record is missing"
                if head["lastKind"] == "run-finished"
                else f"records {total + 1} to {count} are missing"
            )
            found = f"cut: the transcript ends at record {total} of {count}; {missing}"
        return Anchor("cut", found, count, statement)
    at_head = report.records[count - 1]["sha256"]
    if at_head != head["headSha256"]:
        return Anchor(
            "rechained",
            f"rewritten: record {count} (seq {count - 1}) hashes to {at_head[:16]}..., the head "
            f"says {head['headSha256'][:16]}...; the chain was recomputed after an edit",
            count,
            statement,
        )
    if total > count:
        return Anchor(
            "tail",
            f"records {count + 1} to {total} follow the head: consistent with the chain but not "
            "anchored (a run that did not end cleanly; resume it to finish and anchor them)",
            count,
            statement,
        )
    return Anchor(
        "anchored",
        f"anchored: the head names record {count}, the last one, by its hash",
        count,
        statement,
    )
