"""The append-only, hash-chained transcript: writing records and reading them back.

Each record is one line of RFC 8785 text. Its ``sha256`` covers the record
without that member, and its ``prevSha256`` is the previous record's
``sha256``, so an edited record fails its own hash and a removed or reordered
one breaks the chain where it happened. Every record is written with a single
``write`` and synced to disk before the next one is written.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from apconform.ap1.clock import utc_now
from apconform.ap1.masking import Masker
from apconform.ap1.rundir import open_append
from apconform.ap1.transcript.records import UnhashedRecord, WrittenRecord
from apconform.core.canonical import canonical_text, sha256_bytes, sha256_hex

__all__ = ["GENESIS", "SCHEMA_VERSION", "TranscriptWriter", "record_hash", "split_lines"]

GENESIS = "0" * 64
SCHEMA_VERSION = "apconform-ap1-transcript/1"


def record_hash(record: Mapping[str, object]) -> str:
    """The sha256 a record must carry: of its RFC 8785 bytes without the sha256 member."""
    return sha256_hex({k: v for k, v in record.items() if k != "sha256"})


class TranscriptWriter:
    """Appends records to one transcript file; thread-safe; every record synced before return."""

    def __init__(
        self,
        path: Path,
        seal_hash: str,
        *,
        next_seq: int = 0,
        prev: str = GENESIS,
        masker: Masker | None = None,
    ):
        self.path = path
        self.seal_hash = seal_hash
        self.next_seq = next_seq
        self.prev = prev
        self._masker = masker if masker is not None else Masker()
        self.last_kind = "run-started"
        """The kind of the last record written (what the head names)."""
        self._lock = threading.Lock()
        self._fd = open_append(path.parent, path.name)  # a link planted there is refused

    def append(self, kind: str, payload: dict[str, object]) -> WrittenRecord:
        """Write one record of ``kind`` carrying ``payload``; return the record as written.

        The run's secrets are masked in every string of the payload (member names
        included), in every encoding an echo could give them, before it is hashed.
        """
        masked = self._masker.mask_object(payload)
        with self._lock:
            body: UnhashedRecord = {
                "schemaVersion": SCHEMA_VERSION,
                "seq": str(self.next_seq),
                "kind": kind,
                "recordedAt": utc_now(),
                "sealHash": self.seal_hash,
                "prevSha256": self.prev,
            }
            _add_member(body, kind, masked)
            text = canonical_text(body)
            record: WrittenRecord = {**body, "sha256": sha256_bytes(text.encode("utf-8"))}
            # "sha256" sorts after every other member of a record, so the canonical text of
            # the whole record is the text without it plus that last member.
            data = f'{text[:-1]},"sha256":"{record["sha256"]}"}}\n'.encode()
            written = os.write(self._fd, data)
            while written < len(data):  # a regular file takes it in one write; be sure anyway
                written += os.write(self._fd, data[written:])
            os.fsync(self._fd)
            self.next_seq += 1
            self.prev = record["sha256"]
            self.last_kind = kind
            return record

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _add_member(record: UnhashedRecord, kind: str, payload: dict[str, object]) -> None:
    """Add the event member that ``kind`` names (after every other member, as written)."""
    if kind == "run-started":
        record["runStarted"] = payload
    elif kind == "execution":
        record["execution"] = payload
    elif kind == "run-resumed":
        record["runResumed"] = payload
    elif kind == "run-stopped":
        record["runStopped"] = payload
    elif kind == "run-finished":
        record["runFinished"] = payload
    elif kind == "cell-deferred":
        record["cellDeferred"] = payload
    else:
        raise KeyError(kind)


def split_lines(data: bytes) -> Iterator[tuple[int, int, bytes, bool]]:
    """(line number, byte offset, line without newline, terminated) for every line."""
    offset, number = 0, 0
    while offset < len(data):
        end = data.find(b"\n", offset)
        number += 1
        if end < 0:
            yield number, offset, data[offset:], False
            return
        yield number, offset, data[offset:end], True
        offset = end + 1
