"""Validating a frozen manifest, in the contract's order, and calibrating each task class.

The checks run in exactly the order of the APx 0.1 reference kernel, so the
first violation recorded is the one it would throw. Unlike the reference,
checking continues: later checks run whenever the values they read are
themselves valid, so every independent fault is reported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from apconform.apx import errors
from apconform.apx.checks import MISSING, RESERVED, Checks
from apconform.apx.errors import Collector
from apconform.apx.hashing import COMPONENTS, component_digest, digest
from apconform.apx.measured import check_measured_baseline

__all__ = ["ClassCalibration", "ManifestFacts", "check_manifest"]

Path = tuple[str | int, ...]

SCHEMA_VERSION = "apx/0.1"
MAX_SLOTS = 1000
MAX_ATTEMPTS = 10_000
_WHITESPACE = frozenset("\t\n\v\f\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff")


@dataclass(frozen=True)
class ClassCalibration:
    """H for one task class: all attempts' hours over the accepted attempts."""

    referenceHumanHours: float
    attempts: int
    accepted: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "referenceHumanHours": self.referenceHumanHours,
            "attempts": self.attempts,
            "accepted": self.accepted,
        }


@dataclass
class ManifestFacts:
    """What later stages read from a manifest that passed validation."""

    manifest: dict[str, Any]
    calibration: dict[str, ClassCalibration]
    slot_classes: dict[str, str]
    slot_ids: list[str]
    hashes: dict[str, Any] = field(default_factory=dict)


def _quick_id(value: Any) -> bool:
    """The common case of an identifier, decided without a function call per rule."""
    return (
        type(value) is str
        and 0 < len(value) <= 128
        and value[0] not in _WHITESPACE
        and value not in RESERVED
    )


def check_manifest(manifest: Any, where: Path, collector: Collector) -> ManifestFacts | None:
    """Run every manifest check; return the facts when the manifest is valid, else None."""
    checks = Checks(collector)
    if not checks.object(manifest, "manifest", where):
        return None
    if manifest.get("schemaVersion") != SCHEMA_VERSION:
        collector.add(errors.SCHEMA_VERSION, (*where, "schemaVersion"), "unsupported schemaVersion")
    parts: dict[str, dict[str, Any] | None] = {}
    for key in COMPONENTS:
        component = manifest.get(key, MISSING)
        at = (*where, key)
        if not checks.object(component, key, at):
            parts[key] = None
            continue
        parts[key] = component
        checks.string(component.get("version", MISSING), f"{key}.version", (*at, "version"))
        frozen = component.get("hash", MISSING)
        if checks.digest(frozen, f"{key}.hash", (*at, "hash")) and (
            component_digest(component) != frozen
        ):
            collector.add(errors.FROZEN_HASH, (*at, "hash"), f"{key} frozen hash mismatch")
    suite, baseline = parts["suite"], parts["baseline"]
    evaluator, environment = parts["evaluator"], parts["environment"]
    slots = _check_suite(suite, (*where, "suite"), checks) if suite is not None else None
    attempts = None
    if baseline is not None:
        attempts = _check_baseline(baseline, evaluator, (*where, "baseline"), checks)
    calibration: dict[str, ClassCalibration] = {}
    if slots is not None and attempts is not None:
        calibration = _calibrate(slots, attempts, (*where, "suite"), collector)
    if evaluator is not None:
        at = (*where, "evaluator")
        checks.number(
            evaluator.get("qualityThreshold", MISSING),
            "evaluator.qualityThreshold",
            (*at, "qualityThreshold"),
            0,
            1,
        )
        if "humanReviewHoursCap" in evaluator:
            checks.number(
                evaluator["humanReviewHoursCap"],
                "evaluator.humanReviewHoursCap",
                (*at, "humanReviewHoursCap"),
                0,
                1_000_000_000,
            )
        checks.string(evaluator.get("id", MISSING), "evaluator.id", (*at, "id"))
    if environment is not None:
        at = (*where, "environment")
        checks.string(environment.get("id", MISSING), "environment.id", (*at, "id"))
        checks.string(
            environment.get("description", MISSING),
            "environment.description",
            (*at, "description"),
            4096,
        )
    if collector or slots is None:
        return None
    return ManifestFacts(
        manifest=manifest,
        calibration=calibration,
        slot_classes={slot["id"]: slot["classId"] for slot in slots},
        slot_ids=[slot["id"] for slot in slots],
        hashes={key: manifest[key]["hash"] for key in COMPONENTS},
    )


