"""The parameter echo is memoised by content: a repeat gets equal findings, never shared ones."""

from __future__ import annotations

from typing import Any

import pytest

from apconform.ap1.scoring.measures.reproducibility import parameter_echo
from apconform.ap1.scoring.record import ExecutionView


def _view(*rounds: dict[str, Any]) -> ExecutionView:
    return ExecutionView(
        cell_key="c1",
        condition="base",
        item_id="i1",
        repeat="1",
        status="EXECUTED",
        status_reason=None,
        stop_reason="stop",
        final_text="42",
        tools_offered=True,
        all_rounds_readable=True,
        tool_calls=(),
        rounds=rounds,
    )


def _round(sent: Any, echoed: Any) -> dict[str, Any]:
    return {"request": {"samplingAsSent": sent}, "response": {"samplingEchoed": echoed}}


SENT = [{"name": "temperature", "sent": "0"}, {"name": "seed", "sent": "7"}]


def test_repeats_get_equal_results_that_are_not_shared() -> None:
    echoed = [{"name": "temperature", "valueJson": "0.0"}, {"name": "seed", "valueJson": "8"}]
    first = parameter_echo(_view(_round(SENT, echoed)))
    second = parameter_echo(_view(_round(SENT, echoed)))
    assert (
        first
        == second
        == {
            "status": "MISMATCH",
            "findings": [
                {
                    "parameter": "seed",
                    "requested": "7",
                    "echoed": "8",
                    "finding": "the platform reports another value than the one sent "
                    "(silently ignored or changed)",
                }
            ],
        }
    )
    first["findings"][0]["echoed"] = "changed by a caller"
    assert parameter_echo(_view(_round(SENT, echoed)))["findings"][0]["echoed"] == "8"


def test_each_round_counts_and_content_decides() -> None:
    same = [{"name": "temperature", "valueJson": "0"}, {"name": "seed", "valueJson": "7"}]
    assert parameter_echo(_view(_round(SENT, same)))["status"] == "VERIFIED"
    half = [{"name": "temperature", "valueJson": "0"}]
    two = parameter_echo(_view(_round(SENT, same), _round(SENT, half)))
    assert two["status"] == "UNVERIFIED"
    assert [f["finding"] for f in two["findings"]] == ["requested but not echoed"]
    assert parameter_echo(_view({"request": {}, "response": {}}))["status"] == "UNVERIFIED"


def test_a_member_that_cannot_be_read_still_fails_after_an_empty_one() -> None:
    assert parameter_echo(_view({"request": {}, "response": {}}))["findings"] == []
    with pytest.raises(TypeError):
        parameter_echo(_view({"request": {"samplingAsSent": None}, "response": {}}))
    with pytest.raises(TypeError):
        parameter_echo(_view({"request": {}, "response": {"samplingEchoed": 5}}))
