"""The coverage study's page: every figure and finding comes from the study's output file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from apconform.dev.coverage_page import DATA, PAGE, build_coverage_page

REPO = Path(__file__).resolve().parents[2]


def _method(coverage: float, width: float) -> dict[str, Any]:
    misses = round((1 - coverage) * 1000)
    return {
        "intervals": 1000,
        "coverage": coverage,
        "standardError": 0.007,
        "missesAbove": misses // 2,
        "missesBelow": misses - misses // 2,
        "meanWidth": width,
    }


def _scenario(name: str, population: float, apx01: float, multilevel: float) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"{name} differs",
        "populations": 1000,
        "plan": {
            "families": 12,
            "instancesPerFamily": 5,
            "participantsPerClass": 3,
            "attemptsPerParticipant": 2,
            "pairs": 10,
        },
        "components": {"familyAcceptance": 0.2, "tail": "lognormal"},
        "assumptions": {"parentAcceptance": 0.6, "candidateAcceptance": 0.7},
        "methods": {
            "population": _method(population, 1.0),
            "apx01": _method(apx01, 0.5 if apx01 < 0.9 else 0.8),
            "multilevel": _method(multilevel, 0.95),
        },
        "cpuSeconds": 20.5,
    }


def _study(*scenarios: dict[str, Any]) -> dict[str, Any]:
    return {
        "nominal": 0.95,
        "band": [0.935, 0.965],
        "trueImprovement": 0.5,
        "apx01Iterations": 2000,
        "multilevelResamples": 1000,
        "wallSeconds": 99,
        "jobs": 2,
        "machine": {"cpus": 2, "python": "3.11.7"},
        "scenarios": list(scenarios),
    }


def _page(tmp_path: Path, study: dict[str, Any]) -> str:
    (tmp_path / DATA).parent.mkdir(parents=True)
    (tmp_path / DATA).write_text(json.dumps(study), encoding="utf-8")
    return build_coverage_page(tmp_path)[PAGE]


def test_the_findings_are_computed_from_the_study(tmp_path: Path) -> None:
    page = _page(
        tmp_path,
        _study(
            _scenario("calm", 0.951, 0.912, 0.948),
            _scenario("few families", 0.970, 0.801, 0.917),
        ),
    )
    assert (
        "- The **population interval** covered 95.1% to 97.0%: inside the band in 1 of 2 "
        "scenarios." in page
    )
    assert (
        "- The **APx 0.1 paired bootstrap** under-covers the population improvement in 2 of 2 "
        "scenarios: calm (91.2%), few families (80.1%)." in page
    )
    assert "Its intervals are 0.50 to 0.80 times as wide as the population interval's." in page
    assert (
        "- The **basic multi-level bootstrap** is under the band in 1 of 2 scenarios: "
        "few families (91.7%)." in page
    )
    assert "The run took 41 CPU seconds in all and 99 seconds of wall time" in page
    assert "| few families | 1000 | 97.0% ± 0.7% over | 1.000 |" in page


def test_a_study_where_nothing_under_covers_says_so(tmp_path: Path) -> None:
    page = _page(tmp_path, _study(_scenario("calm", 0.95, 0.94, 0.95)))
    assert "- The **APx 0.1 paired bootstrap** is not under the band in any scenario." in page
    assert "- The **basic multi-level bootstrap** is not under the band in any scenario." in page


def test_the_hand_written_page_repeats_no_figure_of_the_study() -> None:
    """The study's figures live on the generated page only, so a rerun cannot leave them stale."""
    text = (REPO / "docs" / "apx" / "population.md").read_text(encoding="utf-8")
    section = text.split("## Coverage measured", 1)[1].split("\n## ", 1)[0]
    assert "population-coverage.md" in section
    figures = set(re.findall(r"\d+(?:\.\d+)?%", section))
    assert figures == {"95%", "93.5%", "96.5%"}  # the nominal level and the band
    assert not re.search(r"\b\d+ (?:CPU )?seconds\b", section)
