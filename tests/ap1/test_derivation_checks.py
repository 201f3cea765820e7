"""Every seal-time refusal of a derivation, each with a planted bad derivation."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from apconform.ap1.inputs.derivations.evaluation import evaluate
from apconform.ap1.inputs.items import delivered_context
from apconform.ap1.inputs.plan import RunInputs, load_run_inputs
from apconform.ap1.refusal import Ap1Refused


def _load(docs: dict[str, Any]) -> RunInputs:
    return load_run_inputs(
        config=docs["config"],
        fixture=docs["fixture"],
        questions=docs["questions"],
        derivations=docs["derivations"],
        ap1_text=docs["ap1_text"],
    )


def _refused(docs: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(Ap1Refused) as caught:
        _load(docs)
    return [(v.code, v.message) for v in caught.value.violations]


def _derivation(docs: dict[str, Any], item_id: str) -> dict[str, Any]:
    return next(d for d in docs["derivations"]["derivations"] if d["itemId"] == item_id)


def _question(docs: dict[str, Any], item_id: str) -> dict[str, Any]:
    return next(q for q in docs["questions"]["items"] if q["id"] == item_id)


def test_the_worked_example_passes_every_check(docs: dict[str, Any]) -> None:
    inputs = _load(docs)
    derivation = inputs.derivation_of["Q07"]
    result = evaluate(derivation, delivered_context(inputs.fixture, inputs.items["Q07"]))
    assert result.final == Decimal("156.6260625")
    assert [label for label, _ in result.intermediates] == [
        "annual_interest_pct",
        "annual_interest",
        "quarterly_interest",
    ]
    assert result.reads == {"card.balance", "card.annual_rate"}


def test_a_field_read_but_not_declared_is_refused(docs: dict[str, Any]) -> None:
    q01 = _derivation(docs, "Q01")
    q01["sourceFields"].remove("savings.annual_rate")
    found = _refused(docs)
    assert found[0] == (
        "AP1-DRV-UNDECLARED-READ",
        "item Q01 reads savings.annual_rate but does not declare it in sourceFields",
    )
    # The behavioural backstop sees the same field move the final.
    assert found[1][0] == "AP1-DRV-UNDECLARED-MOVES"
    assert "perturbing undeclared field savings.annual_rate changes the final" in found[1][1]


def test_a_declared_field_that_does_not_move_the_final_is_refused(docs: dict[str, Any]) -> None:
    q01 = _derivation(docs, "Q01")
    q01["sourceFields"].append("savings.monthly_fee")  # declared, never read
    assert _refused(docs) == [
        (
            "AP1-DRV-INERT-FIELD",
            "item Q01: perturbing declared field savings.monthly_fee (value 0.00; tried +1) "
            "leaves the final at 36.900",
        )
    ]


def test_a_field_that_cancels_out_is_inert(docs: dict[str, Any]) -> None:
    # The balance appears in both numerator and denominator: the ratio ignores it.
    q23 = _derivation(docs, "Q23")
    q23["sourceFields"].append("mortgage.balance")
    q23["intermediates"][0] = {
        "label": "outflow",
        "operation": "add",
        "inputs": [{"source": "mortgage.monthly_payment"}, {"source": "mortgage.escrow_monthly"}],
    }
    q23["intermediates"].insert(
        1,
        {
            "label": "scaled",
            "operation": "divide",
            "inputs": [{"source": "mortgage.balance"}, {"source": "mortgage.balance"}],
        },
    )
    q23["intermediates"][2]["inputs"][0] = {"source": "mortgage.escrow_monthly"}
    q23["intermediates"][3] = {
        "label": "escrow_pct",
        "operation": "multiply",
        "inputs": [
            {"intermediate": "escrow_fraction"},
            {"constant": "percent"},
            {"intermediate": "scaled"},
        ],
    }
    _question(docs, "Q23")["steps"] = "4"
    assert _refused(docs) == [
        (
            "AP1-DRV-INERT-FIELD",
            "item Q23: perturbing declared field mortgage.balance (value 264300.00; tried +1 and "
            "x2) leaves the final at 19.98060135790494665373423860329777",
        )
    ]


def test_a_zero_valued_field_is_perturbed_not_skipped(docs: dict[str, Any]) -> None:
    # Q05 subtracts the savings fee, which is 0.00: +1 moves the final, so it passes ...
    inputs = _load(docs)
    assert "savings.monthly_fee" in inputs.derivation_of["Q05"].sourceFields
    # ... and multiplying by it would make every other field inert, which is caught.
    q05 = _derivation(docs, "Q05")
    q05["intermediates"][3]["operation"] = "multiply"
    found = _refused(docs)
    assert [code for code, _ in found] == ["AP1-DRV-INERT-FIELD"] * 2 + ["AP1-DRV-EXPECTED"]
    assert (
        "savings.balance (value 18450.00; tried +1 and x2) leaves the final at 0.00000"
        in found[0][1]
    )


def test_an_undeclared_field_that_moves_the_final_is_refused(docs: dict[str, Any]) -> None:
    q16 = _derivation(docs, "Q16")
    q16["sourceFields"].remove("auto_loan.monthly_payment")
    found = _refused(docs)
    assert (
        "AP1-DRV-UNDECLARED-MOVES",
        "item Q16: perturbing undeclared field "
        "auto_loan.monthly_payment changes the final (17467.465 becomes 17466.465)",
    ) in found


def test_a_declared_constant_that_is_never_used_is_refused(docs: dict[str, Any]) -> None:
    # The reference's E3: Q07 declared 4 without using it, so operand 4 grounded silently.
    q02 = _derivation(docs, "Q02")
    q02["constants"].append({"name": "quarters", "value": "4", "meaning": "quarters in a year"})
    assert _refused(docs) == [
        ("AP1-DRV-UNUSED-CONSTANT", "item Q02 declares constant quarters = 4 but never uses it")
    ]


def test_disagreement_with_the_expected_value_is_refused(docs: dict[str, Any]) -> None:
    _question(docs, "Q07")["expectedValue"] = "156.64"
    assert _refused(docs) == [
        (
            "AP1-DRV-EXPECTED",
            "item Q07: the derivation gives 156.6260625 (156.63 quantised to 2 places, "
            "ROUND_HALF_UP) but the question expects 156.64",
        )
    ]


def test_expected_value_at_full_precision_is_accepted(docs: dict[str, Any]) -> None:
    _question(docs, "Q07")["expectedValue"] = "156.6260625"
    assert _load(docs).items["Q07"].expectedValue == "156.6260625"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["intermediates"][1]["inputs"].__setitem__(0, {"intermediate": "later"}),
            "later is not the label of an earlier step",
        ),
        (
            lambda d: d["intermediates"][0]["inputs"].__setitem__(
                0, {"source": "savings.direction"}
            ),
            "savings.direction is a label, not an amount",
        ),
        (
            lambda d: d["intermediates"][0]["inputs"].__setitem__(0, {"source": "card.balance"}),
            "card.balance: entity card is not delivered with item Q01",
        ),
        (
            lambda d: d["intermediates"][1]["inputs"].__setitem__(1, {"constant": "hundred"}),
            "constant hundred is not declared",
        ),
        (
            lambda d: d["intermediates"][1]["inputs"].__setitem__(
                1, {"constant": "percent", "intermediate": "annual_interest_pct"}
            ),
            "an input names exactly one of source, intermediate or constant",
        ),
        (
            lambda d: d.__setitem__("final", "annual_interest"),
            "step monthly_interest does not feed the final annual_interest",
        ),
    ],
)
def test_structural_faults_are_refused(docs: dict[str, Any], change: Any, message: str) -> None:
    change(_derivation(docs, "Q01"))
    found = _refused(docs)
    assert found[0][0] == "AP1-DRV-STRUCTURE"
    assert message in found[0][1]


def test_the_derivable_flag_must_agree_and_every_item_needs_a_derivation(
    docs: dict[str, Any],
) -> None:
    _derivation(docs, "Q51")["derivable"] = True
    docs["derivations"]["derivations"] = [
        d for d in docs["derivations"]["derivations"] if d["itemId"] != "Q50"
    ]
    found = _refused(docs)
    assert ("AP1-DRV-COVERAGE", "item Q50 has no derivation") in found
    assert (
        "AP1-DRV-COVERAGE",
        "item Q51: the question says derivable=false but the derivation says true",
    ) in found


def test_an_arithmetic_failure_in_a_derivation_is_refused(docs: dict[str, Any]) -> None:
    q06 = _derivation(docs, "Q06")
    q06["intermediates"][1]["inputs"][1] = {"source": "savings.monthly_fee"}
    _question(docs, "Q06")["sourceEntities"].append("savings")
    q06["sourceFields"].append("savings.monthly_fee")
    found = _refused(docs)
    assert found[0] == (
        "AP1-DRV-EVALUATION",
        "item Q06: step annual_interest: divide failed (DivisionByZero)",
    )


def test_minimum_counts_are_enforced_per_claimed_dimension(docs: dict[str, Any]) -> None:
    docs["config"]["dimensionsClaimed"] = ["D1", "D2", "D5", "D6", "D7"]
    items = docs["questions"]["items"]
    for item in items[:9]:
        item["conflictClass"] = "stale-source"
    items[0]["category"] = "interest_rare"
    found = _refused(docs)
    assert found == [
        (
            "AP1-MINIMUM-N",
            "D1 is claimed but has 9 derivable items in category interest; "
            "AP-1 requires at least 10",
        ),
        (
            "AP1-MINIMUM-N",
            "D1 is claimed but has 1 derivable items in category interest_rare; "
            "AP-1 requires at least 10",
        ),
        ("AP1-MINIMUM-N", "D2 is claimed but has 2 repeats per item; AP-1 requires at least 50"),
        (
            "AP1-MINIMUM-N",
            "D5 is claimed but has 0 items with an adversarialClass; AP-1 requires at least 20",
        ),
        (
            "AP1-MINIMUM-N",
            "D6 is claimed but has 9 items with a conflictClass; AP-1 requires at least 10",
        ),
    ]


def test_the_ap1_text_must_have_the_declared_hash(docs: dict[str, Any]) -> None:
    docs["ap1_text"] += "an edit\n"
    found = _refused(docs)
    assert found[0][0] == "AP1-SEAL-TEXT-MISMATCH"
