"""Who ran a transcript's executions: the instrument itself, or a harness whose record was imported.

A transcript the instrument wrote opens with a ``run-started`` record naming
the instrument version; one imported from another harness's record (an
Inspect AI log, a published reference run) carries that harness in the
record's ``provenance``. The score report states the origin (``run.origin``)
from it, so a native and an imported run of the same sealed plan are told
apart wherever the report goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["NATIVE_RUNNER", "run_origin"]

NATIVE_RUNNER = "apconform"
"""The runner of a transcript the instrument wrote as it ran."""


def run_origin(run_started: Mapping[str, Any]) -> dict[str, Any]:
    """The ``RunOrigin`` of the run whose ``run-started`` member this is."""
    provenance = run_started.get("provenance")
    if isinstance(provenance, Mapping) and provenance.get("source"):
        return {
            "runner": str(provenance["source"]),
            "runnerVersion": provenance.get("sourceVersion"),
            "model": provenance.get("model"),
        }
    return {
        "runner": NATIVE_RUNNER,
        "runnerVersion": run_started.get("instrumentVersion"),
        "model": None,
    }
