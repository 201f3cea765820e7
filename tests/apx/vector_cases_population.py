"""Golden vectors of the extension beyond APx 0.1: preregistrations, simulations, power, intervals.

Expected answers come from the reference implementation and are cross-checked by the
tests in test_population_*.py (the interval against its definition, the power analysis
against a closed form). Floating-point answers compare with a relative tolerance of 1e-9
(t quantiles, logarithms and Box-Muller normals differ in their last bits between
platforms); power and coverage are shares of simulations and agree exactly.
"""

from __future__ import annotations

import copy
from typing import Any

from population_support import draft
from vectorlib import V, _case, exact, partial, refusal

from apconform.apx.population import campaign_documents, freeze_preregistration, simulate
from apconform.apx.population.model import Assumptions, Components, Plan
from apconform.conformance.operations import get_operation

Doc = dict[str, Any]
CLOSE = {
    "decimals": "exact-text",
    "floatRelativeTolerance": "0.000000001",
    "floatAbsoluteTolerance": "0.000000000001",
}
PRE, POW, POP = "ext-preregistration", "ext-power", "ext-population"

COMPONENTS: Doc = {
    "familyAcceptance": 0.5,
    "familyImprovement": 0.3,
    "instanceAcceptance": 0.4,
    "runAcceptance": 0.2,
    "runTime": 0.25,
    "taskTime": 0.5,
    "familyHours": 0.5,
    "participantHours": 0.3,
    "attemptHours": 0.4,
    "humanAcceptance": 0.8,
    "tail": "lognormal",
}
ASSUME: Doc = {"improvement": 0.5, "parentAcceptance": 0.6, "candidateAcceptance": 0.7}
PLAN: Doc = {
    "families": 5,
    "instancesPerFamily": 1,
    "participantsPerClass": 2,
    "attemptsPerParticipant": 1,
    "runsPerConfiguration": 5,
    "pairs": 5,
}


def _answer(operation: str, given: Any) -> Any:
    return get_operation(operation)(copy.deepcopy(given))


def _simulated_request(seed: int, pairs: int = 5, families: int = 5) -> Doc:
    plan = Plan(families, 1, 2, 1, pairs)
    simulated = simulate(
        Components(**{k: v for k, v in COMPONENTS.items()}),
        Assumptions(**ASSUME),
        plan,
        seed,
        0,
        record=True,
    )
    manifest, comparison = campaign_documents(simulated)
    return {"manifest": manifest, "comparison": comparison}


