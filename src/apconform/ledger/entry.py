"""A ledger entry: the envelope that is chained, its canonical bytes and its digest.

The entry holds the claim, the facts read from the document, its sequence
number, the digest of the entry before and when it was recorded. Its digest
is the SHA-256 of its RFC 8785 bytes, which are what the ledger stores, so
any stored byte that changes no longer matches the digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.jsonload import Limits, loads

__all__ = [
    "ENTRY_LIMITS",
    "ENTRY_VERSION",
    "StoredEntry",
    "build_entry",
    "parse_entry",
    "timestamp",
]

ENTRY_VERSION = "apconform-ledger-entry/1"
ENTRY_LIMITS = Limits(max_bytes=16 * 1_048_576, max_depth=16, max_nodes=1_000_000)
"""An entry holds a claim and an index (a few hundred clauses), never a whole document."""


def timestamp(moment: datetime) -> str:
    """UTC, milliseconds, ``Z``: the form every kit record uses."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{moment.astimezone(UTC).microsecond // 1000:03d}Z"
    )


@dataclass(frozen=True)
class StoredEntry:
    """An entry with its canonical bytes and digest."""

    entry: dict[str, Any]
    data: bytes
    digest: str

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
    data = canonical_bytes(entry)
    return StoredEntry(entry, data, sha256_bytes(data))


def parse_entry(data: bytes, *, source: str) -> dict[str, Any]:
    """An entry read back from its bytes (bounded); the caller checks what it needs."""
    value = loads(data, limits=ENTRY_LIMITS, source=source)
    if not isinstance(value, dict):
        raise ValueError(f"{source} is not a JSON object")
    return value
