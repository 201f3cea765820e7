"""Report formats, and signed reports that a third party can verify offline.

Every format is rendered from the same records (header, cases, footer). A
report file can carry a detached Ed25519 signature (``<report>.sig.json``)
over its SHA-256 and format; ``verify_report`` checks the signature and, for
the JSON-lines format, every record and the footer's digest of the cases.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.conformance.reports.html import render_html
from apconform.conformance.reports.junit import render_badges, render_junit
from apconform.conformance.reports.text import render_markdown, render_pretty
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.files import load_path, read_file
from apconform.core.signing import SIG_INVALID, Ed25519Key, sign_document
from apconform.core.trust import TrustAnchors, trust_anchors, verify_trusted
from apconform.core.validation import validate_document
from apconform.models.conformance import ReportSignature
from apconform.results.records import (
    REPORT_INVALID,
    read_jsonl,
    record_problems,
    render_jsonl,
)

__all__ = [
    "FORMATS",
    "VerifiedReport",
    "render",
    "sign_report",
    "signature_path",
    "verify_report",
    "write_badges",
]

FORMATS: dict[str, Callable[[list[dict[str, Any]]], str]] = {
    "pretty": render_pretty,
    "json": render_jsonl,
    "junit": render_junit,
    "markdown": render_markdown,
    "html": render_html,
}


def render(records: list[dict[str, Any]], fmt: str) -> str:
    return FORMATS[fmt](records)


def write_badges(records: list[dict[str, Any]], folder: Path) -> list[Path]:
    """Write ``<protocol>.json`` shields.io endpoint badges into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for protocol, badge in render_badges(records).items():
        path = folder / f"{protocol}.json"
        path.write_text(json.dumps(badge, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


_REPORT_LIMIT = 256 * 1_048_576


def _report_bytes(report: Path) -> bytes:
    return read_file(report, max_bytes=_REPORT_LIMIT, what="a conformance report")


def signature_path(report: Path) -> Path:
    return report.with_name(report.name + ".sig.json")


def sign_report(report: Path, fmt: str, key: Ed25519Key) -> Path:
    """Write ``<report>.sig.json``: the report's digest and format, signed."""
    body = {
        "schemaVersion": "apconform-report-signature/1",
        "report": report.name,
        "format": fmt,
        "reportSha256": sha256_bytes(_report_bytes(report)),
    }
    target = signature_path(report)
    target.write_text(json.dumps(sign_document(body, key), indent=2) + "\n", encoding="utf-8")
    return target


@dataclass(frozen=True)
class VerifiedReport:
    """What verification established."""

    key_id: str
    fmt: str
    records: int
    verdict: str | None
    statement: str = ""


def verify_report(
    report: Path,
    *,
    signature: Path | None = None,
    trusted_keys: Iterable[str] | None = None,
    anchors: TrustAnchors | None = None,
) -> VerifiedReport:
    """Check the detached signature and, for JSON lines, every record; raise on any fault.

    The signer must be one of ``anchors`` (or of ``trusted_keys``; none named: the kit's
    published TEST key alone)."""
    sig_file = signature if signature is not None else signature_path(report)
    document = load_path(sig_file)
    try:
        parsed = validate_document(ReportSignature, document, what=f"report signature {sig_file}")
    except DocumentRefused as refused:
        raise ApconformError(REPORT_INVALID, refused.message) from None
    actual = sha256_bytes(_report_bytes(report))
    try:
        statement = verify_trusted(
            document, anchors if anchors is not None else trust_anchors(trusted_keys)
        )
    except ApconformError as error:
        if error.error_code is not SIG_INVALID:
            raise
        raise ApconformError(
            SIG_INVALID,
            f"{sig_file}: {error.message}; "
            + (
                "the signature file was edited after signing: its reportSha256 matches the "
                "report's current bytes, so the report was most likely changed and the digest "
                "edited to match"
                if actual == parsed.reportSha256
                else "which member changed cannot be determined (the signature covers the "
                "signature file as a whole)"
            ),
            path=error.path,
        ) from None
    if actual != parsed.reportSha256:
        raise ApconformError(
            REPORT_INVALID,
            f"{report} has changed since it was signed (SHA-256 {actual[:16]}..., "
            f"signed {parsed.reportSha256[:16]}...)",
        )
    records, verdict = 0, None
    if parsed.format == "json":
        loaded = read_jsonl(report)
        problems = record_problems(loaded)
        if problems:
            raise ApconformError(REPORT_INVALID, f"{report}: " + "; ".join(problems[:5]))
        records, verdict = len(loaded), str(loaded[-1]["verdict"])
    return VerifiedReport(
        document["signature"]["keyId"], parsed.format, records, verdict, statement
    )
