"""Comparing paired campaigns and writing the apx-promotion/0.1 recommendation.

The regression gates and reasons come in the contract's order, every
comparison with its 1e-12 slack, every sum term by term in pair order (so
the same documents give the same promotion on every platform). A promotion
only recommends: ``deployAuthorized`` is always false.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from apconform.apx import text
from apconform.apx.bootstrap import bootstrap_deltas, percentile

__all__ = ["ScoredPair", "build_promotion"]

_SLACK = 1e-12


@dataclass(frozen=True)
class ScoredPair:
    """One validated pair: its two runs and their result documents."""

    independence_id: str
    parent_run: dict[str, Any]
    candidate_run: dict[str, Any]
    parent: dict[str, Any]
    candidate: dict[str, Any]


def _total(values: list[float]) -> float:
    """Left-to-right sum from zero, as the contract adds (never compensated)."""
    total: float = 0
    for value in values:
        total += value
    return total


def _divide(numerator: float, denominator: float) -> float:
    """ECMAScript division: x / 0 is Infinity (or NaN for 0 / 0) instead of an error."""
    if denominator == 0:
        return math.nan if numerator == 0 or math.isnan(numerator) else math.inf
    return numerator / denominator


def _aggregate_power(results: list[dict[str, Any]]) -> float:
    return _total([r["creditedHumanHours"] for r in results]) / _total(
        [r["wallHours"] for r in results]
    )


def _regressions(manifest: dict[str, Any], pairs: list[ScoredPair], cap: float | None) -> list[str]:
    parents = [pair.parent for pair in pairs]
    candidates = [pair.candidate for pair in pairs]
    reasons: list[str] = []
    if _total([r["supervisionHours"] for r in candidates]) > (
        _total([r["supervisionHours"] for r in parents]) + _SLACK
    ):
        reasons.append("total human review hours regression")
    for pair in pairs:
        limit = (
            pair.parent["supervisionHours"]
            if cap is None
            else min(pair.parent["supervisionHours"], cap)
        )
        if pair.candidate["supervisionHours"] > limit + _SLACK:
            reasons.append(f"{pair.independence_id}: campaign human labor cap exceeded")
    reasons.extend(_slot_regressions(manifest, pairs))
    reasons.extend(_class_regressions(parents, candidates))
    if (
        _total([r["costUSD"] for r in candidates])
        > _total([r["costUSD"] for r in parents]) + _SLACK
    ):
        reasons.append("total campaign cost regression")
    parent_rate = _divide(
        _total([r["costUSD"] for r in parents]), _total([r["creditedHumanHours"] for r in parents])
    )
    candidate_rate = _divide(
        _total([r["costUSD"] for r in candidates]),
        _total([r["creditedHumanHours"] for r in candidates]),
    )
    if candidate_rate > parent_rate + _SLACK:
        reasons.append("cost per credited human hour regression")
    return reasons


def _slot_stats(runs: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per slot over the campaigns of one side: credited count, quality sum, safety failures."""
    stats: dict[str, list[Any]] = {}
    for run, result in zip(runs, results, strict=True):
        credited = {item["slotId"] for item in result["credited"]}
        first: dict[str, dict[str, Any]] = {}
        for outcome in run["outcomes"]:
            first.setdefault(outcome["slotId"], outcome)
        for slot_id, outcome in first.items():
            entry = stats.setdefault(slot_id, [0, 0, 0])
            if slot_id in credited:
                entry[0] += 1
                entry[1] += outcome["quality"]
            if outcome["safety"] == "fail":
                entry[2] += 1
    return stats


def _slot_regressions(manifest: dict[str, Any], pairs: list[ScoredPair]) -> list[str]:
    parent = _slot_stats([p.parent_run for p in pairs], [p.parent for p in pairs])
    candidate = _slot_stats([p.candidate_run for p in pairs], [p.candidate for p in pairs])
    reasons = []
    for slot in manifest["suite"]["slots"]:
        slot_id = slot["id"]
        p_count, p_quality, p_safety = parent[slot_id]
        c_count, c_quality, c_safety = candidate[slot_id]
        p_mean = p_quality / p_count if p_count else 0
        c_mean = c_quality / c_count if c_count else 0
        if c_count < p_count:
            reasons.append(f"{slot_id}: task acceptance regression")
        if c_mean + _SLACK < p_mean:
            reasons.append(f"{slot_id}: task quality regression")
        if c_safety > p_safety:
            reasons.append(f"{slot_id}: task safety regression")
    return reasons


