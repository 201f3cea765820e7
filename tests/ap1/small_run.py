"""A reduced copy of the worked example for tests that run it end to end through Inspect AI.

Four items (three derivable, one VOID), one repeat, D7 claimed alone (so no
minimum item count applies): eight planned cells, small enough that an
Inspect evaluation of it takes seconds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from apconform.ap1.inputs.plan import RunInputs, load_run_inputs
from apconform.ap1.seal.build import write_sealed_run

from .conftest import example_docs

ITEMS = ("Q01", "Q02", "Q03", "Q51")
PLANNED = 8


def small_inputs(
    url: str, model: str, items: tuple[str, ...] = ITEMS, *, timeout: str | None = None
) -> RunInputs:
    docs = example_docs()
    docs["config"]["endpoint"].update(url=url, model=model)
    if timeout is not None:  # the example's 1 s is short for a test machine under load
        docs["config"]["transport"]["timeoutSeconds"] = timeout
    docs["config"]["repeats"] = "1"
    docs["config"]["dimensionsClaimed"] = ["D7"]
    docs["questions"]["items"] = [i for i in docs["questions"]["items"] if i["id"] in items]
    docs["derivations"]["derivations"] = [
        d for d in docs["derivations"]["derivations"] if d["itemId"] in items
    ]
    return load_run_inputs(
        config=docs["config"],
        fixture=docs["fixture"],
        questions=docs["questions"],
        derivations=docs["derivations"],
        ap1_text=docs["ap1_text"],
    )


def seal_small(run_dir: Path, url: str, model: str, *, timeout: str | None = None) -> Path:
    write_sealed_run(run_dir, small_inputs(url, model, timeout=timeout))
    return run_dir


def copy_sealed(run_dir: Path, target: Path) -> Path:
    """The same sealed run in a second directory (same seal hash), before either has run."""
    shutil.copytree(run_dir, target)
    return target


def executions(report_dir: Path) -> dict[str, dict[str, Any]]:
    """executions.jsonl of a score report, by cell key."""
    lines = (report_dir / "executions.jsonl").read_text(encoding="utf-8").splitlines()
    return {doc["cellKey"]: doc for doc in map(json.loads, lines)}


def transcript_records(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "transcript.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]
