"""The last APx golden vectors: hashing, bounds, the generator, promotion, importers, claims."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from vectorlib import V, _case, campaign, comparison, exact, partial, refusal, set_run

from apconform.apx import compare_document, freeze, rebind
from apconform.apx.tutorial import tutorial_manifest

Doc = dict[str, Any]
CMP = "apx.compare"
FIVE = "at least five independent paired campaigns with positive bootstrap powers required"
TOLERANT = {"tolerant": True}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hashing() -> None:
    slots = tutorial_manifest()["suite"]["slots"]
    rows: list[tuple[str, Any, str, str]] = [
        (
            "string-raw",
            "human verdict",
            _sha("human verdict"),
            "A string is hashed as its own UTF-8 bytes, without quotes.",
        ),
        ("object", {"b": 2, "a": 1}, _sha('{"a":1,"b":2}'), "Members are sorted before hashing."),
        (
            "key-order-1",
            {"b": 2, "a": {"d": 4, "c": 3}},
            _sha('{"a":{"c":3,"d":4},"b":2}'),
            "Member order does not change the digest (first spelling).",
        ),
        (
            "key-order-2",
            {"a": {"c": 3, "d": 4}, "b": 2},
            _sha('{"a":{"c":3,"d":4},"b":2}'),
            "Member order does not change the digest (second spelling).",
        ),
        ("array-order-1", [1, 2], _sha("[1,2]"), "Array order is kept (1, 2)."),
        ("array-order-2", [2, 1], _sha("[2,1]"), "Array order is kept (2, 1): another digest."),
        (
            "artifact-cents",
            {"cents": 5500},
            _sha('{"cents":5500}'),
            "The finance toy task's artifact digest.",
        ),
        (
            "task-set-demo",
            slots,
            "45249d335efb3d7986de51a180681a812e268aff8a2f0197b06811898042b5a0",
            "The demo suite's taskSetHash, a golden value of the reference kernel.",
        ),
        (
            "evaluator-demo",
            {"id": "deterministic-toy-checks", "qualityThreshold": 0.8, "version": "0.1.0"},
            "5e5f4e9f7b460bd6e47f394e79c280ad9cf26887927dccc5f81e39f120be787d",
            "The demo evaluator's hash, a golden value of the reference kernel.",
        ),
    ]
    assert rows[6][2].startswith("2ace1400") and rows[6][2].endswith("9f70")
    assert rows[1][2].startswith("43258cff") and rows[1][2].endswith("2777")
    assert rows[0][2].startswith("bd395c4b") and rows[0][2].endswith("a557")
    for name, value, expected, description in rows:
        _case(
            "hashing",
            f"apx-hash-{name}",
            ["APX-HASH-1"],
            "apx.digest",
            description,
            {"value": value},
            exact({"sha256": expected}),
        )
    _case(
        "hashing",
        "apx-hash-refuses-reserved-member",
        ["APX-HASH-1", "APX-BOUND-2"],
        "apx.digest",
        "A value with a member named constructor is refused before hashing.",
        {"value": {"a": {"constructor": 1}}},
        refusal("APX-GUARD-RESERVED", f"{V}reserved JSON property"),
    )
    frozen = tutorial_manifest()
    unfrozen = {k: dict(v) if isinstance(v, dict) else v for k, v in frozen.items()}
    for key in ("suite", "baseline", "evaluator", "environment"):
        del unfrozen[key]["hash"]
    del unfrozen["suite"]["taskSetHash"]
    golden = {
        "suite": ("9012a885", "c002"),
        "baseline": ("b285028b", "4d67"),
        "environment": ("13430636", "604e"),
    }
    for key, (head, end) in golden.items():
        assert frozen[key]["hash"].startswith(head) and frozen[key]["hash"].endswith(end)
    _case(
        "hashing",
        "apx-freeze-demo",
        ["APX-HASH-2"],
        "apx.freeze",
        "Freezing the demo manifest reproduces the reference kernel's component hashes "
        "(suite 9012a885...c002, baseline b285028b...4d67, environment 13430636...604e).",
        unfrozen,
        exact(frozen),
    )
    reordered = dict(unfrozen)
    reordered["suite"] = dict(unfrozen["suite"], slots=list(reversed(slots)))
    text = ",".join(f'{{"classId":"{s["classId"]}","id":"{s["id"]}"}}' for s in reversed(slots))
    _case(
        "hashing",
        "apx-freeze-slot-order",
        ["APX-HASH-2"],
        "apx.freeze",
        "Reordering the slots changes taskSetHash: slot order is part of the frozen suite.",
        reordered,
        partial(suite__taskSetHash=_sha(f"[{text}]")),
    )
    without = {k: v for k, v in unfrozen.items() if k != "suite"}
    _case(
        "hashing",
        "apx-freeze-refuses-missing-suite",
        ["APX-HASH-2"],
        "apx.freeze",
        "There is no suite to freeze.",
        without,
        refusal("APX-VAL-OBJECT", f"{V}suite must be an object"),
    )


def bounds() -> None:
    limit = f"{V}JSON nesting or node limit exceeded"
    for depth, ok in ((32, True), (33, False)):
        _case(
            "bounds",
            f"apx-guard-depth-{depth}",
            ["APX-BOUND-1"],
            "apx.guard",
            f"A number inside {depth} arrays sits at depth {depth}: "
            f"{'accepted' if ok else 'refused'}.",
            {"value": 0, "wrapInArrays": depth},
            exact({"guarded": True}) if ok else refusal("APX-GUARD-LIMIT", limit),
        )
    for count, ok in ((99_999, True), (100_000, False)):
        _case(
            "bounds",
            f"apx-guard-nodes-{count}",
            ["APX-BOUND-1"],
            "apx.guard",
            f"An array of {count} numbers holds {count + 1} values: "
            f"{'accepted' if ok else 'refused'}.",
            {"value": 0, "arrayOf": count},
            exact({"guarded": True}) if ok else refusal("APX-GUARD-LIMIT", limit),
        )
    for name in ("__proto__", "constructor", "prototype"):
        _case(
            "bounds",
            f"apx-guard-reserved-{name.strip('_')}",
            ["APX-BOUND-2"],
            "apx.guard",
            f"A member named {name} is refused anywhere in the input.",
            {"value": {"outer": [{name: {}}]}},
            refusal("APX-GUARD-RESERVED", f"{V}reserved JSON property"),
        )
    _case(
        "bounds",
        "apx-guard-near-reserved",
        ["APX-BOUND-2"],
        "apx.guard",
        "Names that only resemble the reserved ones are fine.",
        {"value": {"proto": 1, "Constructor": 2, "prototypes": 3}},
        exact({"guarded": True}),
    )
    _case(
        "bounds",
        "apx-guard-run-member",
        ["APX-BOUND-2"],
        "apx.evaluate",
        "A reserved member inside a run's unknown members refuses the whole run.",
        campaign(set_run(notes={"prototype": "x"})),
        refusal("APX-GUARD-RESERVED", f"{V}reserved JSON property"),
    )


def generator() -> None:
    def lcg(seed: int, count: int) -> list[float]:
        state, out = seed, []
        for _ in range(count):
            state = (1664525 * state + 1013904223) % 4294967296
            out.append(state / 4294967296)
        return out

    golden = [
        0.39975163666531444,
        0.829088305355981,
        0.44754063710570335,
        0.8150463437195867,
        0.2513478179462254,
    ]
    assert lcg(20260907, 5) == golden
    for seed, count, pairs in ((20260907, 5, 5), (0, 2, 100), (4294967295, 4, 10), (7, 6, 3)):
        values = lcg(seed, count)
        _case(
            "bootstrap",
            f"apx-lcg-seed-{seed}",
            ["APX-BOOT-1", "APX-BOOT-2"],
            "apx.draws",
            f"The first {count} draws of the generator seeded with {seed}, and the pair "
            f"indices floor(u x {pairs}) they give.",
            {"seed": seed, "count": count, "pairs": pairs},
            exact({"draws": values, "indices": [int(u * pairs) for u in values]}),
        )
    for name, options, message in (
        ("iterations-above", {"iterations": 10001}, "iterations must be finite in [100, 10000]"),
        ("iterations-below", {"iterations": 99}, "iterations must be finite in [100, 10000]"),
        ("iterations-fraction", {"iterations": 200.5}, "iterations must be an integer"),
        ("seed-negative", {"seed": -1}, "seed must be finite in [0, 4294967295]"),
        ("seed-above", {"seed": 4294967296}, "seed must be finite in [0, 4294967295]"),
        ("seed-fraction", {"seed": 1.5}, "seed must be an integer"),
    ):
        code = "APX-VAL-INTEGER" if "integer" in message else "APX-VAL-NUMBER"
        _case(
            "bootstrap",
            f"apx-refuse-{name}",
            ["APX-BOOT-1"],
            CMP,
            f"Bootstrap options {json.dumps(options)} are refused.",
            comparison(options=options),
            refusal(code, V + message),
        )
    request = comparison()
    request["options"] = None
    _case(
        "bootstrap",
        "apx-refuse-null-options",
        ["APX-VAL-3", "APX-BOOT-1"],
        CMP,
        "Null options are a clear refusal (the contract's kernel fails with an engine error).",
        request,
        refusal("APX-VAL-OBJECT", f"{V}options must be an object"),
    )


def _promotion(request: Doc) -> Doc:
    return compare_document(request["manifest"], request["comparison"], request.get("options", {}))


def intervals() -> None:
    base = comparison()
    document = _promotion(base)
    interval = document["interval"]
    assert document["decision"] == "PROMOTE" and document["deltaAPx"] == 1
    assert (
        interval["lower"] == interval["upper"] == 1
        and "excludes baseline" in interval["conditionalOn"]
    )
    _case(
        "promotion",
        "apx-promote-five-pairs-exact",
        [
            "APX-CMP-1",
            "APX-CMP-2",
            "APX-BOOT-2",
            "APX-BOOT-3",
            "APX-REG-1",
            "APX-REG-2",
            "APX-REG-3",
            "APX-CLAIM-1",
        ],
        CMP,
        "Five pairs, parents T 0.5 and candidates T 0.25: deltaAPx 1, interval [1, 1], "
        "PROMOTE, never deployment-authorised.",
        base,
        exact(document),
        **TOLERANT,
    )
    _case(
        "promotion",
        "apx-promote-four-pairs",
        ["APX-BOOT-3", "APX-REG-2", "APX-REG-3"],
        CMP,
        "Four pairs are too few for an interval: REJECT.",
        comparison([0.5] * 4, [0.25] * 4),
        partial(
            decision="REJECT",
            interval=None,
            deltaAPx=1,
            reasons=[FIVE],
            deployAuthorized=False,
            campaigns=4,
        ),
        tags=["negative"],
        **TOLERANT,
    )

    def slower_first(manifest: Doc, pairs: list[Doc]) -> None:
        from apconform.apx.tutorial import tutorial_run

        pairs[0]["candidate"] = tutorial_run(
            manifest, run_id="c-0", independence_id="pair-0", wall_hours=0.3
        )

    for suffix, options in (("defaults", None), ("100-seed-7", {"iterations": 100, "seed": 7})):
        request = comparison(change=slower_first, options=options)
        _case(
            "promotion",
            f"apx-interval-pair0-slower-{suffix}",
            ["APX-BOOT-2", "APX-BOOT-3"],
            CMP,
            "Pair 0's candidate takes 0.3 h: candidateAP 17.307692307692307, deltaAPx "
            "0.9434164716336324, interval [0.8365012677171205, 1] (reference golden values).",
            request,
            partial(
                parentAP=9,
                candidateAP=17.307692307692307,
                deltaAPx=0.9434164716336324,
                interval__lower=0.8365012677171205,
                interval__upper=1,
                interval__iterations=(options or {}).get("iterations", 2000),
                interval__seed=(options or {}).get("seed", 20260907),
                decision="PROMOTE",
            ),
            **TOLERANT,
        )
    parents, candidates = [0.5, 0.6, 0.45, 0.5, 0.55], [0.3, 0.25, 0.4, 0.2, 0.35]
    for name, options, lower, upper in (
        ("defaults", None, 0.4629719763425457, 1.1699250014423126),
        ("100-seed-7", {"iterations": 100, "seed": 7}, 0.3846638502353248, 1.0285691521967708),
        ("10000-seed-0", {"iterations": 10000, "seed": 0}, 0.4556794837761902, 1.1699250014423126),
        (
            "2000-seed-max",
            {"iterations": 2000, "seed": 4294967295},
            0.46712601042729796,
            1.1699250014423126,
        ),
    ):
        _case(
            "promotion",
            f"apx-interval-varied-{name}",
            ["APX-BOOT-1", "APX-BOOT-2", "APX-BOOT-3"],
            CMP,
            f"Varied wall times with options {json.dumps(options)}: the reference kernel's "
            f"interval [{lower}, {upper}].",
            comparison(parents, candidates, options=options),
            partial(
                parentAP=8.653846153846155,
                candidateAP=15,
                deltaAPx=0.7935491225325735,
                interval__lower=lower,
                interval__upper=upper,
                decision="PROMOTE",
            ),
            **TOLERANT,
        )
    _case(
        "promotion",
        "apx-interval-metaharness-demo",
        ["APX-BOOT-3", "APX-CMP-2"],
        CMP,
        "The MetaHarness demo's five pairs (T 1 vs 0.5, cost 0.2 vs 0.1; 100 resamples, seed "
        "7): parentAP 4.5, candidateAP 9, interval [1, 1].",
        comparison(
            [1] * 5,
            [0.5] * 5,
            options={"iterations": 100, "seed": 7},
            parent_cost=0.2,
            candidate_cost=0.1,
        ),
        partial(
            parentAP=4.5,
            candidateAP=9,
            deltaAPx=1,
            interval__lower=1,
            interval__upper=1,
            decision="PROMOTE",
        ),
        **TOLERANT,
    )


def _unaccept(run: Doc) -> None:
    for item in run["outcomes"]:
        item["accepted"] = False


def degenerate() -> None:
    def idle_parents(count: int) -> Any:
        def change(_: Doc, pairs: list[Doc]) -> None:
            for pair in pairs[:count]:
                _unaccept(pair["parent"])

        return change

    request = comparison(change=idle_parents(4))
    assert _promotion(request)["reasons"] == [FIVE]
    _case(
        "promotion",
        "apx-interval-zero-power-resample",
        ["APX-BOOT-2"],
        CMP,
        "Four parents credit nothing: some resample draws only them, its parent power is 0, "
        "every sample is discarded and there is no interval.",
        request,
        partial(interval=None, decision="REJECT", reasons=[FIVE]),
        tags=["negative"],
    )
    request = comparison(change=idle_parents(5))
    assert _promotion(request)["reasons"] == [FIVE]
    _case(
        "promotion",
        "apx-compare-zero-parent-power",
        ["APX-CMP-2"],
        CMP,
        "No parent credits anything: parentAP 0, deltaAPx null, no interval.",
        request,
        partial(parentAP=0, deltaAPx=None, interval=None, decision="REJECT"),
        tags=["negative"],
    )

    def same_speed(_: Doc, pairs: list[Doc]) -> None:
        for pair in pairs:
            pair["candidate"]["wallHours"] = pair["parent"]["wallHours"]
            pair["candidate"]["wallBreakdown"] = dict(pair["parent"]["wallBreakdown"])

    request = comparison(change=same_speed)
    assert _promotion(request)["reasons"] == ["lower 95% APx improvement bound must exceed zero"]
    _case(
        "promotion",
        "apx-reject-identical-performance",
        ["APX-REG-2"],
        CMP,
        "Identical campaigns: the lower bound is 0, so no promotion.",
        request,
        partial(
            decision="REJECT",
            deltaAPx=0,
            reasons=["lower 95% APx improvement bound must exceed zero"],
        ),
        tags=["negative"],
    )


def pair_refusals() -> None:
    def duplicate(_: Doc, pairs: list[Doc]) -> None:
        pairs[1]["parent"]["independenceId"] = pairs[1]["candidate"]["independenceId"] = "pair-0"

    def unpaired(_: Doc, pairs: list[Doc]) -> None:
        pairs[0]["candidate"]["independenceId"] = "unpaired"

    def same_run(_: Doc, pairs: list[Doc]) -> None:
        pairs[0]["candidate"]["id"] = pairs[0]["parent"]["id"]

    def supervised(_: Doc, pairs: list[Doc]) -> None:
        pairs[0]["candidate"]["assistanceMode"] = "supervised"

    def empty(_: Doc, pairs: list[Doc]) -> None:
        pairs.clear()

    for name, change, code, message in (
        (
            "duplicate-independence",
            duplicate,
            "APX-VAL-DUPLICATE",
            "independent campaign IDs contains duplicates",
        ),
        (
            "unpaired-independence",
            unpaired,
            "APX-CMP-INDEPENDENCE",
            "paired campaigns must share independenceId",
        ),
        (
            "duplicate-run-id",
            same_run,
            "APX-VAL-DUPLICATE",
            "comparison run IDs contains duplicates",
        ),
        ("assistance-mode", supervised, "APX-CMP-MODE", "paired assistance modes must match"),
        ("no-pairs", empty, "APX-VAL-ARRAY", "pairs must contain 1..100 entries"),
    ):
        _case(
            "promotion",
            f"apx-refuse-pairs-{name}",
            ["APX-CMP-1"],
            CMP,
            f"A comparison with '{name.replace('-', ' ')}' is refused.",
            comparison(change=change),
            refusal(code, V + message),
        )
    request = comparison()
    request["comparison"] = [request["comparison"]]
    _case(
        "promotion",
        "apx-refuse-comparison-array",
        ["APX-CMP-1"],
        CMP,
        "The comparison must be an object with pairs.",
        request,
        refusal("APX-VAL-OBJECT", f"{V}campaign comparison must be an object"),
    )


def regressions() -> None:
    def first_candidate(edit: Any) -> Any:
        def change(_: Doc, pairs: list[Doc]) -> None:
            edit(pairs[0]["candidate"])

        return change

    def review(hours: float) -> Any:
        def edit(run: Doc) -> None:
            run["humanReviewHours"] = hours

        return edit

    def reviews(_: Doc, pairs: list[Doc]) -> None:
        pairs[0]["candidate"]["humanReviewHours"] = 0.075
        pairs[1]["candidate"]["humanReviewHours"] = 0.025

    rows: list[tuple[str, Any, list[str], list[str]]] = [
        (
            "task-acceptance",
            first_candidate(lambda r: r["outcomes"][0].update(accepted=False)),
            [
                "finance-1: task acceptance regression",
                "financial-reconciliation: acceptance regression",
            ],
            [],
        ),
        (
            "task-quality",
            first_candidate(lambda r: r["outcomes"][0].update(quality=0.9)),
            [
                "finance-1: task quality regression",
                "financial-reconciliation: accepted quality regression",
            ],
            [],
        ),
        (
            "candidate-safety",
            first_candidate(lambda r: r["outcomes"][0].update(safety="fail")),
            [
                "finance-1: task safety regression",
                "financial-reconciliation: safety regression",
                "policy violation",
                "candidate has safety failures",
            ],
            [],
        ),
        (
            "total-cost",
            first_candidate(lambda r: r.update(costUSD=2)),
            ["total campaign cost regression", "cost per credited human hour regression"],
            [],
        ),
        (
            "candidate-policy",
            first_candidate(lambda r: r.update(policyViolations=["unapproved write"])),
            ["policy violation"],
            [],
        ),
        (
            "total-review",
            first_candidate(review(0.2)),
            ["total human review hours regression", "pair-0: campaign human labor cap exceeded"],
            [],
        ),
        (
            "review-cap-per-pair",
            reviews,
            ["pair-0: campaign human labor cap exceeded"],
            ["total human review hours regression"],
        ),
    ]
    for name, change, present, missing in rows:
        document = _promotion(comparison(change=change))
        for reason in present:
            assert reason in document["reasons"], (name, reason, document["reasons"])
        for reason in missing:
            assert reason not in document["reasons"], (name, reason)
        _case(
            "promotion",
            f"apx-regression-{name}",
            ["APX-REG-1", "APX-REG-2", "APX-REG-3"],
            CMP,
            f"Pair 0's candidate regresses ({name.replace('-', ' ')}): REJECT with the reasons "
            "in the contract's order.",
            comparison(change=change),
            partial(decision="REJECT", deployAuthorized=False, reasons=document["reasons"]),
            tags=["negative"],
            **TOLERANT,
        )
    manifest = tutorial_manifest(partition="selection")
    request = comparison()
    request["manifest"] = manifest
    for pair in request["comparison"]["pairs"]:
        for side in ("parent", "candidate"):
            pair[side] = dict(rebind(manifest, pair[side]), partition="selection")
    assert _promotion(request)["reasons"] == ["promotion requires a separate frozen holdout suite"]
    _case(
        "promotion",
        "apx-regression-selection-suite",
        ["APX-REG-2"],
        CMP,
        "A selection suite can never authorise a promotion.",
        request,
        partial(decision="REJECT", reasons=["promotion requires a separate frozen holdout suite"]),
        tags=["negative"],
    )
    capped = tutorial_manifest()
    capped["evaluator"]["humanReviewHoursCap"] = 0.04
    capped = freeze(capped)
    request = comparison()
    request["manifest"] = capped
    for pair in request["comparison"]["pairs"]:
        for side in ("parent", "candidate"):
            pair[side] = rebind(capped, pair[side])
    expected = [f"pair-{i}: campaign human labor cap exceeded" for i in range(5)]
    assert _promotion(request)["reasons"] == expected
    _case(
        "promotion",
        "apx-regression-evaluator-cap",
        ["APX-REG-1"],
        CMP,
        "An evaluator cap of 0.04 human hours is exceeded by every candidate's 0.05.",
        request,
        partial(decision="REJECT", reasons=expected),
        tags=["negative"],
    )


def tail() -> None:
    from vector_cases_imports import importers_and_claims

    hashing()
    bounds()
    generator()
    intervals()
    degenerate()
    pair_refusals()
    regressions()
    importers_and_claims()


__all__ = ["tail"]
