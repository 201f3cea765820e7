"""The ledger: append results one transaction at a time, read them back, never change them.

An append reads the head and writes the next entry inside one write
transaction that holds the backend's append lock, so parallel writers (threads,
processes, API workers) line up and the chain stays linear; the admission
rules (each result once, in time order, from its bound key) run under the
same lock. Documents are stored once per digest; the entry row keeps the
facts derived from the document in indexed columns.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from apconform.core.errors import ApconformError
from apconform.core.jsonload import loads
from apconform.ledger.admission import (
    Admission,
    check_binding,
    check_created,
    check_order,
    held_claim,
)
from apconform.ledger.backends import Backend, backend_for
from apconform.ledger.claim import Submission
from apconform.ledger.derivation import index_of, slot_of
from apconform.ledger.entry import MAX_SEQ, StoredEntry, build_entry, parse_entry, timestamp
from apconform.ledger.errors import (
    LEDGER_LOCATION,
    LEDGER_MISSING,
    LEDGER_REF,
    LEDGER_SUPERSEDES_SIGNER,
    LEDGER_SUPERSEDES_UNKNOWN,
    LEDGER_UNAVAILABLE,
    LEDGER_UNKNOWN_ENTRY,
)
from apconform.ledger.location import LedgerLocation, resolve_location
from apconform.ledger.schema import prepare_schema
from apconform.ledger.tables import clause_outcomes, documents, entries, protocols, supersessions
from apconform.results import RESULT_LIMITS

__all__ = ["Clock", "EntryFilter", "Head", "Ledger", "database_errors", "document_bytes"]

Clock = Callable[[], datetime]
_REF = re.compile(r"#?([1-9][0-9]{0,17})|([0-9a-f]{8,64})")


def _system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Head:
    """The last entry: its sequence number (0 for an empty ledger) and digest."""

    seq: int
    digest: str | None


@dataclass(frozen=True)
class EntryFilter:
    """Which entries a listing shows; every field left as None matches everything."""

    kind: str | None = None
    implementation: str | None = None
    version: str | None = None
    protocol: str | None = None
    model: str | None = None
    verdict: str | None = None
    clause: str | None = None
    current: bool = False


class Ledger:
    """An open ledger. Use :meth:`open`; close it (or use ``with``) to release the connections."""

    def __init__(
        self, location: LedgerLocation, engine: Engine, backend: Backend, clock: Clock
    ) -> None:
        self.location = location
        self.engine = engine
        self.backend = backend
        self.clock = clock

    @classmethod
    def open(
        cls,
        location: str | Path | LedgerLocation | None = None,
        *,
        create: bool = False,
        clock: Clock | None = None,
    ) -> Ledger:
        """Open the ledger at ``location`` (default: ``APCONFORM_LEDGER``), creating it if asked."""
        where = location if isinstance(location, LedgerLocation) else resolve_location(location)
        if where.path is not None:
            if not create and not where.path.is_file():
                raise ApconformError(LEDGER_MISSING, f"there is no ledger file {where.path}")
            if create and not where.path.parent.is_dir():
                raise ApconformError(
                    LEDGER_LOCATION, f"the folder {where.path.parent} does not exist"
                )
        backend = backend_for(where)
        engine = backend.engine(where)
        ledger = cls(where, engine, backend, clock or _system_clock)
        with ledger._guard():
            prepare_schema(engine, backend, create=create, where=where.display())
        return ledger

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------------------------

    def _guard(self) -> AbstractContextManager[None]:
        return database_errors(self.location)

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read transaction (never blocks appends)."""
        with self._guard(), self.engine.connect() as connection, connection.begin():
            yield connection

    @contextmanager
    def appending(self) -> Iterator[Connection]:
        """A write transaction holding the append lock: the head cannot move under it."""
        with self._guard(), self.engine.connect() as connection:
            self.backend.begin_write(connection)
            with connection.begin():
                self.backend.lock_appends(connection)
                yield connection

    # -- appending ----------------------------------------------------------------------------

    def append(self, submission: Submission, *, admission: Admission | None = None) -> StoredEntry:
        """Append one checked submission as the next entry (see :mod:`apconform.ledger.admission`
        for what is refused); a claim the ledger already holds is answered with its entry."""
        return self.append_all([submission], admission=admission)[0]

    def append_all(
        self, submissions: Sequence[Submission], *, admission: Admission | None = None
    ) -> list[StoredEntry]:
        """Append several submissions in one transaction: all of them, or none."""
        with self.appending() as connection:
            head = head_of(connection)
            stored = []
            for submission in submissions:
                entry = self._append(connection, submission, head, admission=admission)
                stored.append(entry)
                if not entry.existing:
                    head = Head(entry.seq, entry.digest)
            return stored

    def _append(
        self,
        connection: Connection,
        submission: Submission,
        head: Head,
        *,
        origin: dict[str, Any] | None = None,
        admission: Admission | None = None,
    ) -> StoredEntry:
        """Admit and append one submission. Only an import (``origin`` given) may carry a claim
        made before claims were dated; everything else must say when it was made."""
        held = held_claim(connection, submission)
        if held is not None:
            return held
        now = self.clock()
        created = check_created(submission.claim, now, required=origin is None)
        superseded = [
            superseded_target(connection, digest, submission.signer)
            for digest in submission.claim.get("supersedes", [])
        ]
        index = index_of(submission.kind, submission.document)
        slot = slot_of(index)
        check_order(connection, slot, submission.claim, created, superseded)
        if admission is not None:
            check_binding(connection, slot, submission, admission)
        entry = build_entry(
            seq=head.seq + 1,
            previous=head.digest,
            recorded_at=timestamp(now),
            claim=submission.claim,
            index=index,
            origin=origin,
        )
        insert_entry(connection, entry, submission.document_bytes, superseded)
        return entry

    # -- reading ------------------------------------------------------------------------------

    def head(self) -> Head:
        with self.reading() as connection:
            return head_of(connection)

    def resolve(self, ref: str | int) -> int:
        """The sequence number an entry reference names (``12``, ``#12`` or a digest prefix)."""
        with self.reading() as connection:
            return resolve_ref(connection, ref)

    def entry(self, ref: str | int) -> StoredEntry:
        with self.reading() as connection:
            seq = resolve_ref(connection, ref)
            row = connection.execute(
                select(entries.c.envelope, entries.c.entry_sha256).where(entries.c.seq == seq)
            ).one()
        data = bytes(row.envelope)
        return StoredEntry(parse_entry(data, source=f"entry {seq}"), data, str(row.entry_sha256))

    def document(self, digest: str) -> Any:
        with self.reading() as connection:
            body = connection.execute(
                select(documents.c.body_zlib).where(documents.c.document_sha256 == digest)
            ).scalar_one_or_none()
        if body is None:
            raise ApconformError(LEDGER_UNKNOWN_ENTRY, f"no document has the digest {digest}")
        data = document_bytes(bytes(body))
        if data is None:
            raise ApconformError(LEDGER_UNAVAILABLE, f"document {digest[:12]} cannot be read")
        return loads(data, limits=RESULT_LIMITS, source=f"document {digest[:12]}")

    def summaries(
        self, where: EntryFilter | None = None, *, limit: int | None = None, after: int = 0
    ) -> list[dict[str, Any]]:
        """Entries as ``LedgerEntrySummary`` documents, oldest first."""
        after = min(max(after, 0), MAX_SEQ)  # no entry lies beyond; the database never sees more
        limit = None if limit is None else min(max(limit, 0), MAX_SEQ)
        with self.reading() as connection:
            query = select(entries).where(entries.c.seq > after).order_by(entries.c.seq)
            query = _filtered(query, where or EntryFilter())
            if limit is not None:
                query = query.limit(limit)
            rows = connection.execute(query).all()
            later = superseding(connection, [str(row.entry_sha256) for row in rows])
        return [entry_summary(row._mapping, later.get(str(row.entry_sha256), [])) for row in rows]


