"""The kernel's Python API: faults JSON cannot carry, typed models, check order, fast paths."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.apx import (
    ApxRefused,
    compare,
    digest,
    evaluate,
    evaluate_document,
    validate_manifest,
    validate_run,
)
from apconform.apx.bootstrap import bootstrap_deltas, draws, indices, percentile
from apconform.apx.guard import guard
from apconform.apx.measured import es_date_time
from apconform.apx.tutorial import (
    measured_tutorial,
    tutorial_campaign,
    tutorial_manifest,
    tutorial_pairs,
)
from apconform.core.canonical import sha256_hex
from apconform.models.apx import Manifest, Promotion, Result, Run


def _refusal(call: Any) -> ApxRefused:
    with pytest.raises(ApxRefused) as info:
        call()
    return info.value


@pytest.mark.parametrize(
    "member,value",
    [("costUSD", math.nan), ("wallHours", math.inf), ("humanReviewHours", -math.inf)],
)
def test_non_finite_numbers_are_refused_by_the_guard(member: str, value: float) -> None:
    manifest, run = tutorial_campaign()
    run[member] = value
    error = _refusal(lambda: evaluate_document(manifest, run))
    assert error.message == "APx validation: canonical value is not finite"
    assert error.code == "APX-GUARD-NONFINITE"
    assert error.path == f"$.run.{member}"


def test_cycles_depth_and_plain_types() -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    assert _refusal(lambda: guard(cyclic)).message == "APx validation: cyclic structured input"
    deep: Any = 0
    for _ in range(35):
        deep = {"a": deep}
    error = _refusal(lambda: digest(deep) if guard(deep) is None else None)
    assert error.message == "APx validation: JSON nesting or node limit exceeded"
    assert (
        _refusal(lambda: guard({"a": (1, 2)})).message
        == "APx validation: nonplain structured input"
    )
    assert _refusal(lambda: guard({1: "x"})).code == "APX-GUARD-TYPE"
    shared = [1, 2]
    guard({"a": shared, "b": shared})  # shared, not cyclic: fine


def test_models_and_plain_json_give_the_same_result() -> None:
    manifest, run = tutorial_campaign()
    plain = evaluate_document(manifest, run)
    typed = evaluate(Manifest.model_validate(manifest), Run.model_validate(run))
    assert isinstance(typed, Result)
    assert typed.AP == 9 and typed.APx == math.log2(9)
    assert typed.model_dump(mode="json", exclude_unset=True) == json.loads(json.dumps(plain))


def test_check_results_offer_typed_models() -> None:
    manifest, run = measured_tutorial()
    checked = validate_run(manifest, run)
    assert checked.model.baseline.kind == "measured"
    assert checked.run_model.outcomes[0].provenance[0].independent is True
    assert checked.calibration["output-verification"].referenceHumanHours == 1.5


def test_compare_returns_a_promotion_model() -> None:
    manifest = tutorial_manifest()
    promotion = compare(manifest, {"pairs": tutorial_pairs(manifest, [0.5] * 5, [0.25] * 5)})
    assert isinstance(promotion, Promotion)
    assert promotion.deployAuthorized is False and promotion.decision == "PROMOTE"


def test_validate_run_guards_the_run_before_reading_the_manifest() -> None:
    manifest, run = tutorial_campaign()
    manifest["schemaVersion"] = "apx/9"
    run["notes"] = {"__proto__": 1}
    error = _refusal(lambda: validate_run(manifest, run))
    assert error.code == "APX-GUARD-RESERVED" and error.path == "$.run.notes.__proto__"
    error = _refusal(lambda: evaluate_document(manifest, run))
    assert [v.code for v in error.violations] == ["APX-MAN-VERSION", "APX-GUARD-RESERVED"]


def test_every_violation_is_listed_with_its_path() -> None:
    manifest, run = tutorial_campaign()
    manifest["suite"]["slots"][0]["id"] = "  "
    for outcome in run["outcomes"]:
        outcome["quality"] = 2
    error = _refusal(lambda: evaluate_document(manifest, run))
    assert [(v.code, v.path) for v in error.violations] == [
        ("APX-MAN-HASH", "$.manifest.suite.hash"),
        ("APX-VAL-STRING", "$.manifest.suite.slots[0].id"),
        ("APX-MAN-TASKSET", "$.manifest.suite.taskSetHash"),
        ("APX-VAL-NUMBER", "$.run.outcomes[0].quality"),
        ("APX-VAL-NUMBER", "$.run.outcomes[1].quality"),
        ("APX-VAL-NUMBER", "$.run.outcomes[2].quality"),
    ]
    assert error.message == "APx validation: suite frozen hash mismatch"


def test_violations_are_capped_with_a_final_count() -> None:
    manifest = tutorial_manifest()
    manifest["baseline"]["predeclaredAttemptIds"] = [" "] * 1500
    error = _refusal(lambda: validate_manifest(manifest))
    assert len(error.violations) == 1001
    assert error.violations[-1].code == "APX-VAL-MORE"
    assert "more violation(s)" in error.violations[-1].message


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",))),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(max_size=5).filter(
                lambda k: k not in ("__proto__", "constructor", "prototype")
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_fast_digest_equals_the_core_digest(value: Any) -> None:
    if isinstance(value, dict | list):
        assert digest(value) == sha256_hex(value)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 100), st.integers(1, 9000))
def test_packed_indices_equal_the_plain_generator(seed: int, pairs: int, count: int) -> None:
    assert list(indices(seed, count, pairs)) == [math.floor(u * pairs) for u in draws(seed, count)]


def _plain_bootstrap(
    parent: list[tuple[float, float]],
    candidate: list[tuple[float, float]],
    iterations: int,
    seed: int,
) -> list[float]:
    n, state, samples = len(parent), seed, []
    for _ in range(iterations):
        picks = []
        for _ in range(n):
            state = (1664525 * state + 1013904223) % 2**32
            picks.append(math.floor(state / 2**32 * n))
        sums = [0.0, 0.0, 0.0, 0.0]
        for index in picks:
            sums[0] += parent[index][0]
            sums[1] += parent[index][1]
            sums[2] += candidate[index][0]
            sums[3] += candidate[index][1]
        p, c = sums[0] / sums[1], sums[2] / sums[3]
        if p == 0 or c == 0:
            return []
        samples.append(math.log2(c / p))
    return sorted(samples)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 100), st.floats(0.01, 50), st.floats(0, 100), st.floats(0.01, 50)),
        min_size=5,
        max_size=12,
    ),
    st.integers(0, 2**32 - 1),
)
def test_bootstrap_equals_a_plain_loop(
    rows: list[tuple[float, float, float, float]], seed: int
) -> None:
    parent = [(w, t) for w, t, _, _ in rows]
    candidate = [(w, t) for _, _, w, t in rows]
    assert bootstrap_deltas(parent, candidate, 100, seed) == _plain_bootstrap(
        parent, candidate, 100, seed
    )


def test_floor_index_percentiles() -> None:
    samples = [float(i) for i in range(2000)]
    assert percentile(samples, 0.025) == 49 and percentile(samples, 0.975) == 1949
    assert percentile(list(range(100)), 0.025) == 2 and percentile(list(range(100)), 0.975) == 96


@pytest.mark.parametrize(
    "text,ok",
    [
        ("2026-09-01T00:00:00Z", True),
        ("2026-09-01T00:00", True),
        ("2026-09-01T23:59:59.123+05:30", True),
        ("2026-02-31T00:00:00Z", True),
        ("2026-09-01T24:00:00Z", True),
        ("2026-09-01T24:00:01Z", False),
        ("2026-13-01T00:00:00Z", False),
        ("2026-09-01Tnoon", False),
        ("yesterday", False),
    ],
)
def test_predeclaration_times(text: str, ok: bool) -> None:
    assert es_date_time(text) is ok


def test_toy_tasks_really_pass_and_the_measured_tutorial_is_a_pilot() -> None:
    from apconform.apx.tutorial import toy_checks

    checks = toy_checks()
    assert [check["passed"] for check in checks] == [True, True, True]
    assert checks[0]["result"] == {"cents": 5500}
    assert checks[1]["result"]["ranking"] == ["current-primary", "older-primary", "secondary"]
    assert checks[2]["result"] == {"runningTotals": [2, 1, 5, 5]}
    manifest, run = measured_tutorial()
    assert evaluate_document(manifest, run)["status"] == "pilot"


def test_integer_like_class_ids_come_first_as_in_ecmascript() -> None:
    from apconform.apx import freeze, rebind

    manifest, run = tutorial_campaign()
    renames = {
        "financial-reconciliation": "x",
        "source-prioritization": "10",
        "output-verification": "2",
    }
    for slot in manifest["suite"]["slots"]:
        slot["classId"] = renames[slot["classId"]]
    for attempt in manifest["baseline"]["attempts"]:
        attempt["classId"] = renames[attempt["classId"]]
    manifest = freeze(manifest)
    result = evaluate_document(manifest, rebind(manifest, run))
    assert list(result["perClass"]) == ["2", "10", "x"]
    assert list(result["classPower"]) == ["2", "10", "x"]


guard_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 10)
    | st.sampled_from([0.5, -0.0, math.nan, math.inf, 1e308])
    | st.sampled_from(["a", "é", "\ud800", " "]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["a", "b", "__proto__", "prototype", "ü"]), children, max_size=3
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(guard_values, st.integers(0, 34))
def test_fast_guard_agrees_with_the_exact_walk(value: Any, depth: int) -> None:
    from apconform.apx.guard import _Fault, _Walk

    for _ in range(depth):
        value = [value]
    try:
        if isinstance(value, dict | list):
            _Walk().container(value, 0)
        else:
            guard(value)
        exact_ok = True
    except (_Fault, ApxRefused):
        exact_ok = False
    try:
        guard(value)
        fast_ok = True
    except ApxRefused:
        fast_ok = False
    assert fast_ok is exact_ok
