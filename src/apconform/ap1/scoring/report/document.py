"""The score report document: a profile of every dimension, never a grade.

The document carries the scorer's identity, the integrity of what was scored
(the inputs' hashes against the seal, the transcript chain, the plan's
coverage), the seal and the resolved configuration, one cell per dimension
with its status, n and evidence class, the measured sections, the declared
unmeasured dimensions and the limitations. It holds no clock time and no path,
so re-scoring the same transcript against the same inputs with the same
scorer reproduces it byte for byte.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from apconform import __version__
from apconform.ap1.inputs.plan import plan_groups
from apconform.ap1.inputs.sealed import SEALED_NAMES
from apconform.ap1.scoring.adjudication.merged_document import Ap1Adjudication
from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.report.score_report import (
    Ap1ScoreReport,
    InputCheck,
    ScoredRun,
    ScoreIntegrity,
    ScorerIdentity,
    StatusCount,
)
from apconform.ap1.scoring.report.sections import (
    accuracy_section,
    answers_section,
    coverage_section,
    invocation_section,
    operation_section,
    provenance_section,
    reproducibility_section,
    transcription_section,
)
from apconform.ap1.scoring.report.summary import (
    MeasuredSections,
    dimension_cells,
    limitations,
    unmeasured_dimensions,
)
from apconform.ap1.scoring.rows import TranscriptProblem
from apconform.ap1.scoring.tally import CellTally
from apconform.ap1.transcript.origin import run_origin
from apconform.core.canonical import normalize_newlines, sha256_hex
from apconform.core.spooled import plain_rows

__all__ = ["RULES_VERSION", "SCHEMA_VERSION", "RunFacts", "build_report", "scorer_identity"]

SCHEMA_VERSION = "apconform-ap1-score-report/1"
RULES_VERSION = "apconform-ap1-scoring/1"
PROFILE_STATEMENT = (
    "AP-1 yields a profile, not a verdict. Each dimension is reported on its own with its n, its "
    "bounds and its evidence class; figures resting on different evidence classes are not "
    "comparable; unmeasured, unobservable and void cells are declared with their reasons. There "
    "is no pass mark, no score out of anything, and no overall judgement in this report."
)
_PACKAGE = Path(__file__).resolve().parents[3]
_SCORER_FOLDERS = ("ap1/scoring", "ap1/calculator")
_SCORER_FILES = ("ap1/numbers.py", "core/stats.py")


@cache
def _scorer_source_hash() -> str:
    files = [_PACKAGE / rel for rel in _SCORER_FILES]
    for folder in _SCORER_FOLDERS:
        files.extend(p for p in (_PACKAGE / folder).rglob("*.py") if "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(_PACKAGE).as_posix()):
        rel = "apconform/" + path.relative_to(_PACKAGE).as_posix()
        text = normalize_newlines(path.read_bytes().decode("utf-8"))
        digest.update(rel.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return digest.hexdigest()


def scorer_identity() -> ScorerIdentity:
    """Which scorer wrote a report: package version, rules version and a hash of its source."""
    return {
        "name": "apconform-ap1-scorer",
        "version": __version__,
        "rulesVersion": RULES_VERSION,
        "sourceSha256": _scorer_source_hash(),
        "sourceHashMethod": "sha256 over sorted apconform/{"
        + ",".join(f"{folder}/**/*.py" for folder in _SCORER_FOLDERS)
        + ","
        + ",".join(_SCORER_FILES)
        + "}: path NUL text-with-LF NUL",
    }


@dataclass
class RunFacts:
    """What is known about the scored run besides its executions."""

    seal: dict[str, Any] | None
    documents: dict[str, object]
    """The sealed documents as read, by name (hashed and carried into the report)."""
    ap1_text_sha256: str | None
    records: int = 0
    problems: list[TranscriptProblem] = field(default_factory=list)
    seal_hashes: set[str] = field(default_factory=set)
    recorded: CellTally | None = None
    """The recorded cell keys (set by the rescorer, which knows the plan)."""
    duplicates: list[str] = field(default_factory=list)
    finished: bool = False
    run_started: dict[str, Any] | None = None
    adjudication: Ap1Adjudication | None = None
    head_sha256: str = "0" * 64
    """The sha256 the last record read carries: with ``records``, what the report scored."""
    deferrals: Counter[str] = field(default_factory=Counter)
    """Cell key -> its cell-deferred records (executions that failed at the endpoint)."""
    deferral_causes: Counter[str] = field(default_factory=Counter)


def _integrity(facts: RunFacts, inputs: ScoringInputs) -> ScoreIntegrity:
    seal = facts.seal
    checks: list[InputCheck] = []
    for name in SEALED_NAMES:
        actual = sha256_hex(facts.documents[name])
        sealed = seal["inputs"][name]["sha256"] if seal is not None else None
        checks.append(
            {
                "name": name,
                "sealedSha256": sealed,
                "actualSha256": actual,
                "matches": None if sealed is None else sealed == actual,
            }
        )
    if facts.ap1_text_sha256 is not None:
        sealed_text = seal["ap1"]["textSha256"] if seal is not None else None
        checks.append(
            {
                "name": "ap1Text",
                "sealedSha256": sealed_text,
                "actualSha256": facts.ap1_text_sha256,
                "matches": None if sealed_text is None else sealed_text == facts.ap1_text_sha256,
            }
        )
    differ = [c["name"] for c in checks if c["matches"] is False]
    seal_hash = seal["sealHash"] if seal is not None else None
    foreign = sorted(h for h in facts.seal_hashes if h != seal_hash) if seal_hash else []
    if seal is None:
        statement = (
            "No seal record was supplied: the inputs' hashes are listed but not checked against a "
            "seal."
        )
    elif differ:
        statement = (
            "THE INPUTS DIFFER FROM THE SEAL (" + ", ".join(differ) + "): this report scores the "
            "inputs as supplied, which are not the sealed ones; its figures are not the sealed "
            "run's figures."
        )
    else:
        statement = "Every input's hash equals the seal's."
    if foreign:
        statement += " Records of the transcript name another seal: " + ", ".join(foreign) + "."
    recorded = facts.recorded
    if recorded is None:
        recorded = facts.recorded = CellTally(plan_groups(inputs.inputs))
    return {
        "sealSupplied": seal is not None,
        "inputs": checks,
        "inputsMatchSeal": None if seal is None else not differ,
        "statement": statement,
        "transcript": {
            "verified": not facts.problems,
            "records": str(facts.records),
            "headSha256": facts.head_sha256,
            "executions": str(len(recorded)),
            "sealHashes": sorted(facts.seal_hashes),
            "problems": facts.problems,
        },
        "plan": {
            "planned": str(recorded.planned),
            "recorded": str(recorded.in_plan),
            "missing": str(recorded.planned - recorded.in_plan),
            "unplanned": str(recorded.unplanned),
            "duplicates": facts.duplicates,
            "finished": facts.finished,
            "retried": str(sum(1 for key in facts.deferrals if key in recorded)),
            "deferred": str(
                sum(
                    1 for key in facts.deferrals if recorded.is_planned(key) and key not in recorded
                )
            ),
            "deferralCauses": [
                {"cause": cause, "count": str(count)}
                for cause, count in sorted(facts.deferral_causes.items())
            ],
        },
        "adjudication": None
        if facts.adjudication is None
        else {"sha256": sha256_hex(facts.adjudication)},
    }


def _run(facts: RunFacts, inputs: ScoringInputs) -> ScoredRun:
    config = inputs.inputs.config.model
    started = facts.run_started or {}
    run: ScoredRun = {
        "sealHash": facts.seal["sealHash"] if facts.seal is not None else None,
        "endpointUrl": config.endpoint.url,
        "model": config.endpoint.model,
        "ap1Version": config.ap1.version,
        "ap1VersionDoi": config.ap1.versionDoi,
        "instrumentVersion": started.get("instrumentVersion"),
        "dimensionsClaimed": list(inputs.claimed),
    }
    if facts.run_started:  # a transcript without run-started does not say who ran it
        run["origin"] = run_origin(facts.run_started)
    return run


def build_report(acc: Accumulator, inputs: ScoringInputs, facts: RunFacts) -> Ap1ScoreReport:
    """The complete score report document."""
    from apconform.ap1.scoring.adjudication.section import (
        adjudicated_section,
        dimension_adjudication,
    )

    sections: MeasuredSections = {
        "accuracy": accuracy_section(acc, inputs),
        "reproducibility": reproducibility_section(acc, inputs),
        "invocation": invocation_section(acc, inputs),
        "operandProvenance": provenance_section(acc, inputs),
        "operationCorrectness": operation_section(acc, inputs),
        "transcription": transcription_section(acc, inputs),
        "releaseCoverage": coverage_section(acc, inputs),
        "answers": answers_section(acc, inputs),
    }
    adjudication = adjudicated_section(acc, facts.adjudication)
    dimensions = dimension_cells(sections, adjudication, inputs)
    for cell in dimensions:
        adjudicated = dimension_adjudication(adjudication, cell["dimension"])
        if adjudicated is not None:
            cell["adjudication"] = adjudicated
    return {
        "schemaVersion": SCHEMA_VERSION,
        "scorer": scorer_identity(),
        "profileStatement": PROFILE_STATEMENT,
        "run": _run(facts, inputs),
        "integrity": _integrity(facts, inputs),
        "seal": facts.seal,
        "configuration": facts.documents["config"],
        "dimensions": dimensions,
        "statusCounts": _status_counts(acc),
        "nonOutcomeCells": plain_rows(acc.non_outcome),
        "unreadableRecords": acc.unreadable,
        **sections,
        "adjudication": adjudication,
        "unmeasured": unmeasured_dimensions(inputs, acc),
        "limitations": limitations(),
    }


def _status_counts(acc: Accumulator) -> list[StatusCount]:
    return [{"status": k, "count": str(v)} for k, v in sorted(_statuses(acc).items())]


def _statuses(acc: Accumulator) -> dict[str, int]:
    out: dict[str, int] = {}
    for cell in acc.cells.values():
        for status, count in cell.statuses.items():
            out[status] = out.get(status, 0) + count
    return out
