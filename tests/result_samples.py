"""Real results to compare and keep: conformance reports of the reference and faulty adapters
(the kit protocol only, so a run takes a fraction of a second) and an AP-1 score report of the
built-in endpoint (run once per session).

A report is relabelled (implementation name and version in its header) to stand for another
implementation; the header is not bound by the footer's digest, so it stays a valid report.
"""

from __future__ import annotations

import atexit
import copy
import functools
import io
import os
import shutil
import sys
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from apconform.conformance.runner import CheckOptions, run_check
from apconform.conformance.vectors import load_vectors
from apconform.results.kinds import RESULT_LIMITS
from apconform.results.records import render_jsonl

REPO = Path(__file__).resolve().parents[1]
ADAPTERS = REPO / "examples" / "adapters"
REFERENCE = "direct:apconform.conformance.reference:adapter"
FAULTY = "direct:faulty_impl:adapter"
PLANTED = "kit-jcs-negative-zero"
"""The vector the planted regression breaks (a wrong value), citing KIT-JCS-1."""


def _key(vector_id: str) -> str:
    if str(ADAPTERS) not in sys.path:
        sys.path.insert(0, str(ADAPTERS))
    import faulty_impl

    vector = next(v for v in load_vectors() if v.id == vector_id)
    return str(faulty_impl.case_key(vector.vector.operation, vector.vector.input))


@functools.cache
def _run(faults: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    if not faults:
        return run_check(CheckOptions(impl=REFERENCE, protocols=["kit"])).records
    plan = ",".join(f"{kind}={_key(vector)}" for vector, kind in faults)
    if str(ADAPTERS) not in sys.path:
        sys.path.insert(0, str(ADAPTERS))
    previous = os.environ.get("APCONFORM_FAULTS")
    os.environ["APCONFORM_FAULTS"] = plan
    try:
        return run_check(CheckOptions(impl=FAULTY, protocols=["kit"])).records
    finally:
        if previous is None:
            del os.environ["APCONFORM_FAULTS"]
        else:
            os.environ["APCONFORM_FAULTS"] = previous


def conformance_records(
    faults: dict[str, str] | None = None, *, name: str | None = None, version: str | None = None
) -> list[dict[str, Any]]:
    """A kit-protocol conformance report; ``faults`` maps vector ids to faulty_impl kinds."""
    records = copy.deepcopy(_run(tuple(sorted((faults or {}).items()))))
    implementation = records[0]["implementation"]
    if name is not None:
        implementation["name"] = name
    if version is not None:
        implementation["version"] = version
    return records


def write_report(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(render_jsonl(records), encoding="utf-8")
    return path


@functools.cache
def ap1_run_dir() -> Path:
    """A sealed, run and scored AP-1 run directory (the demo's), kept until the tests end."""
    from apconform.ap1.demo import demo_step
    from apconform.demo_context import DemoContext

    folder = Path(tempfile.mkdtemp(prefix="apconform-ap1-sample-"))
    atexit.register(shutil.rmtree, folder, True)
    assert demo_step(DemoContext(folder, io.StringIO())) == 0
    return folder / "ap1-run"


@functools.cache
def _ap1_report() -> dict[str, Any]:
    from apconform.core.files import load_path

    path = ap1_run_dir() / "report" / "score-report.json"
    report: dict[str, Any] = load_path(path, limits=RESULT_LIMITS)
    return report


def ap1_report(model: str | None = None) -> dict[str, Any]:
    """The AP-1 demo's score report (mock-mixed), optionally relabelled to another model."""
    report = copy.deepcopy(_ap1_report())
    if model is not None:
        report["run"]["model"] = model
    return report


def worsen_invocation(report: dict[str, Any]) -> dict[str, Any]:
    """Plant a regression: D7.1 (base) not invoked 80 of 93, interval far above the demo's."""
    for row in report["invocation"]["byCondition"]:
        if row["condition"] == "base":
            rate = row["failureRate"]
            rate.update(
                k="80",
                rate=str(Decimal(80) / Decimal(93)),
                clopperPearsonLower="0.7718",
                clopperPearsonUpper="0.9235",
                text="80/93 (86.0%; 95% CI 77.2%-92.4%)",
            )
    return report
