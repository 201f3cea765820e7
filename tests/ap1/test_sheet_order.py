"""A scorer's sheet order: the same order however many keys, in memory that stops growing."""

from __future__ import annotations

import hashlib
import os
import platform
import random
import tracemalloc
from pathlib import Path

from apconform.ap1.scoring.adjudication.sheets import sorted_positions
from apconform.core.memory import release_free_memory


def _keys(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    # Few distinct values: many ties, which must keep their positions' order.
    return [hashlib.sha256(str(rng.randrange(count // 3)).encode()).digest() for _ in range(count)]


def test_runs_merged_give_the_order_of_key_then_position(tmp_path: Path) -> None:
    keys = _keys(1000, 3)
    expected = sorted(range(len(keys)), key=lambda i: (keys[i], i))
    for run in (1, 7, 100, 999, 1000, 5000):
        assert list(sorted_positions(keys, run=run, directory=str(tmp_path))) == expected
    assert os.listdir(tmp_path) == []  # the runs' file is anonymous: nothing left behind


def test_a_small_order_and_an_empty_one() -> None:
    keys = [b"\x02" * 32, b"\x01" * 32, b"\x02" * 32, b"\x00" * 32]
    assert list(sorted_positions(keys, run=2)) == [3, 1, 0, 2]
    assert list(sorted_positions(keys)) == [3, 1, 0, 2]
    assert list(sorted_positions([], run=2)) == []


def _traced_peak(count: int, run: int, directory: str) -> tuple[int, int, int]:
    """The first and last positions of ``count`` keys sorted in runs of ``run``, and the peak
    of the memory traced meanwhile."""
    keys = (hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(count))
    tracemalloc.start()
    try:
        first = last = -1
        for n, position in enumerate(sorted_positions(keys, run=run, directory=directory)):
            first = position if n == 0 else first
            last = position
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return first, last, peak


def test_the_memory_held_stops_growing_with_the_keys(tmp_path: Path) -> None:
    """Sorted whole, 50,000 keys take some 10 MB at their peak (each key with its position,
    its list slot, the sort); in runs of 5,000, one run and a few keys of each (about 1 MB)."""
    count = 50_000
    digests = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(count)]
    smallest = min(range(count), key=digests.__getitem__)
    largest = max(range(count), key=digests.__getitem__)
    first, last, whole = _traced_peak(count, count, str(tmp_path))
    assert (first, last) == (smallest, largest)
    assert whole > 3_500_000
    first, last, in_runs = _traced_peak(count, 5_000, str(tmp_path))
    assert (first, last) == (smallest, largest)
    assert in_runs < 1_500_000, in_runs


def test_free_heap_memory_is_released_where_the_c_library_allows() -> None:
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert release_free_memory() is glibc
