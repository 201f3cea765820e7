"""A ledger entry: the envelope that is chained, its canonical bytes and its digest.

The entry holds the claim, the facts read from the document, its sequence
number, the digest of the entry before and when it was recorded. Its digest
is the SHA-256 of its RFC 8785 bytes, which are what the ledger stores, so
any stored byte that changes no longer matches the digest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.jsonload import Limits, loads

__all__ = [
    "ENTRY_LIMITS",
    "ENTRY_VERSION",
    "MAX_SEQ",
    "StoredEntry",
    "build_entry",
    "entry_bytes",
    "parse_entry",
    "timestamp",
]

ENTRY_VERSION = "apconform-ledger-entry/1"
MAX_SEQ = 2**53 - 1
"""The largest entry number: exact in every JSON reader (an IEEE 754 double), and well inside
the databases' 64-bit integers; a larger number is refused, never passed to the database."""
ENTRY_LIMITS = Limits(max_bytes=16 * 1_048_576, max_depth=16, max_nodes=1_000_000)
"""An entry holds a claim and an index (a few hundred clauses), never a whole document."""


def timestamp(moment: datetime) -> str:
    """UTC, milliseconds, ``Z``: the form every kit record uses."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{moment.astimezone(UTC).microsecond // 1000:03d}Z"
    )


@dataclass(frozen=True)
class StoredEntry:
    """An entry with its canonical bytes and digest.

    ``existing`` is True when a submission was answered with this entry, which
    the ledger already held (the same claim again), rather than appended.
    """

    entry: dict[str, Any]
    data: bytes
    digest: str
    existing: bool = False

    @property
    def seq(self) -> int:
        return int(self.entry["seq"])


def build_entry(
    *,
    seq: int,
    previous: str | None,
    recorded_at: str,
    claim: dict[str, Any],
    index: dict[str, Any],
    origin: dict[str, Any] | None = None,
) -> StoredEntry:
    """The entry at ``seq`` after ``previous``, serialised and hashed."""
    entry: dict[str, Any] = {
        "schemaVersion": ENTRY_VERSION,
        "seq": seq,
        "previous": previous,
        "recordedAt": recorded_at,
        "claim": claim,
        "index": index,
    }
    if origin is not None:
        entry["origin"] = origin
    data = entry_bytes(entry)
    return StoredEntry(entry, data, sha256_bytes(data))


def entry_bytes(entry: dict[str, Any]) -> bytes:
    """The RFC 8785 bytes of an entry, made quickly.

    An entry holds only ASCII member names, strings, integers and null, never a
    float: for such values JCS is exactly JSON with sorted keys, no spaces and
    the standard escapes, which the C encoder writes several times faster than
    the general canonicaliser. Anything else (a float, say) takes the general
    path; verification re-serialises every entry with the general encoder, so
    the two can never disagree unnoticed.
    """
    if _plain(entry):
        text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")
    return canonical_bytes(entry)


def _plain(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            if not all(type(key) is str and key.isascii() for key in item):
                return False
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is int:
            if not -(2**53) <= item <= 2**53:
                return False
        elif kind is not str and item is not None and kind is not bool:
            return False
    return True


def parse_entry(data: bytes, *, source: str) -> dict[str, Any]:
    """An entry read back from its bytes (bounded); the caller checks what it needs."""
    value = loads(data, limits=ENTRY_LIMITS, source=source)
    if not isinstance(value, dict):
        raise ValueError(f"{source} is not a JSON object")
    return value
