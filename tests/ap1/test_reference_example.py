"""The worked example's ground truth in derivations v2 (examples/ap1-reference) seals and evaluates.

The fixture below holds the facts of the reference's worked example (account
ids, names and values) in the reference's file shape; the question texts are
invented here (the kit ships none of the reference's texts), the ids, accounts,
expected values and step counts are the published facts.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.importers.reference.conversion import convert_reference_run
from apconform.ap1.inputs.derivations.evaluation import evaluate, reference_intermediates
from apconform.ap1.inputs.items import delivered_context
from apconform.ap1.refusal import Ap1Refused
from apconform.ap1.seal.build import write_sealed_run

from .published_runs import published

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "ap1-reference" / "derivations.json"

ACCOUNTS = [
    ("savings", "Savings Account", "15200.00", "asset", "1.2", "0.00", {}),
    ("checking", "Checking Account", "4850.00", "asset", "0.0", "12.00", {}),
    (
        "credit_card",
        "Credit Card",
        "2400.00",
        "liability",
        "18.0",
        "0.00",
        {"credit_limit": "5000.00", "min_payment": "25.00", "reward_rate": "1.5"},
    ),
    ("mortgage", "Mortgage", "287500.00", "liability", "4.20", "0.00", {"min_payment": "1437.00"}),
    ("investment", "Investment Account", "42175.00", "asset", "7.8", "15.00", {}),
]
ITEMS = [  # id, category, accounts, expected value, published step count
    ("Q01", "interest", ["savings"], "15.20", 1),
    ("Q02", "balance", ["credit_card"], "2600.00", 1),
    ("Q03", "interest", ["credit_card"], "36.00", 1),
    ("Q04", "amortisation", ["mortgage"], "430.75", 2),
    ("Q05", "balance", ["credit_card"], "2411.00", 2),
    ("Q06", "fees", ["checking"], "144.00", 1),
    ("Q07", "growth", ["investment"], "777.41", 3),
    ("Q08", "amortisation", ["mortgage"], "287069.25", 3),
    ("Q09", "net_income", ["savings", "checking"], "3.20", 2),
    ("Q10", "growth", ["investment"], "3109.65", 3),
]


def _fixture() -> dict[str, Any]:
    accounts = []
    for ident, name, balance, direction, rate, fee, extra in ACCOUNTS:
        accounts.append(
            {
                "id": ident,
                "name": name,
                "balance": balance,
                "direction": direction,
                "annual_rate": rate,
                "monthly_fee": fee,
                **extra,
            }
        )
    return {
        "fixture_version": "1.0.0",
        "domain": "personal-finance",
        "description": "Test copy of the worked example's facts.",
        "amount_convention": "Magnitudes; direction is a label.",
        "accounts": accounts,
    }


def _questions() -> dict[str, Any]:
    return {
        "questions_version": "1.0.0",
        "items": [
            {
                "id": ident,
                "category": category,
                "text": f"Invented question {ident} about {', '.join(accounts)}.",
                "required_operation": "calculator",
                "source_accounts": accounts,
                "expected_value": expected,
                "derivable": True,
                "steps": steps,
            }
            for ident, category, accounts, expected, steps in ITEMS
        ],
    }


def _inputs(derivations: Any) -> Any:
    config, seal = published("run_e_mini")
    return convert_reference_run(
        config=config,
        printed=seal,
        fixture=_fixture(),
        questions=_questions(),
        derivations=derivations,
        ap1_text="stand-in",
        records=[],
    ).inputs


def test_the_example_seals_with_the_published_step_counts(tmp_path: Path) -> None:
    """Perturbation and constant-role checks run at seal time on all ten items."""
    inputs = _inputs(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    seal = write_sealed_run(tmp_path / "run", inputs)
    assert seal["sealHash"] == json.loads((tmp_path / "run" / "seal.json").read_text())["sealHash"]
    assert [inputs.items[i].steps for i, *_ in ITEMS] == [
        "1",
        "1",
        "1",
        "2",
        "2",
        "1",
        "3",
        "3",
        "2",
        "3",
    ]


def test_each_item_evaluates_to_its_expected_value_through_its_reference_intermediates() -> None:
    inputs = _inputs(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    finals, intermediates = {}, {}
    for ident, *_ in ITEMS:
        derivation = inputs.derivation_of[ident]
        evaluation = evaluate(derivation, delivered_context(inputs.fixture, inputs.items[ident]))
        finals[ident] = evaluation.final.quantize(Decimal("0.01"))
        intermediates[ident] = [
            (label, format(value, "f"))
            for label, value in reference_intermediates(derivation, evaluation)
        ]
    assert {k: format(v, "f") for k, v in finals.items()} == {i: e for i, _, _, e, _ in ITEMS}
    assert intermediates["Q05"] == [("monthly_interest", "36.000")]
    assert intermediates["Q07"] == [
        ("monthly_return", "274.1375"),
        ("monthly_net", "259.1375"),
        ("quarterly_net", "777.4125"),
    ]
    assert intermediates["Q01"] == [("monthly_interest", "15.200")]


def test_version_1_refuses_what_version_2_says_with_roles() -> None:
    """In v1 the alternative-route constant 4 of Q07 is an unused constant and is refused."""
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["schemaVersion"] = "apconform-ap1-derivations/1"
    for derivation in document["derivations"]:
        for step in derivation["intermediates"]:
            step.pop("reference")
        for constant in derivation["constants"]:
            constant.pop("role")
            constant.pop("basis", None)
    with pytest.raises(Ap1Refused) as caught:
        _inputs(document)
    found = {(v.code, v.message) for v in caught.value.violations}
    assert ("AP1-DRV-VERSION", "multiply_then_divide is a version 2 operation") in found
    assert ("AP1-DRV-UNUSED-CONSTANT", "item Q02 declares constant one = 1 but never uses it") in (
        found
    )
    assert ("AP1-DRV-STRUCTURE", "item Q05 says it takes 2 steps but the derivation has 3") in found
