"""APx: hours power-metrics can divide, and a campaign (manifest and run) the contract
adapter scores."""

from __future__ import annotations

import json
from typing import Any

from apconform.apx.checks import RESERVED, is_digest, is_text
from apconform.apx.hashing import freeze, rebind
from apconform.apx.manifest import SCHEMA_VERSION
from apconform.apx.run import ASSISTANCE_MODES, EVIDENCE_KINDS, SAFETY, WALL_SEGMENTS
from apconform.core.canonical import sha256_hex

from .shared import Body, _digest, _named, _object


def _hours(value: Any) -> float:
    """A finite number of hours at least 0, from a generated value of any type.

    A number keeps its magnitude; any other value gives the length of its JSON text (at
    least 1), so the number still comes from what was generated.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return abs(value)
    return len(json.dumps(value, ensure_ascii=False, default=str))


def _power_metrics(body: Body) -> None:
    """Hours APx can divide: W a finite number at least 0, T one above 0 (APX-QTY-4).

    The members stay free in the schema (a vector sends a string, refused with the
    operation's own code), so random bodies are almost never numbers; W / T overflowing a
    double is left as generated, the operation's APX-METRIC-OVERFLOW to answer.
    """
    if "creditedHumanHours" in body:
        body["creditedHumanHours"] = _hours(body["creditedHumanHours"])
    if "wallHours" in body:
        wall = _hours(body["wallHours"])
        body["wallHours"] = wall if wall > 0 else len(json.dumps(body["wallHours"]))


APX_SLOTS = 16
"""The most slots a repaired manifest keeps (APx allows 1,000)."""
APX_ATTEMPTS = 32
"""The most generated baseline attempts a repaired manifest keeps (APx allows 10,000)."""
APX_EVIDENCE = 4
"""The most evidence entries a repaired outcome keeps (APx allows 100).

The run needs an outcome per slot and takes the generated outcomes in turn, so one generated
outcome's evidence is repeated for every slot: without these bounds a generated body of 16 kB
(100 slots, 100 attempts, one outcome with 100 evidence entries) was repaired into 1.8 MB, one
of 79 kB (1,000 slots and attempts) into 18 MB. With them a repaired run holds at most 64
evidence entries (that body is repaired into 18 kB)."""


def _apx_text(value: Any, limit: int = 256) -> str:
    """A generated text APx takes as an identifier kept; any other value as a word naming it."""
    if is_text(value, limit) and value not in RESERVED:
        return str(value)
    return f"v{_digest(value)}"


def _apx_hours(value: Any, most: float, least: float = 0) -> float:
    """A number from ``least`` to ``most``: a generated one in range kept, else the number
    ``_hours`` derives from it (its magnitude or its JSON text's length) taken modulo ``most``
    (``most`` itself when that falls below ``least``)."""
    hours = _hours(value)
    if least <= hours <= most:
        return hours
    fitted = hours % most
    return fitted if fitted >= least else most


def _apx_unique(values: list[Any], limit: int = 256) -> list[str]:
    """Each value as an APx text, a repeated one suffixed with its position."""
    out: list[str] = []
    for position, value in enumerate(values):
        text = _apx_text(value, limit)
        out.append(text if text not in out else f"{text[:240]}_{position}")
    return out


def _listed(value: Any) -> list[Any]:
    """A generated non-empty list as it is; any other value as a list holding it."""
    return value if isinstance(value, list) and value else [value]


def _apx_manifest(generated: Any) -> Body:
    """A frozen APx manifest (schemaVersion apx/0.1, synthetic baseline) from generated values.

    Slots keep the first ``APX_SLOTS`` generated slots' ids and classes; each class gets those
    of the first ``APX_ATTEMPTS`` generated attempts pointed at it (the first accepted when
    none is), the predeclared ids are the attempts' own, and the kit's ``freeze`` computes
    taskSetHash and the four component hashes.
    """
    got = _object(generated)
    suite, baseline = _object(got.get("suite")), _object(got.get("baseline"))
    evaluator, environment = _object(got.get("evaluator")), _object(got.get("environment"))
    slots = [_object(s) for s in _listed(suite.get("slots"))][:APX_SLOTS]
    slot_ids = _apx_unique([s.get("id") for s in slots])
    classes = list(dict.fromkeys(_apx_text(s.get("classId")) for s in slots))
    selection = _apx_text(suite.get("selectionId"))
    holdout = _apx_text(suite.get("holdoutId"))
    cohort = _object(baseline.get("cohort"))
    attempts = [_object(a) for a in _listed(baseline.get("attempts"))][:APX_ATTEMPTS]
    attempt_ids = _apx_unique([a.get("id") for a in attempts])
    made: list[Body] = [
        {
            "id": identifier,
            "classId": _named(classes, attempt.get("classId")),
            "hours": _apx_hours(attempt.get("hours"), 1_000_000, 0.000000001),
            "accepted": attempt.get("accepted") is not False,
        }
        for identifier, attempt in zip(attempt_ids, attempts, strict=True)
    ]
    for class_id in classes:  # every class calibrated: its first attempt accepted, or a new one
        own = [a for a in made if a["classId"] == class_id]
        if own and not any(a["accepted"] for a in own):
            own[0]["accepted"] = True
        elif not own:
            made.append({**made[0], "id": f"{made[0]['id'][:200]}_{class_id}"[:256]})
            made[-1].update(classId=class_id, accepted=True)
    manifest = {
        "schemaVersion": SCHEMA_VERSION,
        "suite": {
            "id": _apx_text(suite.get("id")),
            "version": _apx_text(suite.get("version")),
            "selectionId": selection,
            "holdoutId": holdout if holdout != selection else f"{holdout[:200]}_holdout",
            "partition": _named(["selection", "holdout"], suite.get("partition")),
            "slots": [
                {"id": i, "classId": _apx_text(s.get("classId"))}
                for i, s in zip(slot_ids, slots, strict=True)
            ],
        },
        "baseline": {
            "id": _apx_text(baseline.get("id")),
            "version": _apx_text(baseline.get("version")),
            "kind": "synthetic",
            "cohort": {
                "id": _apx_text(cohort.get("id")),
                "tools": [_apx_text(t) for t in _listed(cohort.get("tools"))][:100],
                "skills": [_apx_text(t) for t in _listed(cohort.get("skills"))][:100],
            },
            "predeclaredAttemptIds": [a["id"] for a in made],
            "attempts": made,
        },
        "evaluator": {
            "id": _apx_text(evaluator.get("id")),
            "version": _apx_text(evaluator.get("version")),
            "qualityThreshold": _apx_hours(evaluator.get("qualityThreshold"), 1),
        },
        "environment": {
            "id": _apx_text(environment.get("id")),
            "version": _apx_text(environment.get("version")),
            "description": _apx_text(environment.get("description"), 4096),
        },
    }
    return freeze(manifest)


def _apx_run(generated: Any, manifest: Body) -> Body:
    """A synthetic run of the manifest from generated values: its hashes and partition, the
    wall hours the sum of the generated breakdown, an outcome per slot (generated ones in turn)."""
    got = _object(generated)
    mode = _named(list(ASSISTANCE_MODES), got.get("assistanceMode"))
    breakdown = _object(got.get("wallBreakdown"))
    wall = {name: _apx_hours(breakdown.get(name), 1_000) for name in WALL_SEGMENTS}
    if mode == "autonomous":
        wall["reviewHours"] = 0
    if sum(wall.values()) <= 0.000000001:
        wall["executionHours"] = float(len(json.dumps(breakdown, default=str)))
    total: float = 0
    for name in WALL_SEGMENTS:
        total += wall[name]
    human = _apx_hours(got.get("humanReviewHours"), 1_000_000)
    outcomes = [_object(o) for o in _listed(got.get("outcomes"))]
    slots = manifest["suite"]["slots"]
    run = {
        "id": _apx_text(got.get("id")),
        "independenceId": _apx_text(got.get("independenceId")),
        "kind": "synthetic",
        "assistanceMode": mode,
        "partition": manifest["suite"]["partition"],
        "wallHours": total,
        "wallBreakdown": wall,
        "agentRuntimeHours": _apx_hours(got.get("agentRuntimeHours"), 1_000_000),
        "humanReviewHours": 0 if mode == "autonomous" else max(human, wall["reviewHours"]),
        "costUSD": _apx_hours(got.get("costUSD"), 1_000_000),
        "policyViolations": [
            _apx_text(v, 2048) for v in got.get("policyViolations") or [] if v is not None
        ][:100]
        if isinstance(got.get("policyViolations"), list)
        else [],
        "outcomes": [
            _apx_outcome(outcomes[position % len(outcomes)], slot["id"])
            for position, slot in enumerate(slots)
        ],
    }
    return dict(rebind(manifest, run))


def _apx_outcome(got: Body, slot_id: str) -> Body:
    """One slot's outcome: generated flags kept where they have the form, its evidence (the
    first ``APX_EVIDENCE`` generated entries) with unique ids and digests of the generated
    entries."""
    provenance = got.get("provenance")
    entries = (
        [_object(e) for e in provenance][:APX_EVIDENCE] if isinstance(provenance, list) else []
    )
    ids = _apx_unique([e.get("id") for e in entries])
    evidence = []
    for identifier, entry in zip(ids, entries, strict=True):
        kind = _named(list(EVIDENCE_KINDS), entry.get("kind"))
        made = {
            "id": identifier,
            "hash": entry["hash"] if is_digest(entry.get("hash")) else sha256_hex(entry),
            "kind": kind,
            "verification": _named(["verified", "unreviewed"], entry.get("verification")),
        }
        if kind.endswith("-adjudication"):
            made["reviewerId"] = _apx_text(entry.get("reviewerId"))
        evidence.append(made)
    return {
        "slotId": slot_id,
        "accepted": got.get("accepted") is True,
        "quality": _apx_hours(got.get("quality"), 1),
        "safety": _named(list(SAFETY), got.get("safety")),
        "deliverableId": None
        if got.get("deliverableId") is None
        else _apx_text(got["deliverableId"]),
        "artifactHash": got["artifactHash"] if is_digest(got.get("artifactHash")) else None,
        "provenance": evidence,
    }


def _apx_adapter(body: Body) -> None:
    """A campaign the contract adapter scores: the manifest an APx one, the run one of it.

    The route takes any manifest and run (a vector sends ones that break an APx rule), so
    random bodies are refused with APX-VAL-OBJECT or APX-MAN-VERSION; both are rebuilt from
    the generated values (``_apx_manifest``, ``_apx_run``).
    """
    manifest = _apx_manifest(body.get("manifest"))
    body["manifest"] = manifest
    body["run"] = _apx_run(body.get("run"), manifest)
