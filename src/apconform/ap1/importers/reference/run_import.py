"""Importing one published run of the reference instrument into a new apconform run directory.

The import checks before it writes: the reference's own configuration and
seal hashes are recomputed from the published values and must equal them; the
AP-1 text must have the hash the configuration declares; every transcript
record must carry the published seal hash, come in the reference's order and
agree with the supplied inputs. Only then are the converted inputs sealed (an
apconform seal, over the converted documents), the converted records appended
to a new hash-chained transcript, and the import record and the reference's own
verdicts written beside them. A refusal writes nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform import __version__
from apconform.ap1.importers.reference.conversion import convert_reference_run, reference_source
from apconform.ap1.importers.reference.documents import (
    INSTRUMENT,
)
from apconform.ap1.importers.reference.import_record import ImportRecord, InputFileCheck
from apconform.ap1.importers.reference.records import (
    IMPORT_RECORD,
    ConvertedExecution,
    iterate_records,
)
from apconform.ap1.importers.reference.report import read_published_report
from apconform.ap1.inputs.plan import RunInputs, plan_cells
from apconform.ap1.rundir import HEAD_FILE, TRANSCRIPT_FILE, create_file, refuse_existing_run
from apconform.ap1.seal.build import write_sealed_run
from apconform.ap1.transcript.chain import TranscriptWriter
from apconform.ap1.transcript.head import head_document, write_head
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, define_code
from apconform.core.files import read_file
from apconform.core.jsonload import Limits, loads
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1ImportRecord, Ap1ReferenceVerdict

__all__ = [
    "IMPORT_FILE",
    "VERDICTS_FILE",
    "ImportedRun",
    "ReferenceSources",
    "import_reference_run",
]

IMPORT_TEXT = define_code(
    "AP1-IMPORT-TEXT",
    "The AP-1 text does not have the hash the reference configuration declares",
    "Give the sealed copy of the AP-1 text the reference ran against (its reference/ folder), "
    "byte for byte.",
    exit_status=1,
)
IMPORT_FILES = define_code(
    "AP1-IMPORT-FILES",
    "A file the import needs is missing or unreadable",
    "Give the reference run's output folder (smoke_run.jsonl and report.md) and the files "
    "named by --fixture, --questions, --derivations and --ap1-text.",
)

IMPORT_FILE = "import/import-record.json"
VERDICTS_FILE = "import/reference-verdicts.jsonl"
_TRANSCRIPT_LIMIT = 256 * 1024 * 1024
_TEXT_LIMIT = 4 * 1024 * 1024
_SUMMARY_LIMITS = Limits(max_bytes=64 * 1024 * 1024, max_depth=64, max_nodes=5_000_000)

LACKING = (
    "the exact bytes of every request: request bodies are re-rendered from the recorded "
    "conversation, the configuration and the tool declaration",
    "the envelopes of every response but the last: each is rebuilt around the assistant "
    "message the next request carried (no id, usage or finish reason)",
    "the exact bytes of the last response: its recorded JSON is written compactly",
    "the attempts of every round after the first: each round that has a response gets one "
    "successful attempt at the reference record's time, with no HTTP status; the August runs "
    "kept no attempt at all",
    "the request URL in the August runs: null",
    "the elapsed time of executions and attempts: recorded as 0",
    "the repeat number: it follows from the order of records per condition and item",
)


@dataclass(frozen=True)
class ReferenceSources:
    """Where the reference run's files and the user's copies of its inputs are."""

    output_folder: Path
    fixture: Path
    questions: Path
    derivations: Path
    ap1_text: Path | None
    """None imports without the AP-1 text: the import record then says it was not checked."""
    reference_config: Path | None = None
    reference_seal: Path | None = None


@dataclass(frozen=True)
class ImportedRun:
    """What the import wrote."""

    run_dir: Path
    seal_hash: str
    record: dict[str, Any]
    """The import record as written (an :class:`ImportRecord`), as a plain dict for callers."""


def _read_bytes(path: Path, limit: int, what: str) -> bytes:
    """The bytes of one named file, through the kit's bounded, non-blocking reader."""
    return read_file(path, max_bytes=limit, what=what)


def _json_file(path: Path, what: str, limits: Limits | None = None) -> object:
    data = _read_bytes(path, (limits or Limits()).max_bytes, what)
    return loads(data, limits=limits or Limits(), source=str(path))


def _published(sources: ReferenceSources) -> tuple[Mapping[str, object], dict[str, Any]]:
    if (sources.reference_config is None) != (sources.reference_seal is None):
        raise ApconformError(
            IMPORT_FILES, "give both --reference-config and --reference-seal, or neither"
        )
    if sources.reference_config is not None and sources.reference_seal is not None:
        config = _json_file(sources.reference_config, "the reference configuration")
        record = _json_file(sources.reference_seal, "the reference seal record")
        if not isinstance(config, dict) or not isinstance(record, dict):
            raise ApconformError(
                IMPORT_FILES, "the reference configuration and seal record are JSON objects"
            )
        return record, config
    report_path = sources.output_folder / "report.md"
    text = _read_bytes(report_path, _TEXT_LIMIT, "the reference report").decode("utf-8")
    published = read_published_report(text, source=str(report_path))
    return published.seal_record, published.config


