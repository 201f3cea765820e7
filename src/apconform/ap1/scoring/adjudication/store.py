"""The web store of marks: one append-only, hash-chained file per scorer, and one for settlements.

RUN_DIR/adjudication/scorer-1.marks.jsonl   scorer 1's marks, one record per change
RUN_DIR/adjudication/scorer-2.marks.jsonl   scorer 2's
RUN_DIR/adjudication/reconciliation.jsonl   the marks settled in reconciliation

Each record is one line of RFC 8785 text, like a transcript record: its
``sha256`` covers the record without that member, its ``prevSha256`` is the
previous record's, and its ``seq`` counts from 0. The first record opens the
store, naming whose it is (and the Ed25519 key that signs it, when one does);
every later record is one mark (or one settlement) as it stands after the
change, so the latest record of a row is its mark and nothing is ever
rewritten. Reading a store checks every record: its hash, its link, its
sequence, the run's seal, that it is the store's own kind, that its row is a
row of the run and its mark one the row allows, and the signature of a signed
store; the first record that does not hold is named and the store refused.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from apconform.ap1.clock import utc_now
from apconform.ap1.rundir import ensure_directory, open_append, read_in
from apconform.ap1.scoring.adjudication.marks import (
    EMPTY_MARK,
    ITEM_UNKNOWN,
    MARK_FIELDS,
    SETTLEMENT_FIELDS,
    checked_mark,
    checked_settlement,
)
from apconform.core.canonical import canonical_text, sha256_bytes
from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import loads
from apconform.core.signing import Ed25519Key, sign_value, verify_value

__all__ = [
    "KEY_REFUSED",
    "RECONCILIATION",
    "SCORER_REFUSED",
    "STORE_FOLDER",
    "STORE_REFUSED",
    "STORE_SCHEMA",
    "MarkStore",
    "scorer_store",
]

STORE_SCHEMA = "apconform-ap1-adjudication-store/1"
STORE_FOLDER = "adjudication"
RECONCILIATION = "reconciliation"
STORE_REFUSED = define_code(
    "AP1-ADJ-STORE",
    "An adjudication store does not verify",
    "The file was changed outside apconform: restore it from a copy you trust. The message "
    "names the first record that does not hold; nothing was read past it and nothing written.",
    exit_status=1,
    http_status=409,
)
SCORER_REFUSED = define_code(
    "AP1-ADJ-SCORER",
    "The scorer named is not the scorer of this store",
    "Name yourself exactly as when you started marking; each scorer has a store of their own, "
    "and two scorers are all a run has.",
    exit_status=2,
    http_status=403,
)
KEY_REFUSED = define_code(
    "AP1-ADJ-KEY",
    "The store is signed with another key, or not signed",
    "A store keeps the signing key it was opened with: to add marks, sign with that key "
    "(--sign-with), or without a key if the store was opened unsigned.",
    exit_status=2,
    http_status=409,
)
_MAX_STORE = 256 * 1024 * 1024
_KINDS = {"mark": "mark", "settlement": "settlement"}
_RECORD_MEMBERS = {"schemaVersion", "seq", "kind", "recordedAt", "sealHash", "prevSha256", "sha256"}
GENESIS = "0" * 64


def scorer_store(slot: int) -> str:
    """The store name of scorer ``slot`` (1 or 2)."""
    return f"scorer-{slot}"


def _file(store: str) -> str:
    suffix = ".jsonl" if store == RECONCILIATION else ".marks.jsonl"
    return f"{STORE_FOLDER}/{store}{suffix}"


def _refuse(path: Path, line: int, message: str) -> ApconformError:
    return ApconformError(STORE_REFUSED, f"{path}, record {line}: {message}")


class SigningKeyRef(TypedDict):
    """The key that signs a store's records: its id and its public half (hex)."""

    keyId: str
    publicKey: str


