"""Verifying a ledger: walk the chain from the first entry and name every entry that is broken.

For each entry in order: it is stored at the position it records, without a
gap; its bytes hash to its digest and are a canonical, valid entry; it names
the digest of the entry before (as recomputed, not as stored beside it); its
document hashes to the claim's digest; its signature verifies (against the
trusted keys, when given); and its indexed rows say what the entry says.
Anchors, digests you kept from earlier, must still be in the chain: that is
how a removed tail is found, which no chain can show by itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import ApconformError, ErrorCode
from apconform.core.signing import verify_document
from apconform.core.validation import validate_document
from apconform.ledger.entry import ENTRY_VERSION, StoredEntry, parse_entry
from apconform.ledger.errors import (
    LEDGER_ANCHOR,
    LEDGER_BYTES,
    LEDGER_DOCUMENT,
    LEDGER_FORM,
    LEDGER_GAP,
    LEDGER_INDEX,
    LEDGER_LINK,
    LEDGER_ORDER,
    LEDGER_SIGNATURE,
)
from apconform.ledger.store import Ledger, document_bytes, entry_columns
from apconform.ledger.tables import clause_outcomes, documents, entries, protocols, supersessions
from apconform.models.ledger import LedgerEntry

__all__ = ["MAX_FINDINGS", "Verification", "verify_ledger"]

MAX_FINDINGS = 100
_PAGE = 200


@dataclass
class Verification:
    """What walking the chain found; ``findings[0]`` names the first broken entry."""

    entries: int = 0
    head_seq: int = 0
    head_digest: str | None = None
    signed: int = 0
    trusted_keys: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.findings

    def add(self, seq: int, code: ErrorCode, message: str) -> None:
        if len(self.findings) < MAX_FINDINGS:
            self.findings.append({"seq": seq, "code": code.code, "message": message})

    def to_dict(self) -> dict[str, Any]:
        """The ``LedgerVerification`` document."""
        return {
            "intact": self.intact,
            "entries": self.entries,
            "headSeq": self.head_seq,
            "headSha256": self.head_digest,
            "signed": self.signed,
            "trustedKeys": self.trusted_keys,
            "findings": self.findings,
        }


def _index_rows(connection: Connection, low: int, high: int) -> dict[int, dict[str, Any]]:
    """What the index tables say about entries ``low..high``, keyed by sequence number."""
    out: dict[int, dict[str, Any]] = {}

    def slot(seq: int) -> dict[str, Any]:
        return out.setdefault(seq, {"protocols": {}, "clauses": {}, "superseded": set()})

    for row in connection.execute(select(protocols).where(protocols.c.seq.between(low, high))):
        slot(int(row.seq))["protocols"][row.protocol] = row.verdict
    for row in connection.execute(
        select(clause_outcomes).where(clause_outcomes.c.seq.between(low, high))
    ):
        slot(int(row.seq))["clauses"][row.clause] = (
            row.protocol,
            row.level,
            row.outcome,
            int(row.cases),
        )
    for row in connection.execute(
        select(supersessions).where(supersessions.c.seq.between(low, high))
    ):
        slot(int(row.seq))["superseded"].add(row.superseded_sha256)
    return out


def _expected_rows(entry: dict[str, Any]) -> dict[str, Any]:
    index = entry["index"]
    verdicts = {item["protocol"]: item["verdict"] for item in index["verdicts"]}
    return {
        "protocols": {p: verdicts.get(p) for p in index["protocols"]},
        "clauses": {
            c["clause"]: (c["protocol"], c["level"], c["outcome"], c["cases"])
            for c in index["clauses"]
        },
    }


class _Walker:
    def __init__(self, report: Verification, trusted: Sequence[str] | None) -> None:
        self.report = report
        self.trusted = trusted
        self.expected_seq = 1
        self.previous: str | None = None
        self.digests: set[str] = set()
        self.local: dict[str, str] = {}  # origin digests of imported entries -> local digest

    def entry(self, row: Any, body: bytes | None, index: dict[str, Any] | None) -> None:
        report, seq = self.report, int(row.seq)
        report.entries += 1
        if seq != self.expected_seq:
            missing = (
                f"entry {self.expected_seq}"
                if seq == self.expected_seq + 1
                else f"entries {self.expected_seq} to {seq - 1}"
            )
            report.add(seq, LEDGER_GAP, f"{missing} missing before entry {seq}")
        data = bytes(row.envelope)
        digest = sha256_bytes(data)
        if digest != row.entry_sha256:
            report.add(
                seq,
                LEDGER_BYTES,
                f"entry {seq}: its stored bytes hash to {digest[:16]}..., "
                f"its recorded digest is {str(row.entry_sha256)[:16]}...",
            )
        entry = self._parse(seq, data)
        if entry is not None:
            self._check(row, seq, entry, digest, body, index)
        self.digests.add(digest)
        self.previous = digest
        self.expected_seq = seq + 1
        report.head_seq, report.head_digest = seq, digest

    def _parse(self, seq: int, data: bytes) -> dict[str, Any] | None:
        try:
            entry = parse_entry(data, source=f"entry {seq}")
            validate_document(LedgerEntry, entry, what=f"entry {seq}")
        except (ApconformError, ValueError) as exc:
            self.report.add(seq, LEDGER_FORM, f"entry {seq}: {exc}")
            return None
        if canonical_bytes(entry) != data:
            self.report.add(seq, LEDGER_FORM, f"entry {seq}: its bytes are not canonical JSON")
            return None
        return entry

    def _check(
        self,
        row: Any,
        seq: int,
        entry: dict[str, Any],
        digest: str,
        body: bytes | None,
        index: dict[str, Any] | None,
    ) -> None:
        report = self.report
        if entry["schemaVersion"] != ENTRY_VERSION or entry["seq"] != seq:
            report.add(
                seq,
                LEDGER_ORDER,
                f"the entry stored at position {seq} records position {entry['seq']}",
            )
        if entry["previous"] != self.previous:
            report.add(
                seq,
                LEDGER_LINK,
                f"entry {seq} names {str(entry['previous'])[:16]}... as the entry before it, "
                f"but the entry before it hashes to {str(self.previous)[:16]}...",
            )
        claim = entry["claim"]
        if body is None:
            report.add(seq, LEDGER_DOCUMENT, f"entry {seq}: its document is missing or unreadable")
        elif sha256_bytes(body) != claim["documentSha256"]:
            report.add(
                seq, LEDGER_DOCUMENT, f"entry {seq}: its document no longer hashes to the claim's"
            )
        if "signature" in claim:
            try:
                verify_document(claim, trusted_public_keys=self.trusted or None)
                report.signed += 1
            except ApconformError as exc:
                report.add(seq, LEDGER_SIGNATURE, f"entry {seq}: {exc.message}")
        elif self.trusted:
            report.add(seq, LEDGER_SIGNATURE, f"entry {seq} is not signed")
        self._check_columns(row, seq, StoredEntry(entry, bytes(row.envelope), digest), index)

    def _check_columns(
        self, row: Any, seq: int, stored: StoredEntry, index: dict[str, Any] | None
    ) -> None:
        expected = entry_columns(stored)
        expected["entry_sha256"] = row.entry_sha256  # compared above, as bytes against digest
        wrong = sorted(name for name, value in expected.items() if getattr(row, name) != value)
        rows = index or {"protocols": {}, "clauses": {}, "superseded": set()}
        wanted = _expected_rows(stored.entry)
        if rows["protocols"] != wanted["protocols"]:
            wrong.append("ledger_protocols")
        if rows["clauses"] != wanted["clauses"]:
            wrong.append("ledger_clause_outcomes")
        targets = {self.local.get(d, d) for d in stored.entry["claim"].get("supersedes", [])}
        if rows["superseded"] != targets or not targets <= self.digests:
            wrong.append("ledger_supersessions")
        if wrong:
            self.report.add(
                seq, LEDGER_INDEX, f"entry {seq}: {', '.join(wrong)} disagree with the entry"
            )
        origin = stored.entry.get("origin")
        if isinstance(origin, dict):
            self.local[origin["entrySha256"]] = stored.digest


def verify_ledger(
    ledger: Ledger,
    *,
    trusted_keys: Iterable[str] | None = None,
    anchors: Iterable[str] = (),
) -> Verification:
    """Walk the whole chain; the result lists every finding, the first one first."""
    trusted = sorted(set(trusted_keys or []))
    report = Verification(trusted_keys=trusted)
    walker = _Walker(report, trusted)
    after = 0
    with ledger.reading() as connection:
        while True:
            rows = connection.execute(
                select(entries).where(entries.c.seq > after).order_by(entries.c.seq).limit(_PAGE)
            ).all()
            if not rows:
                break
            wanted = sorted({str(row.document_sha256) for row in rows})
            bodies = {
                str(r.document_sha256): document_bytes(bytes(r.body_zlib))
                for r in connection.execute(
                    select(documents).where(documents.c.document_sha256.in_(wanted))
                )
            }
            low, high = int(rows[0].seq), int(rows[-1].seq)
            index = _index_rows(connection, low, high)
            for row in rows:
                walker.entry(row, bodies.get(str(row.document_sha256)), index.get(int(row.seq)))
            after = high
    for anchor in anchors:
        if anchor not in walker.digests:
            report.add(
                max(report.head_seq, 1),
                LEDGER_ANCHOR,
                f"the chain does not contain {anchor[:16]}...: entries were removed or rewritten",
            )
    return report