def _file_check(name: str, data: bytes, published: object) -> InputFileCheck:
    digest = sha256_bytes(data)
    return {
        "input": name,
        "publishedSha256": published if isinstance(published, str) else None,
        "fileSha256": digest,
        "matches": digest == published,
    }


def _transcript_bytes(path: Path) -> bytes:
    data = _read_bytes(path, _TRANSCRIPT_LIMIT, "the reference transcript")
    if not data:
        raise ApconformError(IMPORT_FILES, f"the reference transcript {path} is empty")
    return data


def _lines(data: bytes) -> Iterator[bytes]:
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    yield from lines


def _transcription(folder: Path, executions: list[ConvertedExecution]) -> str | None:
    """Fold in the reference's per-execution transcription verdicts from its summary, if present."""
    path = folder / "smoke_summary.json"
    if not path.is_file():
        return None
    summary = _json_file(path, "the reference summary", _SUMMARY_LIMITS)
    results = summary.get("all_results") if isinstance(summary, dict) else None
    if not isinstance(results, list) or len(results) != len(executions):
        raise ApconformError(
            IMPORT_RECORD,
            f"{path}: all_results does not list one entry per execution of the transcript",
            path="$.all_results",
        )
    for index, (entry, execution) in enumerate(zip(results, executions, strict=True)):
        record = execution.record
        if (
            not isinstance(entry, dict)
            or entry.get("item_id") != record["itemId"]
            or str(entry.get("repeat")) != record["repeat"]
        ):
            raise ApconformError(
                IMPORT_RECORD,
                f"{path}: all_results[{index}] is not the execution {record['cellKey']}",
                path=f"$.all_results[{index}]",
            )
        outcome = entry.get("transcription_outcome")
        execution.verdict["transcription"] = outcome if isinstance(outcome, str) else None
    return "smoke_summary.json"


STAND_IN = (
    "The AP-1 text was not supplied when this run was imported from {instrument}.\n"
    "The reference configuration declares the text's SHA-256 {digest}; it was not checked.\n"
)


def _ap1_text(path: Path | None, declared: object) -> tuple[bytes | None, str]:
    """The text's bytes and text, checked against the declared hash, or the stand-in."""
    if path is None:
        return None, STAND_IN.format(instrument=INSTRUMENT, digest=declared)
    data = _read_bytes(path, _TEXT_LIMIT, "the AP-1 text")
    if sha256_bytes(data) != declared:
        raise ApconformError(
            IMPORT_TEXT,
            f"{path} hashes to {sha256_bytes(data)} but the reference configuration declares "
            f"ap1_text_hash {declared}",
        )
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError:
        raise ApconformError(IMPORT_TEXT, f"{path} is not UTF-8 text") from None


def import_reference_run(sources: ReferenceSources, run_dir: Path) -> ImportedRun:
    """Check everything, then write the sealed run directory (see the module docstring)."""
    refuse_existing_run(run_dir)
    printed, config = _published(sources)
    declared_text_hash = config.get("ap1_text_hash")
    text_bytes, ap1_text = _ap1_text(sources.ap1_text, declared_text_hash)
    fixture_bytes = _read_bytes(sources.fixture, Limits().max_bytes, "the reference fixture")
    questions_bytes = _read_bytes(sources.questions, Limits().max_bytes, "the reference questions")
    transcript = _transcript_bytes(sources.output_folder / "smoke_run.jsonl")
    run = convert_reference_run(
        config=config,
        printed=printed,
        fixture=loads(fixture_bytes, source=str(sources.fixture)),
        questions=loads(questions_bytes, source=str(sources.questions)),
        derivations=_json_file(sources.derivations, "the derivations"),
        ap1_text=ap1_text,
        records=iterate_records(_lines(transcript)),
    )
    inputs, executions, hashes, converted = run.inputs, run.executions, run.hashes, run.config
    seal_record = run.printed
    transcription_source = _transcription(sources.output_folder, executions)
    checks = [
        _file_check("fixture", fixture_bytes, seal_record.get("fixture_hash")),
        _file_check("questions", questions_bytes, seal_record.get("questions_hash")),
    ]
    if text_bytes is not None:
        checks.append(_file_check("ap1Text", text_bytes, seal_record.get("ap1_text_hash")))
    else:
        checks.append(
            {
                "input": "ap1Text",
                "publishedSha256": seal_record.get("ap1_text_hash"),
                "fileSha256": None,
                "matches": None,
            }
        )
        converted.notes.append(
            "the AP-1 text was not supplied (--no-ap1-text): the run is sealed with a stand-in "
            "that says so, and the reference's declared text hash is not checked"
        )
    cells = plan_cells(inputs)
    recorded = {e.record["cellKey"] for e in executions}
    record: ImportRecord = {
        "schemaVersion": "apconform-ap1-import-record/1",
        "source": {
            "instrument": INSTRUMENT,
            "transcriptSha256": sha256_bytes(transcript),
            "runnerVersionTag": seal_record.get("runner_version_tag"),
            "runnerVersionCommit": seal_record.get("runner_version_commit"),
            "runnerSourceHash": seal_record.get("runner_source_hash"),
            "sealedAt": seal_record.get("timestamp"),
        },
        "importer": {"name": "apconform", "version": __version__},
        "publishedHashes": {
            "configHash": hashes["configHash"],
            "sealHash": hashes["sealHash"],
            "configHashMatches": True,
            "sealHashMatches": True,
        },
        "inputChecks": checks,
        "groundTruthChecks": run.ground_truth,
        "claims": {
            "reference": [str(c) for c in config.get("dimensions_claimed", [])],
            "imported": list(converted.document["dimensionsClaimed"]),
            "dropped": run.dropped,
        },
        "records": {
            "lines": str(run.lines),
            "executions": str(len(executions)),
            "plannedCells": str(len(cells)),
            "recordedCells": str(len(recorded)),
            "masked": str(sum(1 for e in executions if e.masked)),
        },
        "conversions": converted.notes,
        "lacking": list(LACKING),
        "verdictsFile": VERDICTS_FILE,
        "transcriptionVerdicts": transcription_source,
    }
    version = reference_source(printed, config).version
    return _write(run_dir, inputs, executions, record, len(cells), version)


