"""The design a population interval reads: per pair, each family's credited hours and the time.

The same value comes from two places: from APx documents (a frozen manifest and
its paired campaigns, scored by the APx 0.1 kernel, see ``campaigns``) and from
the simulated campaigns of the power analysis (see ``model``), so the interval
is computed by one function for both.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Design", "Side"]


@dataclass(frozen=True)
class Side:
    """One configuration over the pairs: credited hours per pair and family, elapsed hours."""

    work: tuple[tuple[float, ...], ...]
    """work[r][f]: the reference hours credited to family f in the run of pair r."""
    hours: tuple[float, ...]
    """hours[r]: the complete elapsed hours T of the run of pair r."""

    def total_work(self) -> float:
        """Sum over pairs of each run's credited hours, in pair order (the APx 0.1 sum of W)."""
        total = 0.0
        for row in self.work:
            total += sum(row)
        return total

    def total_hours(self) -> float:
        total = 0.0
        for value in self.hours:
            total += value
        return total


@dataclass(frozen=True)
class Design:
    """A paired comparison as the population interval sees it (G families, R pairs)."""

    families: int
    parent: Side
    candidate: Side

    @property
    def pairs(self) -> int:
        return len(self.parent.hours)
