"""What a ledger admits: each result once, in time order, and (on a server) from its bound key.

Run inside the append transaction, under the append lock, so two submissions
cannot both pass a check that only one of them may pass:

- **once**: a claim the ledger already holds is answered with its entry (a
  retried or replayed submission appends nothing); the same document under
  another claim is refused (``APC-LEDGER-DUPLICATE``) unless that claim is a
  correction, which names what it supersedes and why;
- **dated**: a claim says when it was made (``createdAt``, signed with it)
  and may be at most :data:`CLOCK_SKEW` ahead of the ledger's clock
  (``APC-LEDGER-CREATED``);
- **in order**: a result may not be older than the latest current result of
  its slot (kind and subject) unless it is a correction that supersedes that
  result (``APC-LEDGER-STALE``), so an old result cannot be made the latest
  again;
- **bound** (a server's rule, :class:`Admission`): a slot belongs to the key
  that signed its last signed result; another key, or no signature, is
  refused unless the server trusts the key, which then takes the slot over
  (``APC-LEDGER-BOUND``).

Verification applies the same order rule to every entry of a chain
(:func:`is_out_of_order`), so a copy in which an old result was replayed as
the latest is found even when its hashes were recomputed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from apconform.core.errors import ApconformError
from apconform.ledger.claim import Submission, claim_time
from apconform.ledger.entry import StoredEntry, parse_entry
from apconform.ledger.errors import LEDGER_BOUND, LEDGER_CREATED, LEDGER_DUPLICATE, LEDGER_STALE
from apconform.ledger.tables import entries, supersessions

__all__ = [
    "CLOCK_SKEW",
    "Admission",
    "SlotLatest",
    "check_binding",
    "check_created",
    "check_order",
    "entry_time",
    "held_claim",
    "is_out_of_order",
]

CLOCK_SKEW = timedelta(minutes=5)
"""How far ahead of the ledger's clock a claim's ``createdAt`` may be."""


@dataclass(frozen=True)
class Admission:
    """A server's rule on top of the ledger's own: slots are bound to keys.

    ``rebind_keys`` are the public keys (64 hex) the operator trusts: a result
    signed by one of them is accepted for any slot, and binds the slot to it.
    """

    rebind_keys: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class SlotLatest:
    """The latest current entry of a slot and when its result was made."""

    seq: int
    digest: str
    time: datetime
    stated: str


def entry_time(entry: dict[str, Any]) -> tuple[datetime, str]:
    """When an entry's result was made: its claim's ``createdAt``, else (an entry recorded
    before claims were dated) when the ledger recorded it; with the text it came from."""
    return _time(entry["claim"].get("createdAt"), entry["recordedAt"])


def _time(created_at: str | None, recorded_at: str) -> tuple[datetime, str]:
    if created_at is not None:
        created = claim_time({"createdAt": created_at})
        assert created is not None
        return created, f"created {created_at}"
    return datetime.fromisoformat(recorded_at), f"recorded {recorded_at}"


def held_claim(connection: Connection, submission: Submission) -> StoredEntry | None:
    """The entry that already holds this claim, or None when the document is new here.

    The same document under another claim is refused (a result is recorded once), unless
    the claim is a correction: superseding a later result by an earlier one is how a result is
    restored, and the correction says what it supersedes and why.
    """
    rows = connection.execute(
        select(entries.c.seq, entries.c.entry_sha256, entries.c.envelope)
        .where(entries.c.document_sha256 == submission.document_sha256)
        .order_by(entries.c.seq)
    ).all()
    for row in rows:
        data = bytes(row.envelope)
        entry = parse_entry(data, source=f"entry {row.seq}")
        if entry["claim"] == submission.claim:
            return StoredEntry(entry, data, str(row.entry_sha256), existing=True)
    if rows and "supersedes" not in submission.claim:
        first = rows[0]
        raise ApconformError(
            LEDGER_DUPLICATE,
            f"the ledger already holds this document as entry {first.seq} "
            f"({str(first.entry_sha256)[:16]}...), under another claim",
            path="$.claim.documentSha256",
        )
    return None


def check_created(claim: dict[str, Any], now: datetime, *, required: bool) -> datetime | None:
    """The claim's creation time, refused when missing (if ``required``) or too far ahead."""
    created = claim_time(claim)
    if created is None:
        if required:
            raise ApconformError(
                LEDGER_CREATED, "the claim does not say when it was made", path="$.claim.createdAt"
            )
        return None
    if created > now + CLOCK_SKEW:
        raise ApconformError(
            LEDGER_CREATED,
            f"the claim says it was made at {claim['createdAt']}, more than "
            f"{int(CLOCK_SKEW.total_seconds() // 60)} minutes after this ledger's clock "
            f"({now.isoformat(timespec='seconds')})",
            path="$.claim.createdAt",
        )
    return created


