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

from apconform.ap1.transcript.records import RunOriginJson

__all__ = ["NATIVE_RUNNER", "run_origin"]

NATIVE_RUNNER = "apconform"
"""The runner of a transcript the instrument wrote as it ran."""


def run_origin(run_started: Mapping[str, object]) -> RunOriginJson:
    """The ``RunOrigin`` of the run whose ``run-started`` member this is (a ``RunStartedEvent``
    that met its schema: the versions and the model named are strings)."""
    provenance = run_started.get("provenance")
    if isinstance(provenance, Mapping) and provenance.get("source"):
        return {
            "runner": str(provenance["source"]),
            "runnerVersion": _text(provenance.get("sourceVersion")),
            "model": _text(provenance.get("model")),
        }
    return {
        "runner": NATIVE_RUNNER,
        "runnerVersion": _text(run_started.get("instrumentVersion")),
        "model": None,
    }


def _text(value: object) -> str | None:
    """A member that is text when present (None when absent)."""
    return value if isinstance(value, str) else None
