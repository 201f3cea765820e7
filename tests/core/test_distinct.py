"""Distinct values per group, counted exactly whether the digests stay in memory or spill."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from apconform.core.distinct import DistinctCounter


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def test_counts_in_memory() -> None:
    counter = DistinctCounter()
    for text in ["a", "b", "a", "c", "a"]:
        counter.add(("item-1", "base", "prose"), _digest(text))
    counter.add(("item-1", "base", "figures"), _digest("a"))
    assert not counter.spilled
    assert counter.count(("item-1", "base", "prose")) == 3
    assert counter.count(("item-1", "base", "figures")) == 1
    assert counter.count(("item-2", "base", "prose")) == 0


def test_spilled_counts_equal_the_sets_of_every_digest(tmp_path: Path) -> None:
    rng = random.Random(5)
    groups = [("i1", "base", "prose"), ("i1", "base", "figures"), ("i2", "other", "prose")]
    truth: dict[tuple[str, str, str], set[bytes]] = {group: set() for group in groups}
    counter = DistinctCounter(str(tmp_path), memory_values=50)
    for _ in range(3000):
        group = rng.choice(groups)
        digest = _digest(str(rng.randrange(700)))  # many repeats, across spills too
        truth[group].add(digest)
        counter.add(group, digest)
    assert counter.spilled
    expected = [len(truth[group]) for group in groups]
    assert [counter.count(group) for group in groups] == expected
    assert [counter.count(group) for group in groups] == expected  # counted once, read again
    counter.add(groups[2], _digest("new"))  # a value after counting is counted
    assert counter.count(groups[2]) == len(truth[groups[2]]) + 1
    assert counter.count(("never", "seen", "prose")) == 0
    assert list(tmp_path.iterdir()) == []  # its files have no names
    counter.close()
    assert counter.count(groups[0]) == 0


def test_merging_stretches_counts_as_one_pass(tmp_path: Path) -> None:
    whole = DistinctCounter(str(tmp_path), memory_values=4)
    first, second = DistinctCounter(), DistinctCounter()
    for text in ["1", "2", "3"]:
        first.add("g", _digest(text))
    for text in ["3", "4", "5", "6", "1"]:
        second.add("g", _digest(text))
    second.add("h", _digest("1"))
    whole.merge(first)
    whole.merge(second)
    assert whole.spilled
    assert (whole.count("g"), whole.count("h")) == (6, 1)
    with pytest.raises(ValueError, match="cannot be merged"):
        DistinctCounter().merge(whole)


def test_a_digest_has_the_sha256_size() -> None:
    with pytest.raises(ValueError, match="a digest is 32 bytes, not 3"):
        DistinctCounter().add("g", b"abc")
