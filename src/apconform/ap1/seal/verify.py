"""Verifying a sealed run directory: recompute every component and name each mismatch.

Fatal findings mean the seal does not hold (a hash differs, a file is missing
or changed, the inputs no longer pass the seal's checks, the signature fails).
A different instrument is reported too, but does not by itself break the seal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform import __version__
from apconform.ap1.inputs.plan import RunInputs, load_sealed_inputs
from apconform.ap1.inputs.sealed import SEALED_NAMES, SealedInputs
from apconform.ap1.rundir import INPUT_FILES, SEAL_FILE, load_in, read_in
from apconform.ap1.seal.build import composite_hash, declared_rules, plan_summary
from apconform.ap1.seal.records import FindingJson, SealRecord
from apconform.ap1.seal.source import instrument_source_hash
from apconform.core.canonical import sha256_hex, sha256_text
from apconform.core.errors import ApconformError, DocumentRefused, define_code
from apconform.core.signing import SIG_INVALID, verify_document
from apconform.core.trust import TrustAnchors, trust_anchors, verify_trusted
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1Seal

__all__ = [
    "SEAL_BROKEN",
    "Finding",
    "SealedRun",
    "open_sealed_run",
    "verify_seal",
    "verify_seal_documents",
]

_TEXT_LIMIT = 4 * 1024 * 1024
SEAL_BROKEN = define_code(
    "AP1-SEAL-BROKEN",
    "The sealed run does not verify",
    "Run `apconform ap1 verify-seal RUN_DIR` to see every mismatch; a broken seal cannot be "
    "run or resumed. Start a new run from the original inputs instead.",
    exit_status=1,
)


@dataclass(frozen=True)
class Finding:
    """One mismatch (or, when not fatal, one difference worth knowing)."""

    component: str
    message: str
    fatal: bool = True

    def to_dict(self) -> FindingJson:
        return {"component": self.component, "message": self.message, "fatal": self.fatal}


@dataclass(frozen=True)
class SealedRun:
    """A run directory whose seal verified, with its record and its checked inputs."""

    run_dir: Path
    seal: dict[str, Any]
    inputs: RunInputs

    @property
    def seal_hash(self) -> str:
        return str(self.seal["sealHash"])


def _load_inputs(run_dir: Path, findings: list[Finding]) -> SealedInputs | None:
    """The sealed copies as they are now, or None (with a finding for each) when one is unread."""
    documents: dict[str, object] = {}
    text: str | None = None
    for name, rel in INPUT_FILES.items():
        try:
            if name == "ap1Text":
                text = read_in(run_dir, rel, max_bytes=_TEXT_LIMIT, what="an AP-1 text").decode(
                    "utf-8"
                )
            else:
                documents[name] = load_in(run_dir, rel)
        except (ApconformError, OSError, ValueError) as exc:
            findings.append(Finding(f"inputs.{name}", f"{rel} cannot be read: {exc}"))
    if text is None or len(documents) + 1 != len(INPUT_FILES):
        return None
    return SealedInputs.from_documents(documents, text)


def verify_seal(
    run_dir: Path,
    *,
    trusted_keys: Iterable[str] | None = None,
    anchors: TrustAnchors | None = None,
    judge_signer: bool = True,
) -> tuple[list[Finding], SealedRun | None]:
    """Every finding about the seal of ``run_dir``, and the opened run when none is fatal.

    A signature must be by one of ``anchors`` (or ``trusted_keys``; when none is
    named, the kit's published TEST key alone); a valid one adds a note saying
    which key verified it. ``judge_signer=False`` checks only that a signature
    matches (running a run you sealed yourself needs no trust decision).
    """
    try:
        record = load_in(run_dir, SEAL_FILE)
        validate_document(Ap1Seal, record, what="seal record")
    except (ApconformError, DocumentRefused) as exc:
        return [Finding("seal", f"{SEAL_FILE} cannot be used: {exc}")], None
    trust = _anchors(trusted_keys, anchors, judge_signer)
    findings = _record_findings(record, trust)
    sealed = _load_inputs(run_dir, findings)
    if sealed is None:
        return findings, None
    inputs = _input_findings(record, sealed, findings)
    if inputs is None or any(f.fatal for f in findings):
        return findings, None
    return findings, SealedRun(run_dir, record, inputs)


def verify_seal_documents(
    record: SealRecord,
    inputs: Mapping[str, object],
    *,
    trusted_keys: Iterable[str] | None = None,
    anchors: TrustAnchors | None = None,
) -> list[Finding]:
    """:func:`verify_seal` on documents in memory: a seal record that meets its schema and the
    sealed inputs as they are now (``config``, ``fixture``, ``questions``, ``derivations``
    as JSON values, ``ap1Text`` as text)."""
    findings = _record_findings(record, _anchors(trusted_keys, anchors, True))
    text = inputs["ap1Text"]
    if not isinstance(text, str):
        return [*findings, Finding("inputs.ap1Text", "the AP-1 text is not a JSON string")]
    _input_findings(record, SealedInputs.from_documents(inputs, text), findings)
    return findings


def _anchors(
    trusted_keys: Iterable[str] | None, anchors: TrustAnchors | None, judge_signer: bool
) -> TrustAnchors | None:
    if not judge_signer:
        return None
    return anchors if anchors is not None else trust_anchors(trusted_keys)


def _record_findings(record: SealRecord, anchors: TrustAnchors | None) -> list[Finding]:
    findings: list[Finding] = []
    content_holds = composite_hash(record) == record["sealHash"]
    if not content_holds:
        findings.append(
            Finding(
                "sealHash",
                f"the record hashes to {composite_hash(record)} but says {record['sealHash']}; "
                "the seal record was edited",
            )
        )
    if "signature" in record:
        try:
            if anchors is None:
                verify_document(record, field="signature")
            else:
                statement = verify_trusted(record, anchors)
                findings.append(
                    Finding(
                        "signature",
                        f"valid, by {record['signature']['keyId']}; {statement}; it covers every "
                        "member, sealedAt included",
                        fatal=False,
                    )
                )
        except ApconformError as exc:
            findings.append(Finding("signature", _signature_problem(exc, content_holds)))
    return findings


def _signature_problem(error: ApconformError, content_holds: bool) -> str:
    """The signature finding, naming what changed where the record lets us tell."""
    if error.error_code is not SIG_INVALID:
        return error.message
    if content_holds:
        return (
            f"{error.message}; changed: sealedAt (every other member still matches sealHash, "
            "which covers all but sealedAt; unless sealHash was recomputed after an edit)"
        )
    return f"{error.message}; changed: a member covered by sealHash (see the sealHash finding)"


def _input_findings(
    record: SealRecord, copies: SealedInputs, findings: list[Finding]
) -> RunInputs | None:
    """Findings about the sealed copies (the AP-1 text among them) against the seal."""
    documents = copies.documents()
    for name in SEALED_NAMES:
        actual = sha256_hex(documents[name])
        sealed = record["inputs"][name]["sha256"]
        if actual != sealed:
            findings.append(
                Finding(
                    f"inputs.{name}",
                    f"{INPUT_FILES[name]} hashes to {actual}; the seal says {sealed}",
                )
            )
    text_hash = sha256_text(copies.ap1_text or "")
    if text_hash != record["ap1"]["textSha256"]:
        findings.append(
            Finding(
                "ap1.textSha256",
                f"the AP-1 text hashes to {text_hash}; the seal says {record['ap1']['textSha256']}",
            )
        )
    inputs = _recheck(copies, record, findings)
    if record["instrument"]["sourceSha256"] != instrument_source_hash():
        findings.append(
            Finding(
                "instrument",
                f"sealed by apconform {record['instrument']['version']} with source "
                f"{record['instrument']['sourceSha256'][:16]}...; this is apconform {__version__} "
                f"with source {instrument_source_hash()[:16]}...",
                fatal=False,
            )
        )
    return inputs


def _recheck(sealed: SealedInputs, record: SealRecord, findings: list[Finding]) -> RunInputs | None:
    try:
        inputs = load_sealed_inputs(sealed)
    except DocumentRefused as refused:
        for v in refused.violations:
            findings.append(Finding("inputs", f"{v.code} at {v.path}: {v.message}"))
        return None
    _compare("declared", declared_rules(inputs), record["declared"], findings)
    _compare("plan", plan_summary(inputs), record["plan"], findings)
    citation = inputs.config.model.ap1
    for field, configured, recorded in (
        ("version", citation.version, record["ap1"]["version"]),
        ("versionDoi", citation.versionDoi, record["ap1"]["versionDoi"]),
    ):
        if configured != recorded:
            findings.append(Finding(f"ap1.{field}", f"the configuration says {configured!r}"))
    return inputs


def _compare(
    key: str,
    actual: Mapping[str, object],
    recorded: Mapping[str, object],
    findings: list[Finding],
) -> None:
    """A finding naming the members of the seal's ``key`` that differ from the recomputed ones."""
    if actual != recorded:
        changed = sorted(k for k in set(actual) | set(recorded) if actual.get(k) != recorded.get(k))
        findings.append(Finding(key, f"recomputed {key} differs in {', '.join(changed)}"))


def open_sealed_run(run_dir: Path, *, require_same_instrument: bool = True) -> SealedRun:
    """Open a run directory for running or resuming; refuse unless its seal verifies."""
    findings, run = verify_seal(run_dir, judge_signer=False)
    blocking = [
        f for f in findings if f.fatal or (require_same_instrument and f.component == "instrument")
    ]
    if blocking or run is None:
        lines = (
            "; ".join(f"{f.component}: {f.message}" for f in (blocking or findings)) or "unknown"
        )
        raise ApconformError(SEAL_BROKEN, f"{run_dir}: the seal does not verify ({lines})")
    return run
