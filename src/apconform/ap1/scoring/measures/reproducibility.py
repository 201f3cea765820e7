"""D2 reproducibility: what repeats of one item released, and by what mechanism it could be stable.

Per item, condition and surface (released figures, tool arguments, prose) the
scorer collects the distinct values over the successful repeats; an
unmeasured, unreadable or VOID execution is never a value. The mechanism class
is UNMEASURED below AP-1's 50 successful runs (never "one distinct value" from
too few runs); CONFIGURED only when the stochastic part was pinned (temperature
0 sent), every response echoed exactly the sampling parameters sent, no
parameter was rejected by the platform, and one distinct value was seen;
otherwise OBSERVED-ONLY. STRUCTURAL needs an architectural argument that no
transcript can show, so the scorer never assigns it.

The parameter echo compares, per round, every parameter sent with what the
response reports it applied: VERIFIED when all are echoed and equal, MISMATCH
when any differs (a platform finding: the parameter was silently ignored or
changed), UNVERIFIED otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

import orjson

from apconform.ap1.scoring.record import ExecutionView
from apconform.ap1.scoring.results import EchoFinding, EchoResult

__all__ = [
    "D2_MINIMUM_RUNS",
    "MISMATCH",
    "UNVERIFIED",
    "VERIFIED",
    "d2_cap",
    "mechanism_class",
    "parameter_echo",
]

D2_MINIMUM_RUNS = 50
VERIFIED = "VERIFIED"
UNVERIFIED = "UNVERIFIED"
MISMATCH = "MISMATCH"


@lru_cache(maxsize=1024)
def _same(sent: str, echoed_json: str) -> bool:
    try:
        echoed = json.loads(echoed_json, parse_float=Decimal, parse_int=Decimal)
    except ValueError:
        return False
    if isinstance(echoed, Decimal):
        try:
            return Decimal(sent) == echoed
        except InvalidOperation:
            return False
    return isinstance(echoed, str) and echoed == sent


def _pairs(request: Any, response: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    sent: dict[str, str] = {}
    echoed: dict[str, str] = {}
    for entry in request.get("samplingAsSent", ()) if isinstance(request, dict) else ():
        if isinstance(entry, dict) and isinstance(entry.get("sent"), str):
            sent[str(entry.get("name"))] = entry["sent"]
    for entry in response.get("samplingEchoed", ()):
        if isinstance(entry, dict) and isinstance(entry.get("valueJson"), str):
            echoed[str(entry.get("name"))] = entry["valueJson"]
    return sent, echoed


_ECHOES: dict[bytes, tuple[str, list[EchoFinding]]] = {}
"""Echo results by the JSON bytes of what they were computed from (bounded by _ECHOES_KEPT)."""
_ECHOES_KEPT = 4096


def parameter_echo(view: ExecutionView) -> EchoResult:
    """The echo status of one execution and its findings (each parameter once).

    Every execution of a run sends the same sampling parameters and a platform
    usually echoes them the same way, so the result is memoised by the JSON
    bytes of the rounds' sampling members as they are iterated (the only input
    it has: a missing member and an empty list read alike); what orjson cannot
    write is computed afresh, and a member that cannot be iterated raises as
    before, each time.
    """
    rounds = []
    for round_ in view.rounds:
        response = round_.get("response")
        if isinstance(response, dict):
            request = round_.get("request")
            rounds.append((request, response))
    try:
        key = orjson.dumps(
            [
                (
                    request.get("samplingAsSent", ()) if isinstance(request, dict) else (),
                    response.get("samplingEchoed", ()),
                )
                for request, response in rounds
            ]
        )
    except orjson.JSONEncodeError:
        key = None
    found = _ECHOES.get(key) if key is not None else None
    if found is None:
        found = _echo(rounds)
        if key is not None and len(_ECHOES) < _ECHOES_KEPT:
            _ECHOES[key] = found
    status, findings = found
    return {"status": status, "findings": [finding.copy() for finding in findings]}


def _echo(rounds: list[tuple[Any, dict[str, Any]]]) -> tuple[str, list[EchoFinding]]:
    findings: dict[tuple[str, str], EchoFinding] = {}
    compared = verified = 0
    for request, response in rounds:
        sent, echoed = _pairs(request, response)
        for name, value in sent.items():
            compared += 1
            if name not in echoed:
                findings.setdefault(
                    (name, "not-echoed"),
                    {"parameter": name, "requested": value, "finding": "requested but not echoed"},
                )
            elif _same(value, echoed[name]):
                verified += 1
            else:
                findings.setdefault(
                    (name, "mismatch"),
                    {
                        "parameter": name,
                        "requested": value,
                        "echoed": echoed[name],
                        "finding": "the platform reports another value than the one sent "
                        "(silently ignored or changed)",
                    },
                )
    if any(kind == "mismatch" for _, kind in findings):
        status = MISMATCH
    elif compared and verified == compared:
        status = VERIFIED
    else:
        status = UNVERIFIED
    return status, list(findings.values())


def mechanism_class(
    successful: int, distinct: int, *, pinned: bool, echo_verified: bool, capped: bool
) -> tuple[str, str]:
    """(class, reason) for one item, condition and surface."""
    if successful < D2_MINIMUM_RUNS:
        return (
            "UNMEASURED",
            f"{successful} successful run(s); AP-1 D2 needs at least {D2_MINIMUM_RUNS} per item",
        )
    if distinct == 1 and pinned and echo_verified and not capped:
        return (
            "CONFIGURED",
            "temperature 0 was sent, every response echoed the parameters sent, and one "
            f"distinct value was seen over {successful} runs",
        )
    why = []
    if not pinned:
        why.append("temperature 0 was not sent")
    if not echo_verified:
        why.append("not every response echoed the parameters sent")
    if capped:
        why.append("the configuration declares a sampling parameter platform-rejected (caps D2)")
    if distinct != 1:
        why.append(f"{distinct} distinct values")
    detail = "; ".join(why) if why else "stable, but no mechanism pins it"
    return "OBSERVED-ONLY", f"{successful} runs: {detail}"


def d2_cap(sampling: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The D2 cap, worded as the configuration's declaration, or None when nothing caps D2.

    ``sampling`` maps each condition to its sampling settings as configured. A
    platform-rejected omission is the operator's statement about the platform;
    the parameter is then never sent, so the run itself cannot observe the
    rejection, and the cap says so instead of presenting it as a platform fact
    (the reference instrument's erratum E2).
    """
    declared: dict[tuple[str, str], list[str]] = {}
    for condition, settings in sampling.items():
        for name, setting in settings.items():
            if isinstance(setting, Mapping) and setting.get("omit") == "platform-rejected":
                key = (name, str(setting.get("detail", "")))
                declared.setdefault(key, []).append(condition)
    if not declared:
        return None
    notes = [
        f"{name} ({', '.join(conditions)}; declared detail: {detail})"
        for (name, detail), conditions in declared.items()
    ]
    return (
        "D2 is capped at OBSERVED-ONLY because the configuration declares "
        + "; ".join(notes)
        + " omitted as platform-rejected. This is the operator's declaration: the parameter "
        "was not sent, so no rejection of it was observed in this run."
    )
