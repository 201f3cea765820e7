"""Helpers for building the APx golden vectors (the cases are in vector_cases.py)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apconform.apx import freeze, rebind
from apconform.apx.tutorial import (
    measured_tutorial,
    tutorial_campaign,
    tutorial_manifest,
    tutorial_pairs,
)

ROOT = Path(__file__).resolve().parents[2] / "vectors" / "apx"
TOLERANCE = {"decimals": "exact-text", "floatRelativeTolerance": "0.000000000000001"}
LOG2_9 = math.log2(9)
MODES = "autonomous, evaluation-only, supervised, collaborative"
V = "APx validation: "

Doc = dict[str, Any]
VECTORS: dict[str, Doc] = {}


def _case(
    area: str,
    vector_id: str,
    clauses: list[str],
    operation: str,
    description: str,
    given: Any,
    expected: Doc,
    *,
    tags: list[str] | None = None,
    tolerant: bool = False,
    comparison: Doc | None = None,
) -> None:
    document: Doc = {
        "schemaVersion": "apconform-vector/1",
        "id": vector_id,
        "protocol": "apx",
        "protocolVersion": "0.1",
        "clauses": clauses,
        "operation": operation,
        "description": description,
    }
    if tags:
        document["tags"] = tags
    document["input"] = given
    document["expected"] = expected
    if tolerant:
        document["comparison"] = TOLERANCE
    if comparison is not None:
        document["comparison"] = comparison
    path = f"{area}/{vector_id}.json"
    assert path not in VECTORS, path
    VECTORS[path] = document


def exact(document: Any) -> Doc:
    return {"kind": "exact", "document": document}


def partial(pointers: dict[str, Any] | None = None, **by_name: Any) -> Doc:
    """Matchers: ``pointers`` maps JSON Pointers to values; keyword ``a__b`` means ``/a/b``."""
    found = dict(pointers or {})
    found.update({"/" + key.replace("__", "/"): value for key, value in by_name.items()})
    return {
        "kind": "partial",
        "matchers": [{"path": path, "equals": value} for path, value in found.items()],
    }


def refusal(code: str, message: str | None = None, path: str | None = None) -> Doc:
    out: Doc = {"kind": "refusal", "errorCode": code}
    if message is not None:
        out["message"] = message
    if path is not None:
        out["path"] = path
    return out


def campaign(change: Callable[[Doc, Doc], None] | None = None) -> Doc:
    """The tutorial campaign as an evaluation request, changed without refreezing."""
    manifest, run = tutorial_campaign()
    if change is not None:
        change(manifest, run)
    return {"manifest": manifest, "run": run}


def refrozen(change: Callable[[Doc, Doc], None]) -> Doc:
    """The tutorial campaign changed, then refrozen, with the run rebound to the new hashes."""
    request = campaign(change)
    manifest = freeze(request["manifest"])
    return {"manifest": manifest, "run": rebind(manifest, request["run"])}


def measured(change: Callable[[Doc, Doc], None] | None = None, *, refreeze: bool = False) -> Doc:
    manifest, run = measured_tutorial()
    if change is not None:
        change(manifest, run)
    if refreeze:
        manifest = freeze(manifest)
        run = rebind(manifest, run)
    return {"manifest": manifest, "run": run}


def comparison(
    parents: list[float] | None = None,
    candidates: list[float] | None = None,
    change: Callable[[Doc, list[Doc]], None] | None = None,
    options: Doc | None = None,
    **costs: float,
) -> Doc:
    manifest = tutorial_manifest()
    pairs = tutorial_pairs(manifest, parents or [0.5] * 5, candidates or [0.25] * 5, **costs)
    if change is not None:
        change(manifest, pairs)
    request: Doc = {"manifest": manifest, "comparison": {"pairs": pairs}}
    if options is not None:
        request["options"] = options
    return request


def set_outcome(index: int, **members: Any) -> Callable[[Doc, Doc], None]:
    def change(_: Doc, run: Doc) -> None:
        for key, value in members.items():
            run["outcomes"][index][key] = value

    return change


def set_run(**members: Any) -> Callable[[Doc, Doc], None]:
    def change(_: Doc, run: Doc) -> None:
        for key, value in members.items():
            run[key] = value

    return change


def drop_run(name: str) -> Callable[[Doc, Doc], None]:
    def change(_: Doc, run: Doc) -> None:
        del run[name]

    return change


def render(document: Doc) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
