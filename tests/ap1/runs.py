"""Helpers for tests that seal and run the worked example against the built-in endpoint."""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path
from typing import Any

from apconform.ap1.inputs.plan import RunInputs, load_run_inputs
from apconform.ap1.seal.build import write_sealed_run

from .conftest import example_docs


def inputs_for(url: str, model: str, **config: Any) -> RunInputs:
    """The worked example with the endpoint and model replaced, plus config overrides."""
    docs = example_docs()
    docs["config"]["endpoint"].update(url=url, model=model)
    for key, value in config.items():
        if isinstance(value, dict):
            docs["config"][key].update(copy.deepcopy(value))
        else:
            docs["config"][key] = value
    return load_run_inputs(
        config=docs["config"],
        fixture=docs["fixture"],
        questions=docs["questions"],
        derivations=docs["derivations"],
        ap1_text=docs["ap1_text"],
    )


def seal_run(tmp: Path, url: str, model: str, **config: Any) -> Path:
    run_dir = tmp / "run"
    write_sealed_run(run_dir, inputs_for(url, model, **config))
    return run_dir


def example_inputs() -> RunInputs:
    return inputs_for("http://127.0.0.1:9/v1/chat/completions", "mock-correct")


STALL = Decimal("1.5")
