"""The extra rules for data declared as measured: protocol, participants, bound adjudications.

A measured baseline must name its calibration protocol (declared before it
ran, bound to the frozen evaluator) and its participants, and every attempt
must carry provenance and an independent human adjudication bound to the
attempt. A measured run's evidence must be independent human adjudication
bound to the slot, the artifact, the evaluator and the run. These records
remain declarations: the kernel checks that they agree, not that they are
true.
"""

from __future__ import annotations

import re
from typing import Any

from apconform.apx import errors
from apconform.apx.checks import MISSING, Checks, strict_equal

__all__ = [
    "ADJUDICATION_KINDS",
    "check_measured_baseline",
    "check_measured_evidence",
    "es_date_time",
    "has_verified_independent",
]

Path = tuple[str | int, ...]

ADJUDICATION_KINDS = ("human-adjudication", "ruclip-adjudication")


_ES_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
    r"(?:Z|[+-](\d{2}):(\d{2}))?"
)


def es_date_time(text: str) -> bool:
    """True when ECMAScript's Date.parse gives a finite time for this date-time string.

    This is the date-time form ECMAScript specifies (YYYY-MM-DDTHH:mm, optional
    seconds and fraction, optional Z or offset), with V8's ranges: a day of 1
    to 31 in any month and 24:00 only as the end of a day. Other spellings that
    one engine's fallback parser happens to read are not portable and are refused.
    """
    found = _ES_DATE_TIME.fullmatch(text)
    if found is None:
        return False
    _, month, day, hour, minute, second, fraction, off_h, off_m = found.groups()
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31 and int(minute) <= 59):
        return False
    if second is not None and int(second) > 59:
        return False
    if int(hour) > 24 or (
        int(hour) == 24 and (int(minute) or int(second or 0) or int(fraction or "0"))
    ):
        return False
    return off_h is None or (int(off_h) <= 23 and int(off_m) <= 59)


def check_measured_baseline(
    baseline: dict[str, Any],
    evaluator: dict[str, Any] | None,
    attempts: list[dict[str, Any]] | None,
    at: Path,
    checks: Checks,
) -> None:
    """The measured-baseline rules, in the contract's order (attempts: the valid ones, or None)."""
    collector = checks.collector
    protocol = baseline.get("protocol", MISSING)
    where = (*at, "protocol")
    if checks.object(protocol, "measured baseline.protocol", where):
        for name in ("id", "version", "timeBoundary", "acceptanceRule"):
            checks.string(
                protocol.get(name, MISSING), f"baseline.protocol.{name}", (*where, name), 4096
            )
        stamp = protocol.get("predeclaredAt", MISSING)
        if checks.string(
            stamp, "baseline.protocol.predeclaredAt", (*where, "predeclaredAt")
        ) and not es_date_time(stamp):
            collector.add(
                errors.PROTOCOL_TIME,
                (*where, "predeclaredAt"),
                "calibration protocol requires a valid predeclaration timestamp",
            )
        if evaluator is not None and not (
            strict_equal(protocol.get("evaluatorId", MISSING), evaluator.get("id", MISSING))
            and strict_equal(protocol.get("evaluatorHash", MISSING), evaluator.get("hash", MISSING))
        ):
            collector.add(
                errors.PROTOCOL_BINDING,
                where,
                "calibration protocol evaluator binding mismatch",
            )
    cohort = baseline.get("cohort")
    participants: set[str] | None = None
    if type(cohort) is dict:
        ids = cohort.get("participantIds", MISSING)
        where = (*at, "cohort", "participantIds")
        if checks.array(ids, "measured cohort.participantIds", where, 10_000, 1):
            good = all(
                [
                    checks.identifier(value, "participantId", (*where, index))
                    for index, value in enumerate(ids)
                ]
            )
            if checks.unique(ids, "participantIds", where) and good:
                participants = set(ids)
    if attempts is None:
        return
    for index, attempt in enumerate(attempts):
        _check_measured_attempt(attempt, participants, evaluator, (*at, "attempts", index), checks)