def preregistrations() -> None:
    op_freeze, op_check = "apx.freeze_preregistration", "apx.check_preregistration"
    frozen = freeze_preregistration(draft())
    _case(
        PRE,
        "apx-ext-prereg-freeze",
        ["APX-EXT-PRE-1", "APX-EXT-PRE-2", "APX-EXT-DOC-1"],
        op_freeze,
        "Freezing a preregistration draft adds its hash: SHA-256 of the RFC 8785 bytes of "
        "every member but hash and signature.",
        {"preregistration": draft()},
        exact(frozen),
    )
    signed_draft = dict(draft(), signature={"old": "signature"})
    _case(
        PRE,
        "apx-ext-prereg-freeze-drops-signature",
        ["APX-EXT-PRE-2"],
        op_freeze,
        "Freezing drops an old signature member: it covered another text.",
        {"preregistration": signed_draft},
        {
            "kind": "partial",
            "matchers": [
                {"path": "/hash", "equals": frozen["hash"]},
                {"path": "/signature", "absent": True},
            ],
        },
    )
    _case(
        PRE,
        "apx-ext-prereg-check",
        ["APX-EXT-PRE-2", "APX-EXT-PRE-3"],
        op_check,
        "A frozen preregistration whose hash and plan hold is valid; the answer names its hash.",
        {"preregistration": frozen},
        exact({"valid": True, "hash": frozen["hash"]}),
    )
    changed = copy.deepcopy(frozen)
    changed["minimumEffect"] = 0.25
    _case(
        PRE,
        "apx-ext-prereg-refuse-changed",
        ["APX-EXT-PRE-2"],
        op_check,
        "A preregistration changed after it was frozen no longer matches its hash.",
        {"preregistration": changed},
        refusal("APX-EXT-PRE-HASH", path="$.hash"),
    )
    plan = dict(draft()["plan"], runsPerConfiguration=6)
    _case(
        PRE,
        "apx-ext-prereg-refuse-runs-not-pairs",
        ["APX-EXT-PRE-3"],
        op_freeze,
        "Planned runs per configuration must equal planned pairs: APx 0.1 pairs every run.",
        {"preregistration": draft(plan=plan)},
        refusal("APX-EXT-PRE-PLAN", path="$.plan.runsPerConfiguration"),
    )
    both = copy.deepcopy(frozen)
    both["plan"] = plan
    _case(
        PRE,
        "apx-ext-prereg-refuse-hash-then-plan",
        ["APX-EXT-PRE-2", "APX-EXT-PRE-3"],
        op_check,
        "A hash fault and a plan fault are reported together, the hash first.",
        {"preregistration": both},
        refusal("APX-EXT-PRE-HASH", path="$.hash"),
    )
    broken = draft(estimand="something-else")
    _case(
        PRE,
        "apx-ext-prereg-refuse-estimand",
        ["APX-EXT-PRE-1"],
        op_freeze,
        "The estimand is population-delta-apx; any other is refused by the schema.",
        {"preregistration": broken},
        refusal("APC-DOC-REFUSED", path="$.estimand"),
    )
    alpha = draft(errorRates={"alpha": 0.5, "power": 0.8})
    _case(
        PRE,
        "apx-ext-prereg-refuse-alpha",
        ["APX-EXT-PRE-1"],
        op_freeze,
        "alpha lies from 0.001 to 0.2.",
        {"preregistration": alpha},
        refusal("APC-DOC-REFUSED", path="$.errorRates.alpha"),
    )
    no_extension = draft(extension="APx 0.1")
    _case(
        PRE,
        "apx-ext-prereg-refuse-extension-text",
        ["APX-EXT-DOC-1"],
        op_freeze,
        "Every extension document carries the fixed statement that it is beyond APx 0.1.",
        {"preregistration": no_extension},
        refusal("APC-DOC-REFUSED", path="$.extension"),
    )


def simulations() -> None:
    given: Doc = {
        "components": COMPONENTS,
        "assumptions": ASSUME,
        "plan": PLAN,
        "seed": 20261130,
        "simulation": 0,
    }
    _case(
        POW,
        "apx-ext-simulate-seed-20261130",
        ["APX-EXT-POW-1", "APX-EXT-POW-2", "APX-EXT-POW-3", "APX-EXT-POW-4"],
        "apx.simulate",
        "Simulation 0 of seed 20261130: credited hours per pair and family, elapsed hours and "
        "each family's calibrated reference hours, from the keyed SHAKE-256 streams.",
        given,
        exact(_answer("apx.simulate", given)),
        comparison=CLOSE,
    )
    pareto = dict(
        given,
        components=dict(COMPONENTS, tail="pareto", tailIndex=2.5, taskTime=0, attemptHours=0),
        simulation=3,
    )
    _case(
        POW,
        "apx-ext-simulate-pareto",
        ["APX-EXT-POW-1", "APX-EXT-POW-3", "APX-EXT-POW-4"],
        "apx.simulate",
        "Simulation 3 with Pareto (tail index 2.5) task times and attempt hours.",
        pareto,
        exact(_answer("apx.simulate", pareto)),
        comparison=CLOSE,
    )
    certain = dict(
        given,
        components=dict(
            COMPONENTS,
            familyAcceptance=0,
            familyImprovement=0,
            instanceAcceptance=0,
            runAcceptance=0,
            runTime=0,
            taskTime=0,
            familyHours=0,
            participantHours=0,
            attemptHours=0,
            humanAcceptance=1,
        ),
        assumptions={"improvement": 1, "parentAcceptance": 1, "candidateAcceptance": 1},
    )
    _case(
        POW,
        "apx-ext-simulate-certain",
        ["APX-EXT-POW-3"],
        "apx.simulate",
        "Every component 0 and acceptance 1: every slot is credited with 1 reference hour, "
        "the parent's runs take 1 hour and the candidate's 2^-1 (an improvement of 1).",
        certain,
        exact(
            {
                "families": 5,
                "parent": {"work": [{"families": [1.0] * 5}] * 5, "hours": [1.0] * 5},
                "candidate": {"work": [{"families": [1.0] * 5}] * 5, "hours": [0.5] * 5},
                "referenceHours": [1.0] * 5,
            }
        ),
    )
    bad_tail = dict(given, components=dict(COMPONENTS, tail="pareto", tailIndex=2.5))
    _case(
        POW,
        "apx-ext-simulate-refuse-pareto-with-sd",
        ["APX-EXT-POW-3", "APX-EXT-POW-8"],
        "apx.simulate",
        "A Pareto tail replaces the log-normal task times: taskTime must then be 0.",
        bad_tail,
        refusal("APX-EXT-POW-TAIL", path="$.components.taskTime"),
    )
    attempts = dict(
        given,
        components=dict(COMPONENTS, tail="pareto", tailIndex=2.5, taskTime=0),
    )
    _case(
        POW,
        "apx-ext-simulate-refuse-pareto-with-attempt-sd",
        ["APX-EXT-POW-4", "APX-EXT-POW-8", "APX-EXT-POW-1"],
        "apx.simulate",
        "With a Pareto tail the attempt multipliers are Pareto too: attemptHours must be 0.",
        attempts,
        refusal("APX-EXT-POW-TAIL", path="$.components.attemptHours"),
    )
    large = dict(given, plan=dict(PLAN, families=100, instancesPerFamily=100))
    _case(
        POW,
        "apx-ext-simulate-refuse-too-many-cells",
        ["APX-EXT-POW-2", "APX-EXT-POW-6"],
        "apx.simulate",
        "apx.simulate answers one comparison of at most 100,000 cells (here 100,200).",
        large,
        refusal("APX-EXT-POW-BUDGET", path="$.plan"),
    )