class OpenedPayload(TypedDict):
    """What the first record of a store says: which store, whose, how many rows, which key."""

    store: str
    name: str | None
    rows: str
    signingKey: SigningKeyRef | None


@dataclass
class MarkStore:
    """One store as it stands: whose it is, the latest mark (or settlement) of every row."""

    run_dir: Path
    store: str
    seal_hash: str
    rows: Mapping[str, str]
    """Row id -> dimension, for every row of the run."""
    name: str | None = None
    """The scorer's name (None for the reconciliation store)."""
    signer: str | None = None
    """The key id that signs the store's records, or None."""
    entries: dict[str, dict[str, str]] = field(default_factory=dict)
    last_row: str | None = None
    """The row of the last record (where the scorer stopped)."""
    records: int = 0
    head: str = GENESIS
    opened_at: str | None = None
    updated_at: str | None = None
    _size: int = 0
    _seen: tuple[int, int, int] | None = None
    """(size, modification time, inode) of the file as last read or written here."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def path(self) -> Path:
        return self.run_dir / _file(self.store)

    @property
    def exists(self) -> bool:
        return self.records > 0

    # -- reading -----------------------------------------------------------------------------

    @classmethod
    def load(cls, run_dir: Path, store: str, seal_hash: str, rows: Mapping[str, str]) -> MarkStore:
        """Read and check the store (an empty one when the file does not exist yet)."""
        found = cls(run_dir, store, seal_hash, rows)
        found._reload()
        return found

    def _reload(self) -> None:
        self.entries, self.records, self.head = {}, 0, GENESIS
        self.name = self.signer = self.last_row = self.opened_at = self.updated_at = None
        if not os.path.lexists(self.path):
            self._size, self._seen = 0, None
            return
        seen = _stamp(os.lstat(self.path))
        data = read_in(self.run_dir, _file(self.store), max_bytes=_MAX_STORE, what="a mark store")
        self._size, self._seen = len(data), seen
        if data and not data.endswith(b"\n"):
            raise _refuse(
                self.path, data.count(b"\n") + 1, "the last record is incomplete (no line end)"
            )
        public_key: str | None = None
        for number, raw in enumerate(data.split(b"\n")[:-1], start=1):
            record = self._parsed(number, raw)
            if number == 1:
                public_key = self._opened(number, record)
            else:
                self._entry(number, record, public_key)
            self.records, self.head = number, record["sha256"]
            self.updated_at = record["recordedAt"]

    def _parsed(self, number: int, raw: bytes) -> dict[str, Any]:
        try:
            record = loads(raw, source=f"{self.path} record {number}")
        except ApconformError as error:
            raise _refuse(self.path, number, f"not a JSON record ({error.message})") from None
        if not isinstance(record, dict):
            raise _refuse(self.path, number, "not a JSON object")
        if canonical_text(record).encode("utf-8") != raw:
            raise _refuse(self.path, number, "its bytes are not the record's RFC 8785 form")
        body = {k: v for k, v in record.items() if k != "sha256"}
        if record.get("sha256") != sha256_bytes(canonical_text(body).encode("utf-8")):
            raise _refuse(self.path, number, "its sha256 does not match its content (edited)")
        if record.get("prevSha256") != self.head:
            raise _refuse(self.path, number, "prevSha256 is not the previous record's sha256")
        if record.get("seq") != str(number - 1):
            raise _refuse(self.path, number, f"seq is {record.get('seq')!r}, not {number - 1}")
        if record.get("schemaVersion") != STORE_SCHEMA:
            raise _refuse(self.path, number, f"schemaVersion is not {STORE_SCHEMA}")
        if record.get("sealHash") != self.seal_hash:
            raise _refuse(self.path, number, "it names another run's seal")
        if not isinstance(record.get("recordedAt"), str):
            raise _refuse(self.path, number, "recordedAt is missing")
        kind = record.get("kind")
        member = "opened" if number == 1 else _KINDS.get(str(kind))
        if kind != ("opened" if number == 1 else member) or member is None:
            raise _refuse(self.path, number, f"kind {kind!r} does not belong here")
        extra = set(record) - _RECORD_MEMBERS - {member, "signature"}
        if extra or not isinstance(record.get(member), dict):
            raise _refuse(self.path, number, f"unexpected members {sorted(extra) or [member]}")
        return record

    def _signature(self, number: int, record: dict[str, Any], public_key: str | None) -> None:
        signature = record.get("signature")
        if public_key is None:
            if signature is not None:
                raise _refuse(self.path, number, "a signature in a store opened unsigned")
            return
        if signature is None:
            raise _refuse(self.path, number, "unsigned, in a store opened signed")
        body = {k: v for k, v in record.items() if k not in ("sha256", "signature")}
        try:
            verify_value(body, signature, trusted_public_keys=[public_key])
        except ApconformError as error:
            message = f"the signature does not hold ({error.message})"
            raise _refuse(self.path, number, message) from None

    def _opened(self, number: int, record: dict[str, Any]) -> str | None:
        opened = record["opened"]
        if opened.get("store") != self.store:
            raise _refuse(self.path, number, f"it opens {opened.get('store')!r}, not {self.store}")
        name = opened.get("name")
        if self.store != RECONCILIATION and (not isinstance(name, str) or not name.strip()):
            raise _refuse(self.path, number, "it does not name the scorer")
        signing = opened.get("signingKey")
        public_key = signing.get("publicKey") if isinstance(signing, dict) else None
        if signing is not None and not isinstance(public_key, str):
            raise _refuse(self.path, number, "signingKey has no publicKey")
        self._signature(number, record, public_key)
        self.name = name if isinstance(name, str) else None
        self.signer = signing.get("keyId") if isinstance(signing, dict) else None
        self.opened_at = record["recordedAt"]
        return public_key

    def _entry(self, number: int, record: dict[str, Any], public_key: str | None) -> None:
        self._signature(number, record, public_key)
        kind = record["kind"]
        payload = record[kind]
        row_id = payload.get("rowId")
        if not isinstance(row_id, str) or row_id not in self.rows:
            raise _refuse(self.path, number, f"row {row_id!r} is not a row of this run")
        if (kind == "settlement") != (self.store == RECONCILIATION):
            raise _refuse(self.path, number, f"a {kind} record does not belong in {self.store}")
        fields = SETTLEMENT_FIELDS if kind == "settlement" else MARK_FIELDS
        if set(payload) != {"rowId", *fields}:
            raise _refuse(self.path, number, f"a {kind} has exactly rowId, {', '.join(fields)}")
        try:
            if kind == "mark":
                entry = checked_mark(row_id, self.rows[row_id], {f: payload[f] for f in fields})
            else:
                entry = checked_settlement(
                    row_id, self.rows[row_id], {f: payload[f] for f in fields}
                )
        except ApconformError as error:
            raise _refuse(self.path, number, error.message) from None
        if entry != {f: payload[f] for f in fields}:
            raise _refuse(self.path, number, "its mark is not in the form the store writes")
        self.entries[row_id] = entry
        self.last_row = row_id

    # -- writing -----------------------------------------------------------------------------

    def open_for(self, name: str | None, key: Ed25519Key | None) -> None:
        """Check that ``name`` (and ``key``) may write to this store; open it if it is new."""
        with self._lock:
            self._sync()
            if self.exists:
                if self.store != RECONCILIATION and name != self.name:
                    raise ApconformError(
                        SCORER_REFUSED,
                        f"{self.store} belongs to {self.name!r}, not {name!r}",
                    )
                signer = None if key is None else key.key_id
                if signer != self.signer:
                    raise ApconformError(
                        KEY_REFUSED,
                        f"{self.store} is signed by {self.signer or 'no key'}, "
                        f"not {signer or 'no key'}",
                    )
                return
            payload: OpenedPayload = {
                "store": self.store,
                "name": name,
                "rows": str(len(self.rows)),
                "signingKey": None
                if key is None
                else {"keyId": key.key_id, "publicKey": key.public_key_hex},
            }
            self._append("opened", payload, key)
            self.name, self.signer = name, None if key is None else key.key_id

    def put(
        self, row_id: str, raw: Mapping[str, object], *, name: str | None, key: Ed25519Key | None
    ) -> tuple[dict[str, str], bool]:
        """Record the mark (or settlement) of a row; (the entry, whether a record was written).

        An entry equal to the row's current one writes nothing.
        """
        if row_id not in self.rows:
            raise ApconformError(ITEM_UNKNOWN, f"{row_id!r} is not a row of this run")
        if self.store == RECONCILIATION:
            entry = checked_settlement(row_id, self.rows[row_id], raw)
        else:
            entry = checked_mark(row_id, self.rows[row_id], raw)
        with self._lock:
            self._sync()
            if not self.exists:
                raise ApconformError(
                    SCORER_REFUSED, f"{self.store} is not open yet: name the scorer first"
                )
            if self.store != RECONCILIATION and name != self.name:
                raise ApconformError(
                    SCORER_REFUSED, f"{self.store} belongs to {self.name!r}, not {name!r}"
                )
            if (None if key is None else key.key_id) != self.signer:
                raise ApconformError(KEY_REFUSED, f"{self.store} is signed by {self.signer}")
            if self.entries.get(row_id) == entry:
                return entry, False
            kind = "settlement" if self.store == RECONCILIATION else "mark"
            self._append(kind, {"rowId": row_id, **entry}, key)
            self.entries[row_id] = entry
            self.last_row = row_id
            return entry, True

    def mark(self, row_id: str) -> Mapping[str, str]:
        return self.entries.get(row_id, EMPTY_MARK)

    def refresh(self) -> None:
        """Read the file again if another process wrote to it (or it was changed) since."""
        with self._lock:
            self._sync()

    def _sync(self) -> None:
        """Read (and check) the file again if anything changed it since it was read here."""
        seen = _stamp(os.lstat(self.path)) if os.path.lexists(self.path) else None
        if seen != self._seen:
            self._reload()

    def _append(
        self, kind: str, payload: OpenedPayload | dict[str, str], key: Ed25519Key | None
    ) -> None:
        ensure_directory(self.run_dir / STORE_FOLDER)
        fd = open_append(self.run_dir, _file(self.store))
        try:
            _flock(fd)
            now = _stamp(os.fstat(fd))
            if now != self._seen and not (self._seen is None and now[0] == 0):
                self._reload()  # another process wrote first (or the file was edited): check it
                if kind == "opened" and self.exists:
                    raise ApconformError(
                        SCORER_REFUSED, f"{self.store} was opened by {self.name!r} meanwhile"
                    )
            record: dict[str, Any] = {
                "schemaVersion": STORE_SCHEMA,
                "seq": str(self.records),
                "kind": kind,
                "recordedAt": utc_now(),
                "sealHash": self.seal_hash,
                "prevSha256": self.head,
                kind: payload,
            }
            if key is not None:
                record["signature"] = sign_value(record, key)
            record["sha256"] = sha256_bytes(canonical_text(record).encode("utf-8"))
            data = (canonical_text(record) + "\n").encode("utf-8")
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
            self._seen = _stamp(os.fstat(fd))
        finally:
            os.close(fd)
        self._size += len(data)
        self.records += 1
        self.head = record["sha256"]
        self.updated_at = record["recordedAt"]
        if kind == "opened":
            self.opened_at = record["recordedAt"]


def _stamp(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_size, status.st_mtime_ns, status.st_ino


def _flock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover - no advisory lock there
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX)  # released when the descriptor is closed
