"""Preregistrations, power analyses and population results: frozen, schema-valid, signed."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from population_support import ASSUMPTIONS, COMPONENTS, SMALL, draft, power_request

from apconform.apx import sign, verify
from apconform.apx.population import (
    campaign_documents,
    check_preregistration,
    freeze_preregistration,
    population_request,
    simulate,
)
from apconform.apx.population import power_request as run_power
from apconform.apx.population.preregistration import preregistration_hash
from apconform.core.canonical import canonical_bytes
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.signing import Ed25519Key

ROOT = Path(__file__).resolve().parents[2]
KEY = Ed25519Key(bytes(range(32)))


def _schema(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "schemas" / "jsonschema" / f"{name}.schema.json").read_text())


def _valid(name: str, document: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(_schema(name)).validate(document)


def test_the_hash_is_sha256_of_the_rfc8785_bytes_without_hash_and_signature() -> None:
    frozen = freeze_preregistration(draft())
    body = {k: v for k, v in frozen.items() if k not in ("hash", "signature")}
    assert frozen["hash"] == hashlib.sha256(canonical_bytes(body)).hexdigest()
    assert frozen["hash"] == preregistration_hash(frozen)
    _valid("apx-ext-preregistration", frozen)
    assert check_preregistration(frozen) == frozen


def test_a_changed_preregistration_no_longer_matches_its_hash() -> None:
    frozen = freeze_preregistration(draft())
    changed = copy.deepcopy(frozen)
    changed["minimumEffect"] = 0.25
    with pytest.raises(DocumentRefused) as caught:
        check_preregistration(changed)
    assert caught.value.code == "APX-EXT-PRE-HASH"
    assert caught.value.violations[0].path == "$.hash"


def test_planned_runs_must_equal_planned_pairs_and_every_fault_is_listed() -> None:
    plan = dict(draft()["plan"], runsPerConfiguration=6)
    with pytest.raises(DocumentRefused) as caught:
        freeze_preregistration(draft(plan=plan))
    assert caught.value.code == "APX-EXT-PRE-PLAN"
    frozen = freeze_preregistration(draft())
    frozen["plan"] = plan  # now both the hash and the plan rule fail
    with pytest.raises(DocumentRefused) as caught:
        check_preregistration(frozen)
    assert [v.code for v in caught.value.violations] == ["APX-EXT-PRE-HASH", "APX-EXT-PRE-PLAN"]


def test_schema_faults_are_listed_with_their_paths() -> None:
    broken = draft(estimand="something-else", minimumEffect=0)
    broken["claim"]["direction"] = "sideways"
    with pytest.raises(DocumentRefused) as caught:
        freeze_preregistration(broken)
    assert caught.value.code == "APC-DOC-REFUSED"
    paths = {v.path for v in caught.value.violations}
    assert {"$.estimand", "$.minimumEffect", "$.claim.direction"} <= paths


def test_a_signed_preregistration_verifies_and_a_changed_one_does_not() -> None:
    signed = sign(freeze_preregistration(draft()), KEY)
    _valid("apx-ext-preregistration", signed)
    verify(signed, trusted_public_keys=[KEY.public_key_hex])
    check_preregistration(signed)  # the signature is not part of the hash
    tampered = copy.deepcopy(signed)
    tampered["holdoutCustody"]["custodian"] = "the developers"
    with pytest.raises(ApconformError) as caught:
        verify(tampered, trusted_public_keys=[KEY.public_key_hex])
    assert caught.value.code == "APC-SIG-INVALID"
    # Freezing again drops the old signature: it covered another text.
    assert "signature" not in freeze_preregistration(tampered)


def _population(preregistration: dict[str, Any] | None = None) -> dict[str, Any]:
    simulated = simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 0, record=True)
    manifest, comparison = campaign_documents(simulated)
    request: dict[str, Any] = {"manifest": manifest, "comparison": comparison}
    if preregistration is not None:
        request["preregistration"] = preregistration
    return population_request(request)


def test_a_population_result_names_its_preregistration_and_lists_departures() -> None:
    frozen = freeze_preregistration(draft())
    result = _population(frozen)
    _valid("apx-ext-population", result)
    assert result["preregistration"] == {
        "id": "prereg-population-example",
        "version": "1",
        "hash": frozen["hash"],
    }
    # The simulated campaigns follow the plan except the calibration: each participant made
    # one attempt as planned, so there is no departure.
    assert result["departures"] == []
    assert result["confirmatory"] is True
    assert result["claimSupported"] is (result["interval"]["lower"] > 0)
    # A plan of 8 pairs and a bound manifest that is not this one: both departures listed.
    binding = {
        name: "0" * 64 for name in ("suiteHash", "baselineHash", "evaluatorHash", "environmentHash")
    }
    plan = dict(frozen["plan"], pairs=8, runsPerConfiguration=8)
    other = freeze_preregistration(draft(plan=plan, manifest=binding))
    result = _population(other)
    items = [d["item"] for d in result["departures"]]
    assert items == [
        "manifest.suiteHash",
        "manifest.baselineHash",
        "manifest.evaluatorHash",
        "manifest.environmentHash",
        "plan.runsPerConfiguration",
        "plan.pairs",
    ]
    assert result["departures"][-1] == {"item": "plan.pairs", "planned": 8, "actual": 5}
    assert result["confirmatory"] is False


def test_a_population_result_carries_the_apx01_promotion_unchanged_and_signs() -> None:
    from apconform.apx import compare_document

    simulated = simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 0, record=True)
    manifest, comparison = campaign_documents(simulated)
    result = population_request({"manifest": manifest, "comparison": comparison})
    assert result["apx01"] == compare_document(manifest, comparison)
    signed = sign(result, KEY)
    _valid("apx-ext-population", signed)
    verify(signed, trusted_public_keys=[KEY.public_key_hex])


def test_a_broken_preregistration_is_refused_below_its_member() -> None:
    frozen = freeze_preregistration(draft())
    frozen["minimumEffect"] = 2
    with pytest.raises(DocumentRefused) as caught:
        _population(frozen)
    assert caught.value.code == "APX-EXT-PRE-HASH"
    assert caught.value.violations[0].path == "$.preregistration.hash"


def test_a_power_analysis_validates_and_signs() -> None:
    result = run_power(power_request())
    _valid("apx-ext-power", result)
    signed = sign(result, KEY)
    verify(signed, trusted_public_keys=[KEY.public_key_hex])
    assert result["componentSource"] == "given" and result["notes"] == []
    assert result["table"][0]["plan"]["pairs"] == 5 and result["answer"] is None
