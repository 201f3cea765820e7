"""Moving entries between ledgers as JSON lines, without losing a digest.

An export line is a ``LedgerRecord``: the entry, its digest and its document.
Import checks the whole file first (every digest, every link, every document
and signature, and that every entry's index is what its document says) and
then appends in one transaction, so a bad file imports nothing. Into an
empty ledger, or one the export continues, entries go in byte for byte, so
the chain and every digest are the same as at the source (and none may make
an older result the latest of its subject); lines already present are
skipped, so importing the same export twice is harmless. A ledger with
another history takes the results only with ``rechain``: each becomes a new
entry here, admitted as any new result is (a result this ledger already
holds is skipped), with its claim (and signature) unchanged and an ``origin``
naming the entry it came from.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from sqlalchemy import select

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.files import read_file, read_stream
from apconform.core.jsonload import loads
from apconform.core.validation import validate_document
from apconform.ledger.admission import check_order
from apconform.ledger.claim import Submission, accept_submission, claim_time
from apconform.ledger.derivation import index_differences, index_of, slot_of
from apconform.ledger.entry import StoredEntry
from apconform.ledger.errors import LEDGER_IMPORT, LEDGER_IMPORT_FACTS, LEDGER_IMPORT_FORK
from apconform.ledger.store import (
    Head,
    Ledger,
    document_bytes,
    head_of,
    insert_entry,
    superseded_target,
)
from apconform.ledger.tables import documents, entries
from apconform.models.ledger import LedgerRecord
from apconform.results import RESULT_LIMITS

__all__ = [
    "ImportSummary",
    "export_records",
    "import_records",
    "read_export",
    "read_records",
]


EXPORT_LIMIT = 1 << 30
"""The largest export file ``ledger import`` reads (1 GiB)."""


def read_export(source: str) -> list[bytes]:
    """The lines of an export file (a regular file, not a link or device) or of stdin ("-"),
    read through the kit's bounded, non-blocking reader."""
    if source == "-":
        return read_stream(
            sys.stdin.buffer, max_bytes=EXPORT_LIMIT, what="a ledger export"
        ).splitlines()
    return read_file(
        source, max_bytes=EXPORT_LIMIT, what="a ledger export", follow_links=False
    ).splitlines()


def export_records(ledger: Ledger, out: TextIO, *, since: int = 1) -> int:
    """Write every entry from ``since`` on as one JSON line each; return how many."""
    written = 0
    after = since - 1
    while True:
        with ledger.reading() as connection:
            rows = connection.execute(
                select(
                    entries.c.seq, entries.c.entry_sha256, entries.c.envelope, documents.c.body_zlib
                )
                .join(documents, documents.c.document_sha256 == entries.c.document_sha256)
                .where(entries.c.seq > after)
                .order_by(entries.c.seq)
                .limit(200)
            ).all()
        if not rows:
            return written
        for row in rows:
            entry = json.loads(bytes(row.envelope))
            data = document_bytes(bytes(row.body_zlib))
            if data is None:
                raise ApconformError(
                    LEDGER_IMPORT, f"entry {row.seq}: its stored document cannot be read"
                )
            document = json.loads(data)
            record = {"entrySha256": row.entry_sha256, "entry": entry, "document": document}
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            written += 1
        after = int(rows[-1].seq)


@dataclass(frozen=True)
class _Line:
    number: int
    stored: StoredEntry
    submission: Submission


@dataclass(frozen=True)
class ImportSummary:
    """What an import did."""

    read: int
    appended: int
    skipped: int
    rechained: bool
    head: Head


def _refuse(number: int, message: str) -> ApconformError:
    return ApconformError(LEDGER_IMPORT, f"line {number}: {message}")


def _check_facts(number: int, entry: dict[str, Any], submission: Submission) -> None:
    """The entry's index must be what its document says, member by member."""
    differences = index_differences(entry["index"], index_of(submission.kind, submission.document))
    if differences:
        first = differences[0]
        more = len(differences) - 1
        raise ApconformError(
            LEDGER_IMPORT_FACTS,
            f"line {number} (entry {entry['seq']}): "
            + first.describe(signed=submission.signer is not None)
            + (f" (and {more} more member{'s' if more != 1 else ''})" if more else ""),
            path=f"$.entry.{first.path}",
        )