def _request(**changes: Any) -> Doc:
    request: Doc = {
        "components": COMPONENTS,
        "assumptions": ASSUME,
        "plan": PLAN,
        "alpha": 0.05,
        "simulations": 100,
        "seed": 20261130,
    }
    request.update(changes)
    return request


def power() -> None:
    plain = _request()
    _case(
        POW,
        "apx-ext-power-plan",
        ["APX-EXT-POW-5", "APX-EXT-POW-6", "APX-EXT-POW-8", "APX-EXT-POW-10", "APX-EXT-DOC-1"],
        "apx.power",
        "100 simulated comparisons of one plan: power, coverage and mean width of the "
        "population interval, and the work used.",
        plain,
        exact(_answer("apx.power", plain)),
        comparison=CLOSE,
    )
    search = _request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 30})
    answer = _answer("apx.power", search)
    _case(
        POW,
        "apx-ext-power-search-pairs",
        ["APX-EXT-POW-5", "APX-EXT-POW-7"],
        "apx.power",
        "The search of APX-EXT-POW-7 for the smallest number of pairs, up to 30, whose simulated "
        "power reaches 0.8"
        + (
            f" (answer: {answer['answer']['value']} pairs)."
            if answer["answer"]["reached"]
            else ": not reached within 30 pairs, so the answer names no number."
        ),
        search,
        exact(answer),
        comparison=CLOSE,
    )
    unreachable = _request(target={"kind": "width", "value": 0.05, "vary": "families", "upTo": 8})
    _case(
        POW,
        "apx-ext-power-target-not-reached",
        ["APX-EXT-POW-7"],
        "apx.power",
        "A width of 0.05 is not reached with up to 8 families: the answer's value is null.",
        unreachable,
        partial({"/answer": {"vary": "families", "value": None, "reached": False}}),
        tags=["negative"],
    )
    starved = _request(
        assumptions={"improvement": 0.5, "parentAcceptance": 0.03, "candidateAcceptance": 0.03}
    )
    starved_answer = _answer("apx.power", starved)
    _case(
        POW,
        "apx-ext-power-refused-simulations",
        ["APX-EXT-POW-5"],
        "apx.power",
        "With 3% acceptance some simulated comparisons credit nothing: they give no interval "
        "and count as no claim.",
        starved,
        partial(
            {
                "/table/0/intervals": starved_answer["table"][0]["intervals"],
                "/table/0/power": starved_answer["table"][0]["power"],
            }
        ),
        tags=["negative"],
    )
    refusals: list[tuple[str, list[str], Doc, str, str]] = [
        (
            "apx-ext-power-refuse-budget",
            ["APX-EXT-POW-6"],
            _request(
                simulations=10000,
                target={"kind": "power", "value": 0.8, "vary": "families", "upTo": 1000},
            ),
            "APX-EXT-POW-BUDGET",
            "$.budget",
        ),
        (
            "apx-ext-power-refuse-two-sources",
            ["APX-EXT-POW-8"],
            _request(pilot={"manifest": {}, "comparison": {}}),
            "APX-EXT-POW-SOURCE",
            "$",
        ),
        (
            "apx-ext-power-refuse-no-tail-index",
            ["APX-EXT-POW-8"],
            _request(components=dict(COMPONENTS, tail="pareto", taskTime=0, attemptHours=0)),
            "APX-EXT-POW-TAIL",
            "$.components.tailIndex",
        ),
        (
            "apx-ext-power-refuse-up-to",
            ["APX-EXT-POW-8"],
            _request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 4}),
            "APX-EXT-POW-TARGET",
            "$.target.upTo",
        ),
        (
            "apx-ext-power-refuse-four-families",
            ["APX-EXT-POW-8"],
            _request(plan=dict(PLAN, families=4)),
            "APX-EXT-POP-FAMILIES",
            "$.plan.families",
        ),
        (
            "apx-ext-power-refuse-runs-not-pairs",
            ["APX-EXT-POW-8"],
            _request(plan=dict(PLAN, runsPerConfiguration=6)),
            "APX-EXT-PRE-PLAN",
            "$.plan.runsPerConfiguration",
        ),
    ]
    for vector_id, clauses, given, code, path in refusals:
        _case(
            POW,
            vector_id,
            clauses,
            "apx.power",
            f"Refused with {code}.",
            given,
            refusal(code, path=path),
        )
    result = _answer("apx.power", plain)
    wrong = dict(result, limitation="A power analysis proves the system works.")
    _case(
        POW,
        "apx-ext-power-document-refuse-limitation",
        ["APX-EXT-POW-10"],
        "apx.validate_document",
        "A power analysis carries the fixed limitation text; any other is refused.",
        {"documentType": "apx-ext-power", "document": wrong},
        refusal("APC-DOC-REFUSED", path="$.limitation"),
    )
    _case(
        POW,
        "apx-ext-power-document-valid",
        ["APX-EXT-POW-10"],
        "apx.validate_document",
        "A power analysis as apx.power writes it meets its schema.",
        {"documentType": "apx-ext-power", "document": result},
        exact({"valid": True}),
    )


