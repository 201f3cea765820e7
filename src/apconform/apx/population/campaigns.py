"""Reading the population design from APx documents: a frozen manifest and its paired campaigns.

The APx 0.1 kernel validates and scores everything first (its refusals keep
their APX- codes); then the families are the suite's classes in the order of
their first slot, a family's credited hours in a run are the result's
``perClass`` creditedHumanHours, and the time is the run's ``wallHours``. The
calibration must name its participants: the participant level is part of the
estimand, and a suite calibrated by one person has no participant population.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from apconform.apx.kernel import compare_scored
from apconform.apx.population import errors
from apconform.apx.population.design import Design, Side
from apconform.apx.population.interval import check_levels
from apconform.apx.promotion import ScoredPair
from apconform.core.errors import ApconformError

__all__ = ["Campaigns", "Counts", "as_json", "read_campaigns", "score_comparison"]


@dataclass(frozen=True)
class Counts:
    """How many of each level the documents hold (for the design summary and departures)."""

    families: int
    instances: int
    participants: int
    calibration_attempts: int
    pairs: int
    instances_per_family: tuple[int, ...]
    participants_per_class: tuple[int, ...]
    attempts_per_participant: tuple[int, ...]
    """Attempts of each (class, participant), in the order first seen."""

    def to_dict(self) -> dict[str, int]:
        return {
            "families": self.families,
            "instances": self.instances,
            "participants": self.participants,
            "calibrationAttempts": self.calibration_attempts,
            "pairs": self.pairs,
        }


@dataclass(frozen=True)
class Campaigns:
    """A comparison read for the population interval: its design, counts and APx 0.1 promotion."""

    design: Design
    counts: Counts
    promotion: dict[str, Any]
    manifest: dict[str, Any]


def _participants(
    manifest: Mapping[str, Any], classes: list[str]
) -> tuple[int, list[int], list[int], int]:
    attempts = manifest["baseline"]["attempts"]
    seen: dict[str, dict[str, int]] = {name: {} for name in classes}
    for index, attempt in enumerate(attempts):
        participant = attempt.get("participantId")
        if type(participant) is not str or not participant.strip():
            raise ApconformError(
                errors.DESIGN_PARTICIPANTS,
                f"calibration attempt {attempt['id']!r} names no participantId, so the "
                "participant level of the calibration is unknown",
                path=f"$.manifest.baseline.attempts[{index}].participantId",
            )
        per_class = seen[attempt["classId"]]
        per_class[participant] = per_class.get(participant, 0) + 1
    distinct = {name for per_class in seen.values() for name in per_class}
    if len(distinct) < 2:
        raise ApconformError(
            errors.DESIGN_PARTICIPANTS,
            f"the whole suite is calibrated by {len(distinct)} participant; a population "
            "interval needs at least 2",
            path="$.manifest.baseline.attempts",
        )
    per_class_counts = [len(seen[name]) for name in classes]
    per_participant = [count for name in classes for count in seen[name].values()]
    return len(distinct), per_class_counts, per_participant, len(attempts)


def as_json(value: Any) -> Any:
    """A generated model as its JSON value; anything else as it is."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def score_comparison(
    manifest: Any, comparison: Any, options: Any
) -> tuple[dict[str, Any], dict[str, Any], list[ScoredPair]]:
    """The manifest as JSON, the APx 0.1 promotion and the scored pairs (kernel refusals)."""
    manifest = as_json(manifest)
    promotion, scored = compare_scored(manifest, comparison, options)
    return manifest, promotion, scored


def read_campaigns(
    manifest: dict[str, Any], promotion: dict[str, Any], scored: list[ScoredPair]
) -> Campaigns:
    """The design of scored campaigns; refuses too few families or pairs, then participants."""
    classes: list[str] = []
    sizes: dict[str, int] = {}
    for slot in manifest["suite"]["slots"]:
        if slot["classId"] not in sizes:
            classes.append(slot["classId"])
            sizes[slot["classId"]] = 0
        sizes[slot["classId"]] += 1
    check_levels(len(classes), len(scored))
    participants, per_class, per_participant, attempts = _participants(manifest, classes)
    sides = []
    for side in ("parent", "candidate"):
        results = [getattr(pair, side) for pair in scored]
        work = tuple(
            tuple(float(result["perClass"][name]["creditedHumanHours"]) for name in classes)
            for result in results
        )
        hours = tuple(float(result["wallHours"]) for result in results)
        sides.append(Side(work, hours))
    counts = Counts(
        families=len(classes),
        instances=len(manifest["suite"]["slots"]),
        participants=participants,
        calibration_attempts=attempts,
        pairs=len(scored),
        instances_per_family=tuple(sizes[name] for name in classes),
        participants_per_class=tuple(per_class),
        attempts_per_participant=tuple(per_participant),
    )
    design = Design(families=len(classes), parent=sides[0], candidate=sides[1])
    return Campaigns(design, counts, promotion, manifest)