def _check_measured_attempt(
    attempt: dict[str, Any],
    participants: set[str] | None,
    evaluator: dict[str, Any] | None,
    where: Path,
    checks: Checks,
) -> None:
    collector = checks.collector
    participant = attempt.get("participantId", MISSING)
    unknown = type(participant) is not str or participant not in (participants or ())
    if participants is not None and unknown:
        collector.add(
            errors.PARTICIPANT,
            (*where, "participantId"),
            "measured attempt must identify a declared cohort participant",
        )
    checks.digest(
        attempt.get("provenanceHash", MISSING),
        "measured attempt.provenanceHash",
        (*where, "provenanceHash"),
    )
    verdict = attempt.get("adjudication", MISSING)
    at = (*where, "adjudication")
    if not checks.object(verdict, "measured attempt.adjudication", at):
        return
    if verdict.get("independent", MISSING) is not True or verdict.get("kind") != (
        "human-adjudication"
    ):
        collector.add(
            errors.BASELINE_ADJUDICATION,
            at,
            "measured baseline requires independent human adjudication",
        )
    reviewer = verdict.get("reviewerId", MISSING)
    if (
        checks.string(reviewer, "baseline adjudication.reviewerId", (*at, "reviewerId"))
        and reviewer == participant
    ):
        collector.add(
            errors.SELF_REVIEW,
            (*at, "reviewerId"),
            "baseline reviewer cannot adjudicate their own attempt",
        )
    checks.digest(verdict.get("hash", MISSING), "baseline adjudication.hash", (*at, "hash"))
    evaluator_id = evaluator.get("id", MISSING) if evaluator is not None else MISSING
    evaluator_hash = evaluator.get("hash", MISSING) if evaluator is not None else MISSING
    decision = "accepted" if attempt["accepted"] else "rejected"
    bound = (
        strict_equal(verdict.get("attemptId", MISSING), attempt["id"])
        and strict_equal(verdict.get("participantId", MISSING), participant)
        and strict_equal(verdict.get("evaluatorId", MISSING), evaluator_id)
        and strict_equal(verdict.get("evaluatorHash", MISSING), evaluator_hash)
        and strict_equal(
            verdict.get("provenanceHash", MISSING), attempt.get("provenanceHash", MISSING)
        )
        and verdict.get("decision", MISSING) == decision
    )
    if not bound:
        collector.add(errors.ADJUDICATION_BINDING, at, "baseline adjudication binding mismatch")


def check_measured_evidence(
    evidence: dict[str, Any],
    outcome: dict[str, Any],
    run_id: Any,
    evaluator_hash: Any,
    where: Path,
    checks: Checks,
) -> None:
    """The three binding rules of one evidence entry of a measured run's outcome."""
    collector = checks.collector
    if not (
        strict_equal(evidence.get("slotId", MISSING), outcome.get("slotId", MISSING))
        and strict_equal(
            evidence.get("artifactHash", MISSING), outcome.get("artifactHash", MISSING)
        )
        and strict_equal(evidence.get("evaluatorHash", MISSING), evaluator_hash)
        and strict_equal(evidence.get("runId", MISSING), run_id)
    ):
        collector.add(errors.EVIDENCE_BINDING, where, "measured outcome evidence binding mismatch")
    if evidence.get("kind") not in ADJUDICATION_KINDS or evidence.get("independent") is not True:
        collector.add(
            errors.EVIDENCE_INDEPENDENT,
            where,
            "measured outcomes require independent human adjudication in v0.1",
        )
    accepted = outcome.get("accepted")
    if type(accepted) is bool:
        decision = "accepted" if accepted else "rejected"
        if evidence.get("decision", MISSING) != decision:
            collector.add(
                errors.EVIDENCE_DECISION, where, "measured outcome adjudication decision mismatch"
            )


def has_verified_independent(provenance: list[Any]) -> bool:
    """Some entry is verified and independent (what an accepted measured outcome needs)."""
    return any(
        type(entry) is dict
        and entry.get("verification") == "verified"
        and entry.get("independent") is True
        for entry in provenance
    )
