"""Which planned cells a transcript recorded, in one byte per planned cell.

The integrity section compares the recorded cell keys with the plan
(recorded, missing, unplanned, retried, deferred) and a repeated cell is a
finding; holding every key of a million-execution run as a string, in a list
and in sets, cost hundreds of megabytes. A key of the plan's form
(``condition/item/repeat``, repeat written as the plan writes it) is found by
arithmetic on the plan's runs of one condition and item and marked in a byte
array; any other key is kept as it is (only a damaged or foreign transcript
has them).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CellTally"]


class CellTally:
    """The set of recorded cell keys, measured against the plan."""

    def __init__(self, groups: Iterable[tuple[str, str, int, bool]]) -> None:
        self._runs: dict[str, dict[str, tuple[int, int]]] = {}
        base = 0
        for condition, item_id, repeats, _void in groups:
            self._runs.setdefault(condition, {})[item_id] = (base, repeats)
            base += repeats
        self.planned = base
        self._seen = bytearray(base)
        self._other: dict[str, None] = {}
        self.in_plan = 0
        """Recorded keys that are planned."""

    def _position(self, key: str) -> int | None:
        condition, _, rest = key.partition("/")
        item_id, _, repeat = rest.rpartition("/")
        run = self._runs.get(condition, {}).get(item_id)
        if run is None or not (repeat.isascii() and repeat.isdigit()) or repeat[0] == "0":
            return None
        number = int(repeat)
        return run[0] + number - 1 if number <= run[1] else None

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        position = self._position(key)
        return key in self._other if position is None else bool(self._seen[position])

    def add(self, key: str) -> None:
        """Record a key (recording one twice changes nothing)."""
        position = self._position(key)
        if position is None:
            self._other[key] = None
        elif not self._seen[position]:
            self._seen[position] = 1
            self.in_plan += 1

    def add_if_new(self, key: str) -> bool:
        """Record a key and return True, or return False when it is recorded already (the key's
        position in the plan is found once, not once to look and once to record)."""
        position = self._position(key)
        if position is None:
            if key in self._other:
                return False
            self._other[key] = None
            return True
        if self._seen[position]:
            return False
        self._seen[position] = 1
        self.in_plan += 1
        return True

    def add_new(self, keys: list[str]) -> bool:
        """Record every key if none is recorded yet (the keys are distinct); else record none
        and return False."""
        positions = [self._position(key) for key in keys]
        seen, other = self._seen, self._other
        for key, position in zip(keys, positions, strict=True):
            if (key in other) if position is None else seen[position]:
                return False
        for key, position in zip(keys, positions, strict=True):
            if position is None:
                other[key] = None
            elif not seen[position]:
                seen[position] = 1
                self.in_plan += 1
        return True

    def is_planned(self, key: str) -> bool:
        return self._position(key) is not None

    def __len__(self) -> int:
        return self.in_plan + len(self._other)

    @property
    def unplanned(self) -> int:
        """Recorded keys the plan does not hold."""
        return len(self._other)