@contextmanager
def database_errors(location: LedgerLocation) -> Iterator[None]:
    """Database failures become APC-LEDGER-UNAVAILABLE, with the location masked."""
    try:
        yield
    except ApconformError:
        raise
    except DBAPIError as exc:
        detail = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
        raise ApconformError(
            LEDGER_UNAVAILABLE,
            f"ledger {location.display()}: {type(exc.orig).__name__}: {detail}",
        ) from None
    except SQLAlchemyError as exc:
        raise ApconformError(
            LEDGER_UNAVAILABLE, f"ledger {location.display()}: {type(exc).__name__}"
        ) from None


def head_of(connection: Connection) -> Head:
    row = connection.execute(
        select(entries.c.seq, entries.c.entry_sha256).order_by(entries.c.seq.desc()).limit(1)
    ).first()
    return Head(0, None) if row is None else Head(int(row.seq), str(row.entry_sha256))


def resolve_ref(connection: Connection, ref: str | int) -> int:
    text = str(ref).strip().lower()
    match = _REF.fullmatch(text)
    if match is None:
        raise ApconformError(LEDGER_REF, f"{str(ref)!r} names no entry")
    if match.group(1) is not None and not (match.group(2) and len(text) >= 8):
        seq = int(match.group(1))
        found = connection.execute(select(entries.c.seq).where(entries.c.seq == seq)).first()
        if found is None:
            raise ApconformError(LEDGER_UNKNOWN_ENTRY, f"the ledger has no entry {seq}")
        return seq
    rows = connection.execute(
        select(entries.c.seq).where(entries.c.entry_sha256.startswith(text)).limit(2)
    ).all()
    if not rows:
        raise ApconformError(LEDGER_UNKNOWN_ENTRY, f"no entry's digest starts with {text}")
    if len(rows) > 1:
        raise ApconformError(LEDGER_REF, f"several entries' digests start with {text}; give more")
    return int(rows[0].seq)


