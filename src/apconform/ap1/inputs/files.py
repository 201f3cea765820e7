"""Reading a run's inputs from files (or the built-in worked example), with run-time overrides."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.ap1.inputs.plan import RunInputs, load_run_inputs
from apconform.ap1.inputs.sealed import read_text_file
from apconform.core.files import load_path
from apconform.resources import data_path

__all__ = ["InputPaths", "example_paths", "load_inputs", "read_text_file"]


@dataclass(frozen=True)
class InputPaths:
    """Where the five inputs are."""

    config: Path
    fixture: Path
    questions: Path
    derivations: Path
    ap1_text: Path


def example_paths(config_name: str = "config-mock.json") -> InputPaths:
    """The worked example shipped with the kit (by default configured for the built-in endpoint)."""
    folder = data_path("examples", "ap1")
    return InputPaths(
        folder / config_name,
        folder / "fixture.json",
        folder / "questions.json",
        folder / "derivations.json",
        folder / "ap1-text-stand-in.md",
    )


def load_inputs(
    paths: InputPaths, *, endpoint: str | None = None, model: str | None = None
) -> RunInputs:
    """Load and check every input; ``endpoint``/``model`` replace the configured ones first."""
    config: Any = copy.deepcopy(load_path(paths.config))
    if isinstance(config, dict) and isinstance(config.get("endpoint"), dict):
        if endpoint is not None:
            config["endpoint"]["url"] = endpoint
        if model is not None:
            config["endpoint"]["model"] = model
    text = read_text_file(paths.ap1_text)
    return load_run_inputs(
        config=config,
        fixture=load_path(paths.fixture),
        questions=load_path(paths.questions),
        derivations=load_path(paths.derivations),
        ap1_text=text,
    )