def _source_version(record: ImportRecord) -> str:
    tag = record["source"]["runnerVersionTag"]
    source = f"{INSTRUMENT} {tag}" if tag else INSTRUMENT
    return f"{source} (imported by apconform {__version__})"


RUN_NOT_RECORDED = (
    "when the run started and ended, and whether it was interrupted",
    "how many executions ran at once and any request-rate limit",
)


def _run_provenance(record: ImportRecord, inputs: RunInputs, version: str) -> dict[str, Any]:
    """The run-started record's provenance (AP1-TR-6): the published run it was read from."""
    source = record["source"]
    return {
        "source": INSTRUMENT,
        "sourceVersion": version,
        "sourceRecord": f"smoke_run.jsonl (sha256 {source['transcriptSha256']}) of the run "
        f"sealed as {record['publishedHashes']['sealHash']}",
        "model": inputs.config.model.endpoint.model,
        "notRecorded": list(RUN_NOT_RECORDED),
        "derived": [
            "runId: from the reference's seal hash",
            "endpointUrl and model: as the reference configuration declares them",
            "concurrency 1 and no rate limit: the reference records neither",
        ],
    }


def _write(
    run_dir: Path,
    inputs: RunInputs,
    executions: list[ConvertedExecution],
    record: ImportRecord,
    planned: int,
    version: str,
) -> ImportedRun:
    validate_document(Ap1ImportRecord, record, what="import record")
    for execution in executions:
        validate_document(Ap1ReferenceVerdict, execution.verdict, what="reference verdict")
    seal = write_sealed_run(run_dir, inputs)
    statuses: Counter[str] = Counter(e.record["status"] for e in executions)
    with TranscriptWriter(run_dir / TRANSCRIPT_FILE, seal["sealHash"]) as writer:
        writer.append(
            "run-started",
            {
                "runId": f"import-of-{record['publishedHashes']['sealHash'][:16]}",
                "instrumentVersion": _source_version(record),
                "endpointUrl": inputs.config.model.endpoint.url,
                "model": inputs.config.model.endpoint.model,
                "concurrency": "1",
                "rateLimitPerSecond": None,
                "plannedCells": str(planned),
                "planSha256": seal["plan"]["planSha256"],
                "headFile": HEAD_FILE,
                "provenance": _run_provenance(record, inputs, version),
            },
        )
        for execution in executions:
            writer.append("execution", execution.record)
        if len(executions) == planned:
            writer.append(
                "run-finished",
                {
                    "cellsRecorded": str(len(executions)),
                    "statusCounts": [
                        {"status": s, "count": str(n)} for s, n in sorted(statuses.items())
                    ],
                },
            )
        else:
            writer.append(
                "run-stopped",
                {
                    "reason": f"the reference transcript holds {len(executions)} of the "
                    f"{planned} planned executions",
                    "cellsRecorded": str(len(executions)),
                    "cellsRemaining": str(planned - len(executions)),
                },
            )
        head = head_document(seal["sealHash"], writer.next_seq, writer.prev, writer.last_kind)
    write_head(run_dir, head)  # the imported transcript is anchored at its end
    record_text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    create_file(run_dir, IMPORT_FILE, record_text.encode("utf-8"))  # links refused
    verdicts = "".join(
        json.dumps(execution.verdict, ensure_ascii=False, sort_keys=True) + "\n"
        for execution in executions
    )
    create_file(run_dir, VERDICTS_FILE, verdicts.encode("utf-8"))
    return ImportedRun(run_dir, seal["sealHash"], dict(record))