def read_records(
    lines: Iterable[bytes], *, trusted_keys: Iterable[str] | None = None
) -> list[_Line]:
    """Parse and check an export: digests, the chain within it, documents, signatures."""
    out: list[_Line] = []
    previous: _Line | None = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = loads(raw, limits=RESULT_LIMITS, source=f"line {number}")
            validate_document(LedgerRecord, value, what=f"line {number}")
            entry = value["entry"]
            data = canonical_bytes(entry)
            submission = accept_submission(
                {"claim": entry["claim"], "document": value["document"]},
                trusted_keys=trusted_keys,
            )
        except DocumentRefused as refused:
            raise _refuse(number, refused.message) from None
        except ApconformError as error:
            raise _refuse(number, f"{error.code}: {error.message}") from None
        _check_facts(number, entry, submission)
        digest = sha256_bytes(data)
        if digest != value["entrySha256"]:
            raise _refuse(number, "the entry does not hash to its entrySha256")
        if previous is not None and (
            entry["seq"] != previous.stored.seq + 1 or entry["previous"] != previous.stored.digest
        ):
            raise _refuse(number, "the entry does not follow the line before it")
        line = _Line(number, StoredEntry(entry, data, digest), submission)
        out.append(line)
        previous = line
    return out


def _present(ledger_head: Head, connection: Any, line: _Line) -> bool:
    if line.stored.seq > ledger_head.seq:
        return False
    found = connection.execute(
        select(entries.c.entry_sha256).where(entries.c.seq == line.stored.seq)
    ).scalar_one_or_none()
    return bool(found == line.stored.digest)


def import_records(
    ledger: Ledger,
    lines: Iterable[bytes],
    *,
    rechain: bool = False,
    trusted_keys: Iterable[str] | None = None,
) -> ImportSummary:
    """Import an export: byte for byte when it continues this ledger, else only with ``rechain``."""
    records = read_records(lines, trusted_keys=trusted_keys)
    with ledger.appending() as connection:
        head = head_of(connection)
        if rechain:
            appended = 0
            for line in records:
                origin = {"seq": line.stored.seq, "entrySha256": line.stored.digest}
                try:
                    stored = ledger._append(connection, line.submission, head, origin=origin)
                except ApconformError as error:
                    raise _within(line, error) from None
                if not stored.existing:  # a result imported before is not appended twice
                    appended += 1
                    head = Head(stored.seq, stored.digest)
            return ImportSummary(len(records), appended, len(records) - appended, True, head)
        pending = list(_pending(records, head, connection))
        skipped = len(records) - len(pending)
        for line in pending:
            if line.stored.seq != head.seq + 1 or line.stored.entry["previous"] != head.digest:
                raise ApconformError(
                    LEDGER_IMPORT_FORK,
                    f"the export's entry {line.stored.seq} follows "
                    f"{str(line.stored.entry['previous'])[:16]}..., but this ledger's head is "
                    f"entry {head.seq} ({str(head.digest)[:16]}...)",
                )
            claim = line.stored.entry["claim"]
            try:
                superseded = [
                    superseded_target(connection, digest, line.submission.signer)
                    for digest in claim.get("supersedes", [])
                ]
                slot = slot_of(line.stored.entry["index"])
                check_order(connection, slot, claim, claim_time(claim), superseded)
            except ApconformError as error:
                raise _within(line, error) from None
            insert_entry(connection, line.stored, line.submission.document_bytes, superseded)
            head = Head(line.stored.seq, line.stored.digest)
        return ImportSummary(len(records), len(pending), skipped, False, head)


def _within(line: _Line, error: ApconformError) -> ApconformError:
    """An append refusal, naming the export's line and entry."""
    return ApconformError(
        error.error_code,
        f"line {line.number} (entry {line.stored.seq}): {error.message}",
        path=error.path,
        hint=error.hint,
    )


def _pending(records: list[_Line], head: Head, connection: Any) -> Iterator[_Line]:
    """The lines not in the ledger yet; those present must be a prefix of the export."""
    seen_missing = False
    for line in records:
        if not seen_missing and _present(head, connection, line):
            continue
        seen_missing = True
        yield line
