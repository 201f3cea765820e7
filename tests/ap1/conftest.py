"""Shared fixtures: fresh copies of the worked example's documents."""

from __future__ import annotations

import copy
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ap1"


@cache
def _documents() -> dict[str, Any]:
    names = {
        "config": "config-mock.json",
        "fixture": "fixture.json",
        "questions": "questions.json",
        "derivations": "derivations.json",
    }
    docs: dict[str, Any] = {
        key: json.loads((EXAMPLE / name).read_text(encoding="utf-8")) for key, name in names.items()
    }
    docs["ap1_text"] = (EXAMPLE / "ap1-text-stand-in.md").read_text(encoding="utf-8")
    return docs


@pytest.fixture
def docs() -> dict[str, Any]:
    """The worked example (mock config) as plain JSON values, safe to modify."""
    return copy.deepcopy(_documents())


def example_docs() -> dict[str, Any]:
    return copy.deepcopy(_documents())


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The AP-1 demo step run once (seal, run against mock-mixed, score): (run dir, its output)."""
    from apconform.ap1.demo import demo_step
    from apconform.demo_context import DemoContext

    folder = tmp_path_factory.mktemp("demo")
    out = io.StringIO()
    assert demo_step(DemoContext(folder, out)) == 0
    return folder / "ap1-run", out.getvalue()