def _design(
    parent: list[list[float]], candidate: list[list[float]], hours: tuple[list[float], list[float]]
) -> Doc:
    return {
        "parent": {"work": [{"families": row} for row in parent], "hours": hours[0]},
        "candidate": {"work": [{"families": row} for row in candidate], "hours": hours[1]},
    }


def intervals() -> None:
    parent = [
        [1.5, 3.0, 0.0, 2.0, 1.0],
        [3.0, 1.5, 2.0, 2.0, 0.0],
        [1.5, 1.5, 2.0, 0.0, 1.0],
        [0.0, 3.0, 2.0, 2.0, 1.0],
        [1.5, 3.0, 0.0, 2.0, 2.0],
        [3.0, 1.5, 2.0, 0.0, 1.0],
    ]
    candidate = [
        [3.0, 3.0, 2.0, 2.0, 1.0],
        [3.0, 3.0, 2.0, 4.0, 1.0],
        [1.5, 3.0, 4.0, 2.0, 2.0],
        [3.0, 1.5, 2.0, 2.0, 1.0],
        [3.0, 3.0, 4.0, 2.0, 2.0],
        [1.5, 3.0, 2.0, 4.0, 1.0],
    ]
    hours = ([2.0, 2.5, 1.8, 2.2, 2.4, 2.1], [1.4, 1.6, 1.5, 1.2, 1.9, 1.3])
    given = dict(_design(parent, candidate, hours), alpha=0.05)
    _case(
        POP,
        "apx-ext-interval-worked-example",
        ["APX-EXT-POP-4", "APX-EXT-POP-5", "APX-EXT-POP-6"],
        "apx.population_interval",
        "A worked example: 5 families, 6 pairs, credited hours and elapsed hours given.",
        given,
        exact(_answer("apx.population_interval", given)),
        comparison=CLOSE,
    )
    ninety = dict(given, alpha=0.1)
    _case(
        POP,
        "apx-ext-interval-alpha-0.1",
        ["APX-EXT-POP-6"],
        "apx.population_interval",
        "The same design at confidence 0.9.",
        ninety,
        exact(_answer("apx.population_interval", ninety)),
        comparison=CLOSE,
    )
    flat = dict(_design([[1.0] * 5] * 5, [[2.0] * 5] * 5, ([1.0] * 5, [1.0] * 5)), alpha=0.05)
    _case(
        POP,
        "apx-ext-interval-refuse-degenerate",
        ["APX-EXT-POP-6"],
        "apx.population_interval",
        "Identical families and pairs: the variance is 0 and no interval is stated.",
        flat,
        refusal("APX-EXT-POP-DEGENERATE"),
    )
    lone = [[0.0] * 5] * 5
    lone = [list(row) for row in lone]
    lone[2] = [1.0] * 5
    single = dict(_design([[1.0] * 5] * 5, lone, ([1.0] * 5, [1.0] * 5)), alpha=0.05)
    _case(
        POP,
        "apx-ext-interval-refuse-leave-one-out",
        ["APX-EXT-POP-5"],
        "apx.population_interval",
        "All the candidate's work in pair 2: leaving it out leaves none.",
        single,
        refusal("APX-EXT-POP-DEGENERATE", path="$.comparison.pairs[2]"),
    )
    nothing = dict(_design([[1.0] * 5] * 5, [[0.0] * 5] * 5, ([1.0] * 5, [1.0] * 5)), alpha=0.05)
    _case(
        POP,
        "apx-ext-interval-refuse-zero-power",
        ["APX-EXT-POP-3", "APX-EXT-POP-4"],
        "apx.population_interval",
        "The candidate credits nothing: its power is 0 and deltaAPx is undefined.",
        nothing,
        refusal("APX-EXT-POP-POWER"),
    )
    four = dict(
        _design([[1.0, 2.0, 1.0, 2.0]] * 5, [[2.0, 2.0, 1.0, 3.0]] * 5, ([1.0] * 5, [1.0] * 5)),
        alpha=0.05,
    )
    _case(
        POP,
        "apx-ext-interval-refuse-four-families",
        ["APX-EXT-POP-3"],
        "apx.population_interval",
        "Four families cannot support the family level.",
        four,
        refusal("APX-EXT-POP-FAMILIES"),
    )