def _check_suite(suite: dict[str, Any], at: Path, checks: Checks) -> list[dict[str, Any]] | None:
    """Suite checks; the slots when all of them are valid (for calibration), else None."""
    collector = checks.collector
    split = [
        checks.string(suite.get(name, MISSING), f"suite.{name}", (*at, name))
        for name in ("id", "selectionId", "holdoutId")
    ]
    if split[1] and split[2] and suite["selectionId"] == suite["holdoutId"]:
        collector.add(
            errors.SPLIT, (*at, "holdoutId"), "selection and holdout IDs must be separate"
        )
    checks.enum(
        suite.get("partition", MISSING),
        ("selection", "holdout"),
        "suite.partition",
        (*at, "partition"),
    )
    slots = suite.get("slots", MISSING)
    if not checks.array(slots, "suite.slots", (*at, "slots"), MAX_SLOTS, 1):
        valid = None
    else:
        valid = _check_slots(slots, (*at, "slots"), checks)
    task_set = suite.get("taskSetHash", MISSING)
    if (
        checks.digest(task_set, "taskSetHash", (*at, "taskSetHash"))
        and type(slots) is list
        and digest(slots) != task_set
    ):
        collector.add(errors.TASK_SET_HASH, (*at, "taskSetHash"), "taskSetHash mismatch")
    return valid


def _check_slots(slots: list[Any], at: Path, checks: Checks) -> list[dict[str, Any]] | None:
    ok = True
    for index, slot in enumerate(slots):
        if type(slot) is dict and _quick_id(slot.get("id")) and _quick_id(slot.get("classId")):
            continue
        ok = False
        if checks.object(slot, "slot", (*at, index)):
            checks.identifier(slot.get("id", MISSING), "slot.id", (*at, index, "id"))
            checks.identifier(slot.get("classId", MISSING), "slot.classId", (*at, index, "classId"))
    if not ok:
        return None
    if not checks.unique([slot["id"] for slot in slots], "suite.slots", at):
        return None
    return slots


def _check_baseline(
    baseline: dict[str, Any], evaluator: dict[str, Any] | None, at: Path, checks: Checks
) -> list[dict[str, Any]] | None:
    """Baseline checks; the attempts when all of them are valid, else None."""
    checks.string(baseline.get("id", MISSING), "baseline.id", (*at, "id"))
    kind = baseline.get("kind", MISSING)
    checks.enum(kind, ("synthetic", "measured"), "baseline.kind", (*at, "kind"))
    cohort = baseline.get("cohort", MISSING)
    if checks.object(cohort, "baseline.cohort", (*at, "cohort")):
        checks.string(cohort.get("id", MISSING), "baseline.cohort.id", (*at, "cohort", "id"))
        for name in ("tools", "skills"):
            values = cohort.get(name, MISSING)
            where = (*at, "cohort", name)
            if checks.array(values, f"cohort.{name}", where, 100, 1):
                for index, value in enumerate(values):
                    checks.string(value, f"cohort.{name}", (*where, index))
    declared = baseline.get("predeclaredAttemptIds", MISSING)
    declared_ok = False
    where = (*at, "predeclaredAttemptIds")
    if checks.array(declared, "baseline.predeclaredAttemptIds", where, MAX_ATTEMPTS, 1):
        declared_ok = all(
            [
                checks.string(value, "baseline attempt ID", (*where, index))
                for index, value in enumerate(declared)
            ]
        )
        declared_ok = checks.unique(declared, "baseline attempt IDs", where) and declared_ok
    attempts = baseline.get("attempts", MISSING)
    valid = None
    if checks.array(attempts, "baseline.attempts", (*at, "attempts"), MAX_ATTEMPTS, 1):
        valid = _check_attempts(attempts, (*at, "attempts"), checks)
    if valid is not None and declared_ok and not _same_ids(declared, valid):
        checks.collector.add(
            errors.PREDECLARED,
            (*at, "attempts"),
            "baseline attempts must match every predeclared attempt, including failures",
        )
    if kind == "measured":
        check_measured_baseline(baseline, evaluator, valid, at, checks)
    return valid


