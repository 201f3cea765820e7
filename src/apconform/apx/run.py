"""Validating a run receipt against a validated manifest, in the contract's order."""

from __future__ import annotations

from collections import Counter
from typing import Any

from apconform.apx import errors
from apconform.apx.checks import MISSING, RESERVED, Checks, is_text, js_set_key, strict_equal
from apconform.apx.errors import Collector
from apconform.apx.hashing import COMPONENTS
from apconform.apx.measured import check_measured_evidence, has_verified_independent

__all__ = [
    "ASSISTANCE_MODES",
    "EVIDENCE_KINDS",
    "SAFETY",
    "WALL_SEGMENTS",
    "check_run",
]

Path = tuple[str | int, ...]

ASSISTANCE_MODES = ("autonomous", "evaluation-only", "supervised", "collaborative")
WALL_SEGMENTS = ("executionHours", "retryHours", "reviewHours", "blockingWaitHours", "otherHours")
SAFETY = ("pass", "fail", "unknown")
EVIDENCE_KINDS = ("test-receipt", "human-adjudication", "ruclip-adjudication", "ruclip-clip")
_ADJUDICATIONS = ("human-adjudication", "ruclip-adjudication")
_VERIFICATION = ("verified", "unreviewed")
_WHITESPACE = frozenset("\t\n\v\f\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff")


def check_run(run: Any, manifest: Any, where: Path, collector: Collector) -> bool:
    """Run every run check (the manifest was checked before); True when the run is valid.

    ``manifest`` may itself be invalid when all violations are being gathered:
    checks that compare the run with a broken part of it are then skipped.
    """
    checks = Checks(collector)
    before = len(collector.violations)
    if not checks.object(run, "run", where):
        return False
    get = run.get
    checks.string(get("id", MISSING), "run.id", (*where, "id"))
    checks.string(get("independenceId", MISSING), "run.independenceId", (*where, "independenceId"))
    kind = get("kind", MISSING)
    checks.enum(kind, ("synthetic", "measured"), "run.kind", (*where, "kind"))
    mode = get("assistanceMode", MISSING)
    checks.enum(mode, ASSISTANCE_MODES, "assistanceMode", (*where, "assistanceMode"))
    parts = manifest if type(manifest) is dict else {}
    for key in COMPONENTS:
        component = parts.get(key)
        if type(component) is dict and not strict_equal(
            get(f"{key}Hash", MISSING), component.get("hash", MISSING)
        ):
            collector.add(errors.RUN_HASH, (*where, f"{key}Hash"), f"run {key}Hash mismatch")
    suite = parts.get("suite")
    if type(suite) is dict and not strict_equal(
        get("partition", MISSING), suite.get("partition", MISSING)
    ):
        collector.add(errors.RUN_PARTITION, (*where, "partition"), "run partition mismatch")
    wall = get("wallHours", MISSING)
    wall_ok = checks.number(wall, "wallHours", (*where, "wallHours"), 0.000000001, 1_000_000)
    checks.number(
        get("agentRuntimeHours", MISSING),
        "agentRuntimeHours",
        (*where, "agentRuntimeHours"),
        0,
        1_000_000_000,
    )
    human = get("humanReviewHours", MISSING)
    human_ok = checks.number(
        human, "humanReviewHours", (*where, "humanReviewHours"), 0, 1_000_000_000
    )
    checks.number(get("costUSD", MISSING), "costUSD", (*where, "costUSD"), 0, 1_000_000_000_000)
    if mode == "autonomous" and human_ok and human != 0:
        collector.add(
            errors.AUTONOMOUS,
            (*where, "humanReviewHours"),
            "autonomous mode cannot hide human review; use evaluation-only or supervised",
        )
    _check_wall(
        get("wallBreakdown", MISSING), wall if wall_ok else None, human_ok, run, where, checks
    )
    violations = get("policyViolations", MISSING)
    at = (*where, "policyViolations")
    if checks.array(violations, "policyViolations", at, 100):
        for index, text in enumerate(violations):
            checks.string(text, "policy violation", (*at, index), 2048)
    outcomes = get("outcomes", MISSING)
    if checks.array(outcomes, "outcomes", (*where, "outcomes"), 1000, 1):
        slot_ids = _slot_ids(parts)
        evaluator = parts.get("evaluator")
        evaluator_hash = evaluator.get("hash", MISSING) if type(evaluator) is dict else MISSING
        _check_outcomes(
            outcomes,
            slot_ids,
            kind == "measured",
            get("id", MISSING),
            evaluator_hash,
            (*where, "outcomes"),
            checks,
        )
    return len(collector.violations) == before


def _slot_ids(manifest: dict[str, Any]) -> list[str] | None:
    suite = manifest.get("suite")
    slots = suite.get("slots") if type(suite) is dict else None
    if type(slots) is not list:
        return None
    ids = [slot.get("id") if type(slot) is dict else None for slot in slots]
    if not all(is_text(value) and value not in RESERVED for value in ids):
        return None  # the suite's own violations are reported; coverage cannot be judged
    return [str(value) for value in ids]


