"""Claims and submissions: what a submitter states about a result, signed, and the result itself.

The signature covers the claim (kind, the document's digest, when the claim
was made, what it supersedes and why), not the document's bytes: the ledger
stores the document apart and binds it through the digest, so verifying a
signature never needs the document re-serialised. The signed creation time
is what lets a ledger refuse an old submission replayed as if it were new.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError
from apconform.core.signing import Ed25519Key, sign_document, verify_document
from apconform.core.validation import validate_document
from apconform.ledger.entry import timestamp
from apconform.ledger.errors import LEDGER_CREATED, LEDGER_DIGEST, LEDGER_REASON, LEDGER_UNSIGNED
from apconform.models.ledger import LedgerClaim, LedgerSubmission
from apconform.results import ResultKind, check_result, detect_kind

__all__ = [
    "CLAIM_VERSION",
    "Submission",
    "accept_submission",
    "check_document",
    "claim_time",
    "make_claim",
    "prepare",
]

CLAIM_VERSION = "apconform-ledger-claim/1"


@dataclass(frozen=True)
class Submission:
    """A claim whose document was checked: ready to append."""

    claim: dict[str, Any]
    kind: ResultKind
    document: Any
    document_bytes: bytes

    @property
    def document_sha256(self) -> str:
        return str(self.claim["documentSha256"])

    @property
    def signer(self) -> str | None:
        signature = self.claim.get("signature")
        return str(signature["keyId"]) if isinstance(signature, dict) else None

    @property
    def public_key(self) -> str | None:
        """The signer's public key (64 hex), or None for an unsigned claim."""
        signature = self.claim.get("signature")
        return str(signature["publicKey"]) if isinstance(signature, dict) else None


def claim_time(claim: dict[str, Any]) -> datetime | None:
    """When the claim says it was made (UTC), or None for a claim without ``createdAt``."""
    text = claim.get("createdAt")
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text).astimezone(UTC)
    except (ValueError, OverflowError):
        raise ApconformError(
            LEDGER_CREATED,
            f"the claim's createdAt {text[:40]!r} is not a UTC date and time this ledger can "
            "compare",
            path="$.claim.createdAt",
        ) from None


def make_claim(
    kind: ResultKind,
    document_sha256: str,
    *,
    created_at: datetime | None = None,
    supersedes: Sequence[str] = (),
    reason: str | None = None,
    key: Ed25519Key | None = None,
) -> dict[str, Any]:
    """A claim for a document, made at ``created_at``; signed when ``key`` is given."""
    claim: dict[str, Any] = {
        "schemaVersion": CLAIM_VERSION,
        "kind": kind.value,
        "documentSha256": document_sha256,
    }
    if created_at is not None:
        claim["createdAt"] = timestamp(created_at)
    if supersedes:
        claim["supersedes"] = list(supersedes)
    if reason is not None:
        claim["reason"] = reason
    return sign_document(claim, key) if key is not None else claim


def _check_reason(claim: dict[str, Any]) -> None:
    if ("supersedes" in claim) != ("reason" in claim):
        missing = "reason" if "supersedes" in claim else "supersedes"
        raise ApconformError(
            LEDGER_REASON,
            f"the claim has {'supersedes' if missing == 'reason' else 'reason'} without {missing}",
            path=f"$.claim.{missing}",
        )


def _verified(
    claim: dict[str, Any],
    document: Any,
    *,
    trusted_keys: Iterable[str] | None,
    require_signature: bool,
    require_created: bool,
) -> Submission:
    _check_reason(claim)
    if "signature" in claim:
        verify_document(claim, trusted_public_keys=list(trusted_keys) if trusted_keys else None)
    elif require_signature:
        raise ApconformError(LEDGER_UNSIGNED, "the claim is not signed", path="$.claim.signature")
    if claim_time(claim) is None and require_created:
        raise ApconformError(
            LEDGER_CREATED, "the claim does not say when it was made", path="$.claim.createdAt"
        )
    kind, data = check_document(claim, document)
    return Submission(claim, kind, document, data)


def check_document(claim: dict[str, Any], document: Any) -> tuple[ResultKind, bytes]:
    """The document is of the claim's kind, valid for it, and has the claim's digest; its
    canonical bytes. Verification and import run this on every document they read."""
    kind = ResultKind(claim["kind"])
    found = detect_kind(document, source="the submitted document")
    if found is not kind:
        raise ApconformError(
            LEDGER_DIGEST,
            f"the claim says {kind.value} but the document is a {found.value}",
            path="$.claim.kind",
        )
    data = check_result(kind, document)
    actual = sha256_bytes(data)
    if actual != claim["documentSha256"]:
        raise ApconformError(
            LEDGER_DIGEST,
            f"the document's canonical SHA-256 is {actual}, the claim says "
            f"{claim['documentSha256']}",
            path="$.claim.documentSha256",
        )
    return kind, data


def prepare(
    kind: ResultKind,
    document: Any,
    *,
    key: Ed25519Key | None = None,
    supersedes: Sequence[str] = (),
    reason: str | None = None,
    created_at: datetime | None = None,
) -> Submission:
    """Check a result and build its claim (signed with ``key``) in one step, as the CLI does.

    The claim is dated ``created_at``, by default now.
    """
    data = check_result(kind, document)
    claim = make_claim(
        kind,
        sha256_bytes(data),
        created_at=created_at or datetime.now(UTC),
        supersedes=supersedes,
        reason=reason,
        key=key,
    )
    _check_reason(claim)
    return Submission(claim, kind, document, data)


def accept_submission(
    value: Any,
    *,
    trusted_keys: Iterable[str] | None = None,
    require_signature: bool = False,
    require_created: bool = False,
) -> Submission:
    """Check a ``LedgerSubmission`` from outside: schema, signature, date, document, digest."""
    validate_document(LedgerSubmission, value, what="ledger submission")
    claim = value["claim"]
    validate_document(LedgerClaim, claim, what="ledger claim")
    return _verified(
        claim,
        value["document"],
        trusted_keys=trusted_keys,
        require_signature=require_signature,
        require_created=require_created,
    )