def superseded_target(connection: Connection, digest: str, signer: str | None) -> str:
    """The local digest of the entry ``digest`` names (directly, or as an imported origin)."""
    row = connection.execute(
        select(entries.c.entry_sha256, entries.c.signer_key_id, entries.c.seq).where(
            or_(entries.c.entry_sha256 == digest, entries.c.origin_sha256 == digest)
        )
    ).first()
    if row is None:
        raise ApconformError(
            LEDGER_SUPERSEDES_UNKNOWN,
            f"the claim supersedes {digest}, which this ledger does not hold",
            path="$.claim.supersedes",
        )
    if row.signer_key_id is not None and row.signer_key_id != signer:
        raise ApconformError(
            LEDGER_SUPERSEDES_SIGNER,
            f"entry {row.seq} was signed by {row.signer_key_id}; its correction is signed by "
            f"{signer or 'nobody'}",
            path="$.claim.signature",
        )
    return str(row.entry_sha256)


def insert_entry(
    connection: Connection, entry: StoredEntry, document: bytes, superseded: Iterable[str]
) -> None:
    """Insert an entry's rows: the document (once per digest), the entry, its index rows."""
    body = entry.entry
    claim, index = body["claim"], body["index"]
    digest = claim["documentSha256"]
    known = connection.execute(
        select(documents.c.document_sha256).where(documents.c.document_sha256 == digest)
    ).first()
    if known is None:
        connection.execute(
            documents.insert().values(document_sha256=digest, body_zlib=zlib.compress(document, 6))
        )
    connection.execute(entries.insert().values(**entry_columns(entry)))
    verdicts = {item["protocol"]: item["verdict"] for item in index["verdicts"]}
    connection.execute(
        protocols.insert(),
        [{"seq": entry.seq, "protocol": p, "verdict": verdicts.get(p)} for p in index["protocols"]],
    )
    if index["clauses"]:
        connection.execute(
            clause_outcomes.insert(),
            [
                {
                    "seq": entry.seq,
                    "clause": c["clause"],
                    "protocol": c["protocol"],
                    "level": c["level"],
                    "outcome": c["outcome"],
                    "cases": c["cases"],
                }
                for c in index["clauses"]
            ],
        )
    targets = sorted(set(superseded))
    if targets:
        connection.execute(
            supersessions.insert(),
            [{"seq": entry.seq, "superseded_sha256": target} for target in targets],
        )