def populations() -> None:
    from apconform.apx.hashing import freeze, rebind

    request = _simulated_request(20261130)
    answer = _answer("apx.population", request)
    _case(
        POP,
        "apx-ext-population-seed-20261130",
        [
            "APX-EXT-POP-1",
            "APX-EXT-POP-2",
            "APX-EXT-POP-3",
            "APX-EXT-POP-7",
            "APX-EXT-PRE-5",
            "APX-EXT-DOC-1",
        ],
        "apx.population",
        "The population comparison of simulated campaigns (seed 20261130: 5 families, 5 pairs): "
        "the APx 0.1 deltaAPx with the hierarchical interval, beside the unchanged APx 0.1 "
        "promotion; no preregistration, so exploratory.",
        request,
        exact(answer),
        comparison=CLOSE,
    )
    prereg = freeze_preregistration(
        draft(
            plan=dict(PLAN, pairs=6, runsPerConfiguration=6),
            errorRates={"alpha": 0.1, "power": 0.8},
            manifest={
                f"{k}Hash": request["manifest"][k]["hash"]
                for k in ("suite", "baseline", "evaluator", "environment")
            },
        )
    )
    followed = dict(request, preregistration=prereg)
    followed_answer = _answer("apx.population", followed)
    _case(
        POP,
        "apx-ext-population-preregistered",
        ["APX-EXT-PRE-5", "APX-EXT-PRE-6"],
        "apx.population",
        "Following a preregistration that planned 6 pairs at alpha 0.1: it is named, the pairs "
        "are a departure, the interval is a 90% one and the claim is judged.",
        followed,
        partial(
            {
                "/preregistration": {"id": prereg["id"], "version": "1", "hash": prereg["hash"]},
                "/departures": [
                    {"item": "plan.runsPerConfiguration", "planned": 6, "actual": 5},
                    {"item": "plan.pairs", "planned": 6, "actual": 5},
                ],
                "/confirmatory": False,
                "/interval/confidence": 0.9,
                "/claimSupported": followed_answer["claimSupported"],
            }
        ),
    )
    decrease = freeze_preregistration(
        draft(
            plan=PLAN,
            claim={"parent": "agent v1", "candidate": "agent v2", "direction": "decrease"},
        )
    )
    _case(
        POP,
        "apx-ext-population-claim-not-supported",
        ["APX-EXT-PRE-6"],
        "apx.population",
        "A claimed decrease is not supported by an interval that is not wholly below 0.",
        dict(request, preregistration=decrease),
        partial({"/claimSupported": False, "/confirmatory": True, "/departures": []}),
        tags=["negative"],
    )
    tampered = copy.deepcopy(prereg)
    tampered["minimumEffect"] = 2
    _case(
        POP,
        "apx-ext-population-refuse-changed-preregistration",
        ["APX-EXT-PRE-5"],
        "apx.population",
        "A preregistration changed after freezing is refused below $.preregistration.",
        dict(request, preregistration=tampered),
        refusal("APX-EXT-PRE-HASH", path="$.preregistration.hash"),
    )
    broken = copy.deepcopy(request)
    broken["comparison"]["pairs"][0]["parent"]["costUSD"] = -1
    _case(
        POP,
        "apx-ext-population-refuse-kernel-first",
        ["APX-EXT-POP-2"],
        "apx.population",
        "The APx 0.1 kernel checks the comparison first; its refusal keeps its code and text.",
        broken,
        refusal(
            "APX-VAL-NUMBER",
            message=f"{V}costUSD must be finite in [0, 1000000000000]",
            path="$.comparison.pairs[0].parent.costUSD",
        ),
    )
    four = _simulated_request(20261130, families=4)
    _case(
        POP,
        "apx-ext-population-refuse-four-families",
        ["APX-EXT-POP-3"],
        "apx.population",
        "Four task families cannot support the family level.",
        four,
        refusal("APX-EXT-POP-FAMILIES", path="$.manifest.suite.slots"),
    )
    short = copy.deepcopy(request)
    short["comparison"]["pairs"] = short["comparison"]["pairs"][:4]
    _case(
        POP,
        "apx-ext-population-refuse-four-pairs",
        ["APX-EXT-POP-3"],
        "apx.population",
        "Four pairs are too few, as for the APx 0.1 interval.",
        short,
        refusal("APX-EXT-POP-PAIRS"),
    )
    single = copy.deepcopy(request["manifest"])
    for attempt in single["baseline"]["attempts"]:
        attempt["participantId"] = "the-only-participant"
    single = freeze(single)
    pairs = [
        {side: rebind(single, pair[side]) for side in ("parent", "candidate")}
        for pair in request["comparison"]["pairs"]
    ]
    _case(
        POP,
        "apx-ext-population-refuse-one-participant",
        ["APX-EXT-POP-3"],
        "apx.population",
        "A suite calibrated by one participant has no participant population.",
        {"manifest": single, "comparison": {"pairs": pairs}},
        refusal("APX-EXT-POP-PARTICIPANTS", path="$.manifest.baseline.attempts"),
    )
    _case(
        POP,
        "apx-ext-population-document-valid",
        ["APX-EXT-POP-7"],
        "apx.validate_document",
        "A population result as apx.population writes it meets its schema.",
        {"documentType": "apx-ext-population", "document": answer},
        exact({"valid": True}),
    )
    certified = dict(answer, certified=True)
    _case(
        POP,
        "apx-ext-population-document-refuse-certified",
        ["APX-EXT-POP-7", "APX-EXT-POP-1"],
        "apx.validate_document",
        "A population result never claims certification.",
        {"documentType": "apx-ext-population", "document": certified},
        refusal("APC-DOC-REFUSED", path="$.certified"),
    )


def population() -> None:
    preregistrations()
    simulations()
    power()
    intervals()
    populations()


__all__ = ["population"]