def _last_of(connection: Connection, slot: tuple[str, str], condition: Any, *columns: Any) -> Any:
    """The last entry of ``slot`` that meets ``condition``: its number and ``columns``."""
    kind, subject = slot
    return connection.execute(
        select(entries.c.seq, *columns)
        .where(entries.c.kind == kind, entries.c.subject == subject, condition)
        .order_by(entries.c.seq.desc())
        .limit(1)
    ).first()


def latest_of(connection: Connection, slot: tuple[str, str]) -> SlotLatest | None:
    """The latest entry of ``slot`` that no entry supersedes."""
    current = entries.c.entry_sha256.not_in(select(supersessions.c.superseded_sha256))
    row = _last_of(
        connection,
        slot,
        current,
        entries.c.entry_sha256,
        entries.c.created_at,
        entries.c.recorded_at,
    )
    if row is None:
        return None
    time, stated = _time(row.created_at, row.recorded_at)
    return SlotLatest(int(row.seq), str(row.entry_sha256), time, stated)


def is_out_of_order(
    created: datetime | None, latest: SlotLatest | None, superseded: Collection[str]
) -> bool:
    """Whether a result made at ``created`` would make an older result its slot's latest."""
    return (
        created is not None
        and latest is not None
        and created < latest.time
        and latest.digest not in superseded
    )


def order_message(slot: tuple[str, str], created_text: str, latest: SlotLatest) -> str:
    kind, subject = slot
    return (
        f"the latest {kind} of {subject!r} is entry {latest.seq} ({latest.stated}); this "
        f"result was created {created_text}, earlier, and does not supersede it"
    )


def check_order(
    connection: Connection,
    slot: tuple[str, str],
    claim: dict[str, Any],
    created: datetime | None,
    superseded: Collection[str],
) -> None:
    """Refuse a result that would make an older result the latest of its slot."""
    latest = latest_of(connection, slot)
    if is_out_of_order(created, latest, superseded):
        assert latest is not None
        raise ApconformError(
            LEDGER_STALE,
            order_message(slot, str(claim["createdAt"]), latest),
            path="$.claim.createdAt",
        )


def check_binding(
    connection: Connection, slot: tuple[str, str], submission: Submission, admission: Admission
) -> None:
    """Refuse a result for a slot bound to another key (unless the signer is trusted)."""
    signer = submission.public_key
    if signer is not None and signer in admission.rebind_keys:
        return
    row = _last_of(
        connection,
        slot,
        entries.c.signer_key_id.is_not(None),
        entries.c.signer_key_id,
        entries.c.envelope,
    )
    if row is None:
        return
    entry = parse_entry(bytes(row.envelope), source=f"entry {row.seq}")
    bound = str(entry["claim"]["signature"]["publicKey"])
    if signer == bound:
        return
    kind, subject = slot
    raise ApconformError(
        LEDGER_BOUND,
        f"{subject!r} ({kind}) is bound to {row.signer_key_id}, which signed entry {row.seq}; "
        + (f"this claim is signed by {submission.signer}" if signer else "this claim is unsigned"),
        path="$.claim.signature",
    )