def document_bytes(stored: bytes) -> bytes | None:
    """A document's canonical bytes from its stored, compressed form (None if it is damaged)."""
    try:
        return zlib.decompress(stored)
    except zlib.error:
        return None


def entry_columns(entry: StoredEntry) -> dict[str, Any]:
    """The ``ledger_entries`` row of an entry: every column is read from the entry itself."""
    body = entry.entry
    claim, index = body["claim"], body["index"]
    signature = claim.get("signature")
    origin = body.get("origin")
    return {
        "seq": entry.seq,
        "entry_sha256": entry.digest,
        "previous_sha256": body["previous"],
        "recorded_at": body["recordedAt"],
        "kind": index["kind"],
        "document_sha256": claim["documentSha256"],
        "signer_key_id": signature["keyId"] if isinstance(signature, dict) else None,
        "implementation_name": index["implementation"]["name"],
        "implementation_version": index["implementation"]["version"],
        "subject": index["subject"],
        "model": index.get("model"),
        "verdict": index.get("verdict"),
        "run_date": index.get("runDate"),
        "origin_sha256": origin["entrySha256"] if isinstance(origin, dict) else None,
        "created_at": claim.get("createdAt"),
        "envelope": entry.data,
    }


def superseding(connection: Connection, digests: Sequence[str]) -> dict[str, list[str]]:
    """For each digest, the digests of the later entries that supersede it."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(digests), 500):
        chunk = digests[start : start + 500]
        rows = connection.execute(
            select(supersessions.c.superseded_sha256, entries.c.entry_sha256)
            .join(entries, entries.c.seq == supersessions.c.seq)
            .where(supersessions.c.superseded_sha256.in_(chunk))
            .order_by(entries.c.seq)
        ).all()
        for row in rows:
            out.setdefault(str(row.superseded_sha256), []).append(str(row.entry_sha256))
    return out


def _filtered(query: Any, where: EntryFilter) -> Any:
    columns = {
        "kind": entries.c.kind,
        "implementation": entries.c.implementation_name,
        "version": entries.c.implementation_version,
        "model": entries.c.model,
        "verdict": entries.c.verdict,
    }
    for name, column in columns.items():
        value = getattr(where, name)
        if value is not None:
            query = query.where(column == value)
    if where.protocol is not None:
        query = query.where(
            entries.c.seq.in_(select(protocols.c.seq).where(protocols.c.protocol == where.protocol))
        )
    if where.clause is not None:
        query = query.where(
            entries.c.seq.in_(
                select(clause_outcomes.c.seq).where(clause_outcomes.c.clause == where.clause)
            )
        )
    if where.current:
        query = query.where(
            entries.c.entry_sha256.not_in(select(supersessions.c.superseded_sha256))
        )
    return query


def entry_summary(row: Mapping[Any, Any], superseded_by: list[str]) -> dict[str, Any]:
    """A ``LedgerEntrySummary`` from an entries row (or :func:`entry_columns` of an entry)."""
    out: dict[str, Any] = {
        "seq": int(row["seq"]),
        "entrySha256": row["entry_sha256"],
        "previous": row["previous_sha256"],
        "recordedAt": row["recorded_at"],
        "kind": row["kind"],
        "subject": row["subject"],
        "implementation": {
            "name": row["implementation_name"],
            "version": row["implementation_version"],
        },
    }
    for key, column in (("model", "model"), ("verdict", "verdict"), ("runDate", "run_date")):
        if row[column] is not None:
            out[key] = row[column]
    out["documentSha256"] = row["document_sha256"]
    if row["signer_key_id"] is not None:
        out["signer"] = row["signer_key_id"]
    out["supersededBy"] = superseded_by
    return out


def count_entries(connection: Connection) -> int:
    return int(connection.execute(select(func.count()).select_from(entries)).scalar_one())
