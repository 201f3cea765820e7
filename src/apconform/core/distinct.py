"""Counting the distinct values of each group exactly, in memory that stops growing.

The D2 measure reports how many distinct values each item, condition and
surface produced; the values are kept as SHA-256 digests, and a run whose tool
arguments are new every time has as many of them as executions (some 100 bytes
each as Python objects). A :class:`DistinctCounter` holds its digests in sets
up to a threshold; past it, every digest held is written with its group's
number to one of a few anonymous temporary files chosen by the digest's first
byte (each a :class:`~apconform.core.spill.RecordFile`), and the sets start
again empty. A digest therefore always lands in the same file, so the files
can be counted one at a time: the count of a group is the number of distinct
(group, digest) records summed over the files. The counts are exactly those
of sets of every digest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from operator import itemgetter

from apconform.core.spill import RecordFile

__all__ = ["MEMORY_VALUES", "DistinctCounter"]

MEMORY_VALUES = 100_000
"""Digests held in sets by a counter that may spill, before they move to its files."""
DIGEST_SIZE = 32
_BUCKETS = 32
_GROUP = 4
_RECORD = _GROUP + DIGEST_SIZE
_GROUP_OF = itemgetter(slice(0, _GROUP))


class DistinctCounter:
    """Distinct digests per group: in sets, or (past ``memory_values``) in temporary files.

    ``memory_values`` None keeps everything in memory (a small or in-process
    tally); a counter that has spilled cannot be merged into another.
    """

    def __init__(self, directory: str | None = None, memory_values: int | None = None) -> None:
        self._directory = directory
        self._limit = memory_values
        self._sets: dict[Hashable, set[bytes]] = {}
        self._held = 0
        self._numbers: dict[Hashable, int] = {}
        self._files: list[RecordFile] | None = None
        self._counts: Counter[bytes] | None = None

    @property
    def spilled(self) -> bool:
        """Whether some digests are in the temporary files."""
        return self._files is not None

    def add(self, group: Hashable, digest: bytes) -> None:
        """Count ``digest`` (``DIGEST_SIZE`` bytes) as a value of ``group``."""
        values = self._sets.get(group)
        if values is None:
            values = self._sets[group] = set()
        if digest not in values:
            if len(digest) != DIGEST_SIZE:
                raise ValueError(f"a digest is {DIGEST_SIZE} bytes, not {len(digest)}")
            values.add(digest)
            self._held += 1
            self._counts = None
            if self._limit is not None and self._held > self._limit:
                self._spill()

    def merge(self, other: DistinctCounter) -> None:
        """Add every digest of another counter (one held in memory)."""
        if other._files is not None:
            raise ValueError("a counter whose digests are in files cannot be merged")
        for group, theirs in other._sets.items():
            mine = self._sets.get(group)
            if mine is None:
                mine = self._sets[group] = set()
            before = len(mine)
            mine |= theirs
            self._held += len(mine) - before
        self._counts = None
        if self._limit is not None and self._held > self._limit:
            self._spill()

    def count(self, group: Hashable) -> int:
        """The number of distinct digests of ``group`` (0 for a group never seen)."""
        if self._files is None:
            return len(self._sets.get(group, ()))
        if self._counts is None:
            self._counts = self._count_files()
        number = self._numbers.get(group)
        return 0 if number is None else self._counts[number.to_bytes(_GROUP, "little")]

    def _spill(self) -> None:
        if self._files is None:
            self._files = [
                RecordFile(_RECORD, self._directory, ".apconform-distinct-")
                for _ in range(_BUCKETS)
            ]
        pieces: list[list[bytes]] = [[] for _ in range(_BUCKETS)]
        for group, values in self._sets.items():
            number = self._numbers.get(group)
            if number is None:
                number = self._numbers[group] = len(self._numbers)
            prefix = number.to_bytes(_GROUP, "little")
            for digest in values:
                pieces[digest[0] % _BUCKETS].append(prefix + digest)
        for bucket, records in zip(self._files, pieces, strict=True):
            bucket.append(b"".join(records))
        self._sets, self._held = {}, 0

    def _count_files(self) -> Counter[bytes]:
        """Distinct records per group number, one file at a time."""
        self._spill()
        assert self._files is not None
        counts: Counter[bytes] = Counter()
        for bucket in self._files:
            data = bucket.read(0, len(bucket))
            records = {data[i : i + _RECORD] for i in range(0, len(data), _RECORD)}
            del data
            counts.update(map(_GROUP_OF, records))
        return counts

    def close(self) -> None:
        """Drop the digests and the temporary files."""
        for bucket in self._files or ():
            bucket.close()
        self._files, self._sets, self._held, self._numbers, self._counts = None, {}, 0, {}, None
