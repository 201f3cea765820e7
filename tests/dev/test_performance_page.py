"""docs/performance.md is written from the benchmarks' saved runs, and holds no hand-kept figure."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _page_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "performance_page", BENCHMARKS / "performance_page.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("performance_page", module)
    spec.loader.exec_module(module)
    return module


page = _page_module()

NAMES_WITH_DIGITS = ("AP-1", "RFC 8785", "Ed25519", "PostgreSQL 15")
"""Names that hold a digit without being a figure."""


def _prose(markdown: str) -> str:
    """The template's text outside fenced blocks, code spans, markers and the names above."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"<!--.*?-->", "", text)
    for name in NAMES_WITH_DIGITS:
        text = text.replace(name, "")
    return text


def test_the_page_is_the_rendering_of_the_saved_runs() -> None:
    written = page.PAGE.read_text(encoding="utf-8")
    assert written == page.render(), (
        "docs/performance.md differs from the saved runs: run "
        "python tests/benchmarks/performance_page.py"
    )


def test_the_template_holds_no_figure() -> None:
    prose = _prose(page.TEMPLATE.read_text(encoding="utf-8"))
    digits = re.findall(r".{0,30}\d.{0,10}", prose)
    assert digits == [], f"a figure typed into performance_page.md: {digits}"


def test_the_digit_check_sees_a_planted_figure() -> None:
    planted = "The suite runs in 9 minutes; AP-1 and `--workers 2` are not figures."
    assert re.findall(r"\d", _prose(planted)) == ["9"]


def _saving_scripts() -> dict[str, str]:
    """result name -> script, for every benchmark that saves a run."""
    saving: dict[str, str] = {}
    for script in sorted(BENCHMARKS.glob("bench_*.py")):
        for name in re.findall(r'save\(\s*"([a-z0-9_]+)"', script.read_text(encoding="utf-8")):
            saving[name] = script.name
    return saving


def test_every_saved_benchmark_has_its_table_and_every_table_a_benchmark() -> None:
    saving = _saving_scripts()
    assert sorted(saving) == sorted(page.markers())
    assert "ci_steps" in saving and "stats" in saving and "test_suite" in saving


@pytest.mark.parametrize("path", sorted((BENCHMARKS / "results").glob("*.json")), ids=str)
def test_a_saved_run_names_its_commit_date_load_and_figures(path: Path) -> None:
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["benchmark"] == path.stem
    assert re.fullmatch(r"[0-9a-f]{7,40}(\+changes)?", saved["commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", saved["measuredOn"])
    assert isinstance(saved["loadAverage"], dict)
    assert saved["figures"], "a saved run with no headline figure"
    for row in saved["figures"]:
        assert set(row) == {"measure", "value", "baseline", "ratio", "goal", "met"}
        assert (row["goal"] is None) == (row["met"] is None)


def test_a_benchmark_without_a_saved_run_says_how_to_save_one() -> None:
    block = page.table("no_such_benchmark")
    assert block == (
        "*No saved run yet: `python tests/benchmarks/bench_no_such_benchmark.py --save`"
        " saves one.*\n"
    )


def test_a_missed_goal_is_marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = {
        "benchmark": "x",
        "commit": "abcdef1",
        "measuredOn": "2026-12-06",
        "machine": {"cores": 2, "python": "3.11.7"},
        "loadAverage": {"before": [1.0, 2.0, 3.0], "after": [1.5, 2.0, 3.0]},
        "figures": [
            {
                "measure": "a | b",
                "value": "12 s",
                "baseline": None,
                "ratio": 1.5,
                "goal": "under 10 s",
                "met": False,
            }
        ],
    }
    (tmp_path / "x.json").write_text(json.dumps(saved), encoding="utf-8")
    monkeypatch.setattr(page, "RESULTS", tmp_path)
    block = page.table("x")
    assert "commit `abcdef1`, 2026-12-06, 2 cores, Python 3.11.7" in block
    assert "load average 1.00 / 2.00 / 3.00 before, 1.50 / 2.00 / 3.00 after" in block
    assert block.endswith("| a \\| b | 12 s |  | 1.500 | under 10 s | **no** |\n")
