"""Verifying a ledger: walk the chain from the first entry and name every entry that is broken.

For each entry in order: it is stored at the position it records, without a
gap; its bytes hash to its digest and are a canonical, valid entry; it names
the digest of the entry before (as recomputed, not as stored beside it); its
document hashes to the claim's digest and is a valid result of the claim's
kind; its index is what that document says (derived again, never trusted);
its signature verifies (against the trusted keys, when given); it does not
make an older result the latest of its subject; and its indexed rows say
what the entry says. Anchors, digests you kept from earlier, must still be in
the chain: that is how a removed tail is found, which no chain can show by
itself.

A visitor, when given, sees every entry with the facts derived from its
document, in chain order: the results site is built from those, not from the
stored index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import ApconformError, ErrorCode
from apconform.core.jsonload import loads
from apconform.core.signing import verify_document
from apconform.core.validation import validate_document
from apconform.ledger.admission import (
    SlotLatest,
    entry_time,
    is_out_of_order,
    order_message,
)
from apconform.ledger.claim import check_document, claim_time
from apconform.ledger.derivation import INDEX_FIELDS, document_facts, index_differences, slot_of
from apconform.ledger.entry import ENTRY_VERSION, StoredEntry, parse_entry
from apconform.ledger.errors import (
    LEDGER_ANCHOR,
    LEDGER_BYTES,
    LEDGER_DOCUMENT,
    LEDGER_FACTS,
    LEDGER_FORM,
    LEDGER_GAP,
    LEDGER_INDEX,
    LEDGER_LINK,
    LEDGER_ORDER,
    LEDGER_REPLAY,
    LEDGER_SIGNATURE,
)
from apconform.ledger.store import Ledger, document_bytes, entry_columns
from apconform.ledger.tables import clause_outcomes, documents, entries, protocols, supersessions
from apconform.models.ledger import LedgerEntry
from apconform.results import RESULT_LIMITS

__all__ = ["MAX_FINDINGS", "Verification", "Visited", "verify_ledger"]

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


@dataclass(frozen=True)
class Visited:
    """One entry as verification saw it.

    ``entry`` is None when its bytes are not a valid entry; ``facts`` (every
    fact :func:`apconform.ledger.derivation.document_facts` reads from the
    document) is None when the document is missing, altered or invalid.
    ``superseded`` holds the local digests of the entries it supersedes.
    """

    seq: int
    digest: str
    entry: dict[str, Any] | None
    facts: dict[str, Any] | None
    superseded: frozenset[str]


Visitor = Callable[[Visited], None]


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
    def __init__(
        self, report: Verification, trusted: Sequence[str] | None, visitor: Visitor | None
    ) -> None:
        self.report = report
        self.trusted = trusted
        self.visitor = visitor
        self.expected_seq = 1
        self.previous: str | None = None
        self.digests: set[str] = set()
        self.local: dict[str, str] = {}  # origin digests of imported entries -> local digest
        self.slots: dict[tuple[str, str], list[SlotLatest]] = {}  # each slot's entries, in order
        self.superseded: set[str] = set()

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
        facts = None
        if entry is not None:
            facts = self._check(row, seq, entry, digest, body, index)
        if self.visitor is not None:
            targets = entry["claim"].get("supersedes", []) if entry is not None else []
            superseded = frozenset(self.local.get(d, d) for d in targets)
            self.visitor(Visited(seq, digest, entry, facts, superseded))
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
    ) -> dict[str, Any] | None:
        """Check one parsed entry; the facts derived from its document (None if unreadable)."""
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
        facts = None
        if body is None:
            report.add(seq, LEDGER_DOCUMENT, f"entry {seq}: its document is missing or unreadable")
        elif sha256_bytes(body) != claim["documentSha256"]:
            report.add(
                seq, LEDGER_DOCUMENT, f"entry {seq}: its document no longer hashes to the claim's"
            )
        else:
            facts = self._facts(seq, entry, body)
        if "signature" in claim:
            try:
                verify_document(claim, trusted_public_keys=self.trusted or None)
                report.signed += 1
            except ApconformError as exc:
                report.add(seq, LEDGER_SIGNATURE, f"entry {seq}: {exc.message}")
        elif self.trusted:
            report.add(seq, LEDGER_SIGNATURE, f"entry {seq} is not signed")
        stored = StoredEntry(entry, bytes(row.envelope), digest)
        self._check_order(seq, stored, facts)
        self._check_columns(row, seq, stored, index)
        return facts

    def _facts(self, seq: int, entry: dict[str, Any], body: bytes) -> dict[str, Any] | None:
        """What the entry's document says, compared with the entry's index."""
        claim = entry["claim"]
        try:
            document = loads(body, limits=RESULT_LIMITS, source=f"entry {seq}'s document")
            kind, _ = check_document(claim, document)
        except ApconformError as exc:
            self.report.add(
                seq, LEDGER_DOCUMENT, f"entry {seq}: its document is refused: {exc.message}"
            )
            return None
        facts = document_facts(kind, document)
        derived = {name: facts[name] for name in INDEX_FIELDS if name in facts}
        differences = index_differences(entry["index"], derived)
        if differences:
            signed = "signature" in claim
            more = len(differences) - 1
            self.report.add(
                seq,
                LEDGER_FACTS,
                f"entry {seq}: {differences[0].describe(signed=signed)}"
                + (f" (and {more} more member{'s' if more != 1 else ''})" if more else ""),
            )
        return facts

    def _check_order(self, seq: int, stored: StoredEntry, facts: dict[str, Any] | None) -> None:
        """The entry does not make an older result the latest of its slot (as an append checks)."""
        entry = stored.entry
        slot = slot_of(facts if facts is not None else entry["index"])
        targets = {self.local.get(d, d) for d in entry["claim"].get("supersedes", [])}
        try:
            created: datetime | None = claim_time(entry["claim"])
            time, stated = entry_time(entry)
        except (ApconformError, ValueError, OverflowError):
            self.report.add(seq, LEDGER_FORM, f"entry {seq}: its times cannot be compared")
            return
        history = self.slots.setdefault(slot, [])
        latest = next((e for e in reversed(history) if e.digest not in self.superseded), None)
        if is_out_of_order(created, latest, targets):
            assert latest is not None
            self.report.add(
                seq,
                LEDGER_REPLAY,
                f"entry {seq}: " + order_message(slot, str(entry["claim"]["createdAt"]), latest),
            )
        self.superseded |= targets
        history.append(SlotLatest(seq, stored.digest, time, stated))

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
    visitor: Visitor | None = None,
) -> Verification:
    """Walk the whole chain; the result lists every finding, the first one first.

    ``visitor`` is called with every entry, in order, as it is checked.
    """
    trusted = sorted(set(trusted_keys or []))
    report = Verification(trusted_keys=trusted)
    walker = _Walker(report, trusted, visitor)
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
