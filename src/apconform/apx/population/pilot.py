"""Variance components estimated from a pilot campaign's manifest and receipts.

Estimates are moments, rough with a small pilot, and every gap is reported in
``notes`` (never silently filled):

- Human calibration, on natural logs of attempt hours, nested by class and
  participant: attemptHours from the pooled variance within participants,
  participantHours from the variance of participant means within classes less
  the attempt share, familyHours from the variance of class means less the
  participant share (each truncated at 0); humanAcceptance is the accepted
  share of all attempts.
- Elapsed time: runTime is the pooled SD of log wall hours within each side;
  APx receipts hold one time per campaign, so taskTime is 0 (its variation is
  inside runTime).
- Acceptance, on the probit scale, from tetrachoric moments of the credited
  flags: for two slot outcomes sharing a level, P(both credited) =
  Phi2(h, h; rho) with h = Phi^-1(p) and rho the shared share of the latent
  variance. Pairs of outcomes of one slot in different runs share family and
  instance (rho_A), of one family in different slots and runs share the
  family (rho_B), of one run in different families share the run (rho_C); on
  the parent side V = 1 / (1 - rho_A - rho_C), familyAcceptance^2 = rho_B V,
  instanceAcceptance^2 = (rho_A - rho_B) V, runAcceptance^2 = rho_C V; on the
  candidate side the family share less the parent's family variance gives
  familyImprovement^2. Phi2(h, h; rho) = Phi(h)^2 + (1 / 2 pi) times the
  integral over theta from 0 to asin(rho) of exp(-h^2 / (1 + sin theta)),
  computed by Simpson's rule with 200 intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

from apconform.apx.errors import ApxRefused
from apconform.apx.kernel import compare_scored
from apconform.apx.population import errors
from apconform.apx.population.campaigns import as_json
from apconform.apx.population.model import Components
from apconform.core.errors import ApconformError, Violation

__all__ = ["estimate_components"]

_NORMAL = NormalDist()
_STEPS = 200


def _both(h: float, rho: float) -> float:
    """Phi2(h, h; rho): both of two standard normals with correlation rho are below h."""
    top = math.asin(rho)
    step = top / _STEPS
    total = 0.0
    for i in range(_STEPS + 1):
        weight = 1 if i in (0, _STEPS) else (4 if i % 2 else 2)
        total += weight * math.exp(-h * h / (1.0 + math.sin(i * step)))
    return _NORMAL.cdf(h) ** 2 + total * step / 3.0 / (2.0 * math.pi)


def _correlation(h: float, both: float) -> float:
    """The rho in [0, 0.999] with Phi2(h, h; rho) = both (bisection; clamped at the ends)."""
    low, high = 0.0, 0.999
    if both <= _both(h, low):
        return 0.0
    if both >= _both(h, high):
        return high
    for _ in range(60):
        middle = (low + high) / 2.0
        if _both(h, middle) < both:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


Flags = list[list[list[int]]]
"""flags[r][f][s]: 1 when slot s of family f was credited in the run of pair r."""


def _moments(flags: Flags) -> tuple[float, float, float, float]:
    """The credited share and the three pair moments (same slot; same family; same run)."""
    runs = len(flags)
    families = len(flags[0])
    total = cells = 0
    slot_pairs = slot_count = family_pairs = family_count = run_pairs = run_count = 0
    for f in range(families):
        n = len(flags[0][f])
        column_sums = [sum(flags[r][f][s] for r in range(runs)) for s in range(n)]
        row_sums = [sum(flags[r][f]) for r in range(runs)]
        ones = sum(column_sums)
        total += ones
        cells += runs * n
        slot_pairs += sum(c * c for c in column_sums) - ones
        slot_count += n * runs * (runs - 1)
        family_pairs += (
            ones * ones - sum(x * x for x in row_sums) - sum(c * c for c in column_sums) + ones
        )
        family_count += runs * n * (runs - 1) * (n - 1)
    for r in range(runs):
        family_sums = [sum(flags[r][f]) for f in range(families)]
        sizes = [len(flags[r][f]) for f in range(families)]
        run_pairs += sum(family_sums) ** 2 - sum(x * x for x in family_sums)
        run_count += sum(sizes) ** 2 - sum(x * x for x in sizes)

    def share(pairs: int, count: int) -> float:
        return pairs / count if count else math.nan

    return (
        total / cells,
        share(slot_pairs, slot_count),
        share(family_pairs, family_count),
        share(run_pairs, run_count),
    )


def _acceptance(
    flags: Flags, side: str, notes: list[str]
) -> tuple[float, float, float, float] | None:
    """(V, family share, instance variance, run variance) of one side, or None (noted)."""
    p, same_slot, same_family, same_run = _moments(flags)
    if not 0.0 < p < 1.0:
        notes.append(
            f"the pilot's {side} runs credited {'every' if p == 1 else 'no'} slot, so its "
            "acceptance components cannot be estimated; they are set to 0"
        )
        return None
    h = _NORMAL.inv_cdf(p)
    rho_a = _correlation(h, same_slot) if not math.isnan(same_slot) else 0.0
    rho_b = _correlation(h, same_family) if not math.isnan(same_family) else 0.0
    rho_c = _correlation(h, same_run) if not math.isnan(same_run) else 0.0
    if math.isnan(same_family):
        notes.append(f"no family of the pilot has two slots; the {side} family share is 0")
    rho_b = min(rho_b, rho_a)
    left = 1.0 - rho_a - rho_c
    if left <= 0.01:
        notes.append(
            f"the {side} runs leave almost no slot-level noise; the latent variance is capped"
        )
        left = 0.01
    variance = 1.0 / left
    return variance, rho_b * variance, (rho_a - rho_b) * variance, rho_c * variance


def _variance(groups: Sequence[Sequence[float]]) -> tuple[float, int]:
    """Pooled within-group variance and its degrees of freedom."""
    squares, dof = 0.0, 0
    for group in groups:
        if len(group) > 1:
            mean = sum(group) / len(group)
            squares += sum((x - mean) ** 2 for x in group)
            dof += len(group) - 1
    return (squares / dof if dof else 0.0), dof


def _hours(manifest: Mapping[str, Any], notes: list[str]) -> tuple[float, float, float, float]:
    """(familyHours, participantHours, attemptHours, humanAcceptance) from the calibration."""
    classes: dict[str, dict[str, list[float]]] = {}
    accepted = attempts = 0
    for index, attempt in enumerate(manifest["baseline"]["attempts"]):
        participant = attempt.get("participantId")
        if type(participant) is not str:
            raise ApconformError(
                errors.PILOT_DESIGN,
                f"pilot calibration attempt {attempt['id']!r} names no participantId",
                path=f"$.pilot.manifest.baseline.attempts[{index}].participantId",
            )
        classes.setdefault(attempt["classId"], {}).setdefault(participant, []).append(
            math.log(attempt["hours"])
        )
        attempts += 1
        accepted += bool(attempt["accepted"])
    within, within_dof = _variance([p for c in classes.values() for p in c.values()])
    if within_dof == 0:
        notes.append(
            "every pilot participant made one attempt per class, so attempt and participant "
            "variation are not separated: attemptHours is 0 and participantHours holds both"
        )
    per_participant = [sum(len(p) for p in c.values()) / len(c) for c in classes.values()]
    mean_attempts = sum(per_participant) / len(per_participant)
    means = [[sum(p) / len(p) for p in c.values()] for c in classes.values()]
    between, between_dof = _variance(means)
    if between_dof == 0:
        notes.append("no pilot class has two participants; participantHours is 0")
    participant = max(0.0, between - within / mean_attempts) if between_dof else 0.0
    class_means = [sum(m) / len(m) for m in means]
    family_raw, _ = _variance([class_means])
    mean_participants = sum(len(c) for c in classes.values()) / len(classes)
    family = max(0.0, family_raw - (participant + within / mean_attempts) / mean_participants)
    return math.sqrt(family), math.sqrt(participant), math.sqrt(within), accepted / attempts


def estimate_components(pilot: Mapping[str, Any]) -> tuple[Components, list[str]]:
    """The components a pilot {manifest, comparison} supports, and notes on every gap."""
    manifest, comparison = as_json(pilot["manifest"]), as_json(pilot["comparison"])
    try:
        _, scored = compare_scored(manifest, comparison)
    except ApxRefused as refused:
        raise ApxRefused(
            [
                Violation(v.code, "$.pilot" + v.path[1:], v.message, v.hint)
                for v in refused.violations
            ],
            what="pilot",
        ) from None
    if len(scored) < 2:
        raise ApconformError(
            errors.PILOT_DESIGN,
            f"the pilot has {len(scored)} pair; the run components need at least 2",
            path="$.pilot.comparison.pairs",
        )
    order: list[str] = []
    slots: dict[str, list[str]] = {}
    for slot in manifest["suite"]["slots"]:
        if slot["classId"] not in slots:
            order.append(slot["classId"])
            slots[slot["classId"]] = []
        slots[slot["classId"]].append(slot["id"])
    if len(order) < 2:
        raise ApconformError(
            errors.PILOT_DESIGN,
            "the pilot has one task family; the family components need at least 2",
            path="$.pilot.manifest.suite.slots",
        )
    notes: list[str] = []
    family_h, participant_h, attempt_h, human = _hours(manifest, notes)
    sides: dict[str, Flags] = {}
    log_hours: dict[str, list[float]] = {}
    for side in ("parent", "candidate"):
        flags: Flags = []
        for pair in scored:
            credited = {item["slotId"] for item in getattr(pair, side)["credited"]}
            flags.append([[int(s in credited) for s in slots[c]] for c in order])
        sides[side] = flags
        log_hours[side] = [math.log(getattr(pair, side)["wallHours"]) for pair in scored]
    run_var, _ = _variance(list(log_hours.values()))
    notes.append(
        "APx receipts record one elapsed time per campaign: taskTime is 0 and all time "
        "variation is in runTime"
    )
    parent = _acceptance(sides["parent"], "parent", notes)
    candidate = _acceptance(sides["candidate"], "candidate", notes)
    family_a = instance_a = run_a = improvement = 0.0
    if parent is not None:
        _, family_v, instance_v, run_v = parent
        family_a, instance_a, run_a = (
            math.sqrt(max(0.0, x)) for x in (family_v, instance_v, run_v)
        )
        if candidate is not None:
            improvement = math.sqrt(max(0.0, candidate[1] - family_v))
    components = Components(
        familyAcceptance=min(family_a, 5.0),
        familyImprovement=min(improvement, 5.0),
        instanceAcceptance=min(instance_a, 5.0),
        runAcceptance=min(run_a, 5.0),
        runTime=min(math.sqrt(run_var), 5.0),
        taskTime=0.0,
        familyHours=min(family_h, 5.0),
        participantHours=min(participant_h, 5.0),
        attemptHours=min(attempt_h, 5.0),
        humanAcceptance=max(human, 0.05),
    )
    return components, notes
