"""Variance components estimated from a pilot campaign come back close to the ones simulated."""

from __future__ import annotations

import copy

import pytest
from population_support import ASSUMPTIONS, power_request

from apconform.apx.population import campaign_documents, estimate_components, simulate
from apconform.apx.population import power_request as run_power
from apconform.apx.population.model import Components, Plan
from apconform.core.errors import ApconformError

TRUE = Components(
    familyAcceptance=0.6,
    familyImprovement=0.4,
    instanceAcceptance=0.5,
    runAcceptance=0.3,
    runTime=0.25,
    taskTime=0.0,
    familyHours=0.5,
    participantHours=0.3,
    attemptHours=0.4,
    humanAcceptance=0.8,
)


def _pilot(plan: Plan) -> dict[str, object]:
    manifest, comparison = campaign_documents(simulate(TRUE, ASSUMPTIONS, plan, 3, 0, record=True))
    return {"manifest": manifest, "comparison": comparison}


def test_a_large_pilot_recovers_every_component() -> None:
    estimated, notes = estimate_components(_pilot(Plan(30, 6, 3, 2, 20)))
    for name in (
        "familyAcceptance",
        "familyImprovement",
        "instanceAcceptance",
        "runAcceptance",
        "runTime",
        "familyHours",
        "participantHours",
        "attemptHours",
    ):
        assert abs(getattr(estimated, name) - getattr(TRUE, name)) < 0.1, name
    assert abs(estimated.humanAcceptance - 0.8) < 0.05
    assert estimated.taskTime == 0 and notes == [
        "APx receipts record one elapsed time per campaign: taskTime is 0 and all time "
        "variation is in runTime"
    ]


def test_gaps_in_a_pilot_are_noted_not_filled_silently() -> None:
    estimated, notes = estimate_components(_pilot(Plan(5, 1, 1, 1, 3)))
    assert any("attempt and participant variation are not separated" in n for n in notes)
    assert any("no pilot class has two participants" in n for n in notes)
    assert any("no family of the pilot has two slots" in n for n in notes)
    assert estimated.attemptHours == 0 and estimated.participantHours == 0


def test_a_power_analysis_can_take_its_components_from_a_pilot() -> None:
    request = power_request(pilot=_pilot(Plan(8, 3, 2, 2, 6)))
    del request["components"]
    result = run_power(request)
    assert result["componentSource"] == "pilot"
    assert result["notes"][0].startswith("APx receipts record one elapsed time")


def test_a_pilot_without_participants_or_pairs_is_refused() -> None:
    pilot = _pilot(Plan(5, 2, 2, 1, 3))
    one_pair = {
        "manifest": pilot["manifest"],
        "comparison": {"pairs": pilot["comparison"]["pairs"][:1]},
    }  # type: ignore[index]
    with pytest.raises(ApconformError) as caught:
        estimate_components(one_pair)
    assert caught.value.code == "APX-EXT-PILOT-DESIGN"
    broken = copy.deepcopy(pilot)
    broken["comparison"]["pairs"][0]["parent"]["wallHours"] = 0  # type: ignore[index]
    with pytest.raises(ApconformError) as caught:
        estimate_components(broken)
    assert caught.value.code == "APX-VAL-NUMBER"
    assert caught.value.path.startswith("$.pilot.comparison")