def _class_side(results: list[dict[str, Any]], class_id: str) -> tuple[float, float, float]:
    stats = [result["perClass"][class_id] for result in results]
    tasks = _total([item["tasks"] for item in stats])
    credits = _total([item["credited"] for item in stats])
    quality = _total([item["acceptedQualitySum"] for item in stats]) / credits if credits else 0
    return credits / tasks, quality, _total([item["safetyFailures"] for item in stats])


def _class_regressions(
    parents: list[dict[str, Any]], candidates: list[dict[str, Any]]
) -> list[str]:
    reasons = []
    for class_id in parents[0]["perClass"]:
        p_rate, p_quality, p_safety = _class_side(parents, class_id)
        c_rate, c_quality, c_safety = _class_side(candidates, class_id)
        if c_rate < p_rate:
            reasons.append(f"{class_id}: acceptance regression")
        if c_quality + _SLACK < p_quality:
            reasons.append(f"{class_id}: accepted quality regression")
        if c_safety > p_safety:
            reasons.append(f"{class_id}: safety regression")
    return reasons


def build_promotion(
    manifest: dict[str, Any], pairs: list[ScoredPair], iterations: int, seed: int
) -> dict[str, Any]:
    """The promotion document of validated, scored pairs."""
    parents = [pair.parent for pair in pairs]
    candidates = [pair.candidate for pair in pairs]
    parent_power = _aggregate_power(parents)
    candidate_power = _aggregate_power(candidates)
    delta = (
        math.log2(candidate_power / parent_power)
        if parent_power > 0 and candidate_power > 0
        else None
    )
    interval: dict[str, Any] | None = None
    if len(pairs) >= 5 and delta is not None:
        samples = bootstrap_deltas(
            [(r["creditedHumanHours"], r["wallHours"]) for r in parents],
            [(r["creditedHumanHours"], r["wallHours"]) for r in candidates],
            iterations,
            seed,
        )
        if samples:
            interval = {
                "lower": percentile(samples, 0.025),
                "upper": percentile(samples, 0.975),
                "confidence": 0.95,
                "iterations": iterations,
                "seed": seed,
                "method": text.METHOD,
                "conditionalOn": text.CONDITIONAL_ON,
            }
    evaluator = manifest["evaluator"]
    cap = evaluator.get("humanReviewHoursCap")
    reasons = _regressions(manifest, pairs, cap)
    suite = manifest["suite"]
    if suite["partition"] != "holdout":
        reasons.append("promotion requires a separate frozen holdout suite")
    if any(r["eligibility"] != "ELIGIBLE" for r in [*parents, *candidates]):
        reasons.append("policy violation")
    if any(
        stats["safetyFailures"] for result in candidates for stats in result["perClass"].values()
    ):
        reasons.append("candidate has safety failures")
    if interval is None:
        reasons.append(
            "at least five independent paired campaigns with positive bootstrap powers required"
        )
    elif interval["lower"] <= 0:
        reasons.append("lower 95% APx improvement bound must exceed zero")
    synthetic = any(r["status"] == "synthetic" for r in [*parents, *candidates])
    return {
        "schemaVersion": "apx-promotion/0.1",
        "status": "synthetic" if synthetic else "pilot",
        "certified": False,
        "decision": "REJECT" if reasons else "PROMOTE",
        "deployAuthorized": False,
        "parentAP": parent_power,
        "candidateAP": candidate_power,
        "deltaAPx": delta,
        "interval": interval,
        "campaigns": len(pairs),
        "reasons": reasons,
        "selectionId": suite["selectionId"],
        "holdoutId": suite["holdoutId"],
        "limitation": text.PROMOTION_LIMITATION,
    }