def _check_wall(
    breakdown: Any,
    wall: float | None,
    human_ok: bool,
    run: dict[str, Any],
    where: Path,
    checks: Checks,
) -> None:
    at = (*where, "wallBreakdown")
    if not checks.object(breakdown, "wallBreakdown", at):
        return
    good = all(
        [
            checks.number(
                breakdown.get(name, MISSING), f"wallBreakdown.{name}", (*at, name), 0, 1_000_000
            )
            for name in WALL_SEGMENTS
        ]
    )
    if not good:
        return
    if wall is not None:
        total: float = 0
        for name in WALL_SEGMENTS:
            total += breakdown[name]
        if abs(wall - total) > max(0.000000001, wall * 0.000000001):
            checks.collector.add(errors.WALL_SUM, at, "wallBreakdown does not sum to total")
    if human_ok and run["humanReviewHours"] + 0.000000001 < breakdown["reviewHours"]:
        checks.collector.add(
            errors.REVIEW_HOURS,
            (*where, "humanReviewHours"),
            "humanReviewHours cannot be less than elapsed reviewHours",
        )


def _check_outcomes(
    outcomes: list[Any],
    slot_ids: list[str] | None,
    measured: bool,
    run_id: Any,
    evaluator_hash: Any,
    at: Path,
    checks: Checks,
) -> None:
    collector = checks.collector
    # The contract reads every slotId before checking any outcome; a null outcome
    # breaks that read (a TypeError there), so it is refused here, by name.
    ids: list[Any] = []
    nulls = False
    for index, outcome in enumerate(outcomes):
        if outcome is None:
            checks.object(outcome, "outcome", (*at, index))
            nulls = True
        ids.append(outcome.get("slotId", MISSING) if type(outcome) is dict else MISSING)
    if not nulls:
        unique = checks.unique(ids, "outcome slot IDs", at)
        if unique and slot_ids is not None and not _covers(ids, slot_ids):
            collector.add(
                errors.COVERAGE,
                at,
                "outcomes must include every frozen task slot, including failures",
            )
    for index, outcome in enumerate(outcomes):
        if outcome is not None:
            _check_outcome(outcome, measured, run_id, evaluator_hash, (*at, index), checks)


def _covers(ids: list[Any], slot_ids: list[str]) -> bool:
    """The outcomes' slot ids are exactly the suite's (compared as the contract does, sorted)."""
    if len(ids) != len(slot_ids) or not all(type(value) is str for value in ids):
        return False
    return set(ids) == set(slot_ids) or Counter(ids) == Counter(slot_ids)


def _check_outcome(
    outcome: Any,
    measured: bool,
    run_id: Any,
    evaluator_hash: Any,
    where: Path,
    checks: Checks,
) -> None:
    if not checks.object(outcome, "outcome", where):
        return
    get = outcome.get
    checks.string(get("slotId", MISSING), "outcome.slotId", (*where, "slotId"))
    checks.boolean(get("accepted", MISSING), "outcome.accepted", (*where, "accepted"))
    checks.number(get("quality", MISSING), "outcome.quality", (*where, "quality"), 0, 1)
    checks.enum(get("safety", MISSING), SAFETY, "outcome.safety", (*where, "safety"))
    deliverable = get("deliverableId", MISSING)
    if deliverable is not None:
        checks.string(deliverable, "deliverableId", (*where, "deliverableId"))
    artifact = get("artifactHash", MISSING)
    if artifact is not None:
        checks.digest(artifact, "artifactHash", (*where, "artifactHash"))
    provenance = get("provenance", MISSING)
    at = (*where, "provenance")
    if not checks.array(provenance, "outcome.provenance", at, 100):
        return
    for index, evidence in enumerate(provenance):
        _check_evidence(evidence, outcome, measured, run_id, evaluator_hash, (*at, index), checks)
    if measured and get("accepted") is True and not has_verified_independent(provenance):
        checks.collector.add(
            errors.EVIDENCE_VERIFIED,
            at,
            "measured accepted outcome requires verified independent adjudication",
        )
    ids = [entry.get("id", MISSING) if type(entry) is dict else MISSING for entry in provenance]
    if len({js_set_key(value) for value in ids}) != len(ids):
        checks.collector.add(
            errors.DUPLICATE, at, "evidence IDs within outcome contains duplicates"
        )


def _check_evidence(
    evidence: Any,
    outcome: dict[str, Any],
    measured: bool,
    run_id: Any,
    evaluator_hash: Any,
    where: Path,
    checks: Checks,
) -> None:
    if not checks.object(evidence, "evidence", where):
        return
    get = evidence.get
    checks.string(get("id", MISSING), "evidence.id", (*where, "id"))
    checks.digest(get("hash", MISSING), "evidence.hash", (*where, "hash"))
    kind = get("kind", MISSING)
    checks.enum(kind, EVIDENCE_KINDS, "evidence.kind", (*where, "kind"))
    checks.enum(
        get("verification", MISSING),
        _VERIFICATION,
        "evidence.verification",
        (*where, "verification"),
    )
    if kind in _ADJUDICATIONS:
        checks.string(get("reviewerId", MISSING), "evidence.reviewerId", (*where, "reviewerId"))
    if measured:
        check_measured_evidence(evidence, outcome, run_id, evaluator_hash, where, checks)