def _check_attempts(attempts: list[Any], at: Path, checks: Checks) -> list[dict[str, Any]] | None:
    ok = True
    for index, attempt in enumerate(attempts):
        if type(attempt) is dict:
            hours: Any = attempt.get("hours")
            if (
                _quick_id(attempt.get("id"))
                and _quick_id(attempt.get("classId"))
                and type(hours) in (float, int)
                and 0.000000001 <= hours <= 1_000_000
                and type(attempt.get("accepted")) is bool
            ):
                continue
        ok = False
        where = (*at, index)
        if not checks.object(attempt, "baseline.attempt", where):
            continue
        checks.identifier(attempt.get("id", MISSING), "attempt.id", (*where, "id"))
        checks.identifier(attempt.get("classId", MISSING), "attempt.classId", (*where, "classId"))
        checks.number(
            attempt.get("hours", MISSING), "attempt.hours", (*where, "hours"), 0.000000001, 1e6
        )
        checks.boolean(attempt.get("accepted", MISSING), "attempt.accepted", (*where, "accepted"))
    if not ok:
        return None
    if not checks.unique([attempt["id"] for attempt in attempts], "baseline attempts", at):
        return None
    return attempts


def _same_ids(declared: list[str], attempts: list[dict[str, Any]]) -> bool:
    """The contract compares the two id lists sorted: equal exactly as multisets."""
    ids = [attempt["id"] for attempt in attempts]
    if len(ids) != len(declared):
        return False
    return set(ids) == set(declared) or Counter(ids) == Counter(declared)


def _calibrate(
    slots: list[dict[str, Any]],
    attempts: list[dict[str, Any]],
    at: Path,
    collector: Collector,
) -> dict[str, ClassCalibration]:
    """H_j per class, in order of the classes' first appearance among the slots."""
    first_slot: dict[str, int] = {}
    for index, slot in enumerate(slots):
        first_slot.setdefault(slot["classId"], index)
    outside = next((a for a in attempts if a["classId"] not in first_slot), None)
    if outside is not None:
        collector.add(
            errors.CLASS_OUTSIDE,
            (*at[:-1], "baseline", "attempts", attempts.index(outside), "classId"),
            "baseline contains a class outside the suite",
        )
    hours: dict[str, list[float]] = {class_id: [] for class_id in first_slot}
    accepted: dict[str, int] = dict.fromkeys(first_slot, 0)
    for attempt in attempts:
        bucket = hours.get(attempt["classId"])
        if bucket is not None:
            bucket.append(attempt["hours"])
            if attempt["accepted"]:
                accepted[attempt["classId"]] += 1
    calibration: dict[str, ClassCalibration] = {}
    for class_id, index in first_slot.items():
        if not accepted[class_id]:
            collector.add(
                errors.UNCALIBRATED,
                (*at, "slots", index, "classId"),
                f"baseline class {class_id} has no accepted attempts; cannot calibrate",
            )
            continue
        total: float = 0
        for value in hours[class_id]:
            total += value
        calibration[class_id] = ClassCalibration(
            total / accepted[class_id], len(hours[class_id]), accepted[class_id]
        )
    return calibration
