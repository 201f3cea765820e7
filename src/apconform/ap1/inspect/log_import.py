"""Importing an Inspect log of the AP-1 task into its run directory as the hash-chained transcript.

The log is read through Inspect's Python API (``read_eval_log``), never by
parsing its file format. It must come from the ``apconform/ap1`` task run
against this very seal; every sample is checked (see ``record``) and every
record built before a byte is written, so a refused log leaves the run
directory as it was. The transcript is written beside the seal under the run
directory's lock, to a partial file moved into place at the end; it opens
with ``run-started`` (carrying the provenance of the log), holds one
execution per sample in plan order, and ends with ``run-finished`` when every
planned cell is there, else ``run-stopped`` saying how many are missing.
``apconform ap1 score`` then scores it as it scores a native transcript.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apconform.ap1.inspect.context import (
    METADATA_KEY,
    STORE_KEY,
    TASK_NAME,
    SealedContext,
    sealed_context,
)
from apconform.ap1.inspect.logfile import LOG_UNREADABLE, private_copy
from apconform.ap1.inspect.record import (
    NOT_RECORDED,
    SOURCE,
    InspectSample,
    SampleRefused,
    execution_record,
)
from apconform.ap1.masking import Masker
from apconform.ap1.run.record import ExecutionRecord
from apconform.ap1.rundir import HEAD_FILE, TRANSCRIPT_FILE, locked
from apconform.ap1.transcript.chain import TranscriptWriter
from apconform.ap1.transcript.head import head_document, write_head
from apconform.core.errors import ApconformError, define_code

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

__all__ = ["ImportResult", "import_inspect_log"]

INSPECT_MISSING = define_code(
    "AP1-INSPECT-MISSING",
    "Inspect AI is not installed",
    "Install the optional extra: pip install 'apconform[inspect]'.",
)
OTHER_TASK = define_code(
    "AP1-INSPECT-TASK",
    "The Inspect log is not a log of the apconform/ap1 task",
    "Import only logs of `inspect eval apconform/ap1 -T run_dir=RUN`; other tasks' logs hold no "
    "AP-1 executions.",
)
SEAL_DIFFERS = define_code(
    "AP1-INSPECT-SEAL",
    "The Inspect log was run against another seal than the run directory's",
    "Import the log into the run directory the task was run with (its seal hash is in the "
    "log's task metadata), or run the task again with -T run_dir=THIS_DIR.",
)
SAMPLE_REFUSED = define_code(
    "AP1-INSPECT-SAMPLE",
    "A sample of the Inspect log cannot become a record of this run",
    "Keep the log as evidence of what happened, and run the task again against the sealed "
    "run directory; a log is imported whole or not at all.",
    exit_status=1,
)
TRANSCRIPT_EXISTS = define_code(
    "AP1-INSPECT-TRANSCRIPT-EXISTS",
    "The run directory already holds a transcript",
    "A run directory holds one run: seal the same inputs into a new directory, run the task "
    "with that directory, and import its log there.",
)

_RUN_NOT_RECORDED = (
    "the sealed endpoint URL did not govern the requests: Inspect sent them to the model it "
    "was given, with its own concurrency (the sealed attempts, backoff and attempt timeout did "
    "govern them)",
    *NOT_RECORDED,
)


@dataclass(frozen=True)
class ImportResult:
    """What an import wrote."""

    run_dir: Path
    transcript: Path
    seal_hash: str
    planned: int
    imported: int
    statuses: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    log_sha256: str = ""


def _read(path: Path, name: Path) -> EvalLog:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ApconformError(
            INSPECT_MISSING, "importing an Inspect log needs the inspect-ai package"
        ) from None
    try:
        return read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # Inspect raises many kinds for a file that is not its log
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ApconformError(
            LOG_UNREADABLE,
            f"{name} is not an Inspect log Inspect can read ({type(exc).__name__}: {detail})"[:600],
        ) from None


def _task_metadata(log: EvalLog, path: Path) -> dict[str, object]:
    spec = log.eval
    names = {spec.task, spec.task_registry_name}
    metadata = (spec.metadata or {}).get(METADATA_KEY)
    if TASK_NAME not in names or not isinstance(metadata, dict):
        raise ApconformError(
            OTHER_TASK,
            f"{path} is a log of task {spec.task!r}, not of {TASK_NAME}",
        )
    return metadata


def _sample(log: EvalLog, sample: EvalSample, digest: str) -> InspectSample:
    from inspect_ai.model import ChatMessageTool

    metadata = sample.metadata.get(METADATA_KEY) if isinstance(sample.metadata, dict) else None
    where = f"eval {log.eval.eval_id} sample {sample.id} epoch {sample.epoch} (log sha256 {digest})"
    if not isinstance(metadata, dict):
        raise SampleRefused(f"{where}: the sample carries no apconform metadata")
    limit = None
    if sample.limit is not None:
        limit = f"{sample.limit.type} limit ({sample.limit.limit:g})"
    store = sample.store.get(STORE_KEY) if isinstance(sample.store, dict) else None
    return InspectSample(
        metadata=metadata,
        store=store if isinstance(store, dict) else None,
        model_events=[e.model_dump(mode="json") for e in sample.events if e.event == "model"],
        tool_returns={
            str(m.tool_call_id): m.content
            for m in sample.messages
            if isinstance(m, ChatMessageTool) and isinstance(m.content, str)
        },
        source_record=where,
        source_version=_inspect_version(log),
        model=log.eval.model,
        base_url=log.eval.model_base_url,
        error=None if sample.error is None else str(sample.error.message),
        limit=limit,
        started_at=sample.started_at,
        total_time=sample.total_time,
    )


def _inspect_version(log: EvalLog) -> str:
    return str(log.eval.packages.get("inspect_ai") or "unknown")


def _concurrency(log: EvalLog) -> tuple[str, list[str]]:
    config = log.eval.config
    if config.max_samples:
        return str(config.max_samples), []
    limit = log.eval.model_generate_config.max_connections or 10
    return str(limit), [
        "concurrency: Inspect's max_samples was not set, so Inspect chose how many samples ran "
        f"at once (adaptively, within its connection limit); this is that limit ({limit})"
    ]


def _key_names(model: str) -> list[str]:
    """The environment variables Inspect reads the model's key from (``<PROVIDER>_API_KEY``, or
    ``<SERVICE>_API_KEY`` for ``openai-api/<service>/...``), so an endpoint echoing that key back
    has it masked in the transcript like the sealed one."""
    parts = model.split("/")
    name = parts[1] if parts[0] == "openai-api" and len(parts) > 2 else parts[0]
    return [f"{name.upper().replace('-', '_')}_API_KEY"] if name else []


def _secrets(context: SealedContext, model: str) -> list[str]:
    names = [context.run.inputs.config.model.endpoint.apiKeyEnv, *_key_names(model)]
    values = [os.environ.get(name, "") for name in names if name]
    return [value for value in values if value.strip()]


def _records(log: EvalLog, context: SealedContext, digest: str) -> list[ExecutionRecord]:
    order = {cell.key: position for position, cell in enumerate(context.cells)}
    masker = Masker(_secrets(context, str(log.eval.model or "")))
    records: dict[str, ExecutionRecord] = {}
    for sample in log.samples or []:
        try:
            view = _sample(log, sample, digest)
            if sample.epoch != 1:
                raise SampleRefused(
                    f"{view.source_record}: epoch {sample.epoch}; AP-1 repeats are planned cells, "
                    "so run the task with one epoch (the default)"
                )
            record = execution_record(context, view, masker)
        except SampleRefused as exc:
            raise ApconformError(SAMPLE_REFUSED, str(exc)) from None
        if record["cellKey"] in records:
            raise ApconformError(
                SAMPLE_REFUSED, f"cell {record['cellKey']} appears twice in the log"
            )
        records[record["cellKey"]] = record
    return sorted(records.values(), key=lambda r: order[r["cellKey"]])


def import_inspect_log(log_path: Path, run_dir: Path) -> ImportResult:
    """Import the Inspect log at ``log_path`` as the transcript of the sealed run in ``run_dir``."""
    transcript = run_dir / TRANSCRIPT_FILE
    if transcript.exists() or transcript.is_symlink():
        raise ApconformError(TRANSCRIPT_EXISTS, f"{transcript} exists; this run was already run")
    with private_copy(log_path) as copy:
        digest = copy.sha256
        context = sealed_context(run_dir)
        log = _read(copy.path, log_path)
    metadata = _task_metadata(log, log_path)
    if metadata.get("sealHash") != context.seal_hash:
        raise ApconformError(
            SEAL_DIFFERS,
            f"{log_path} was run against seal {metadata.get('sealHash')}; {run_dir} is sealed as "
            f"{context.seal_hash}",
        )
    records = _records(log, context, digest)
    concurrency, notes = _concurrency(log)
    with locked(run_dir):
        if transcript.exists() or transcript.is_symlink():
            raise ApconformError(
                TRANSCRIPT_EXISTS, f"{transcript} exists; this run was already run"
            )
        partial = run_dir / (TRANSCRIPT_FILE + ".partial")
        partial.unlink(missing_ok=True)
        try:
            head = _write(
                partial, context, log, metadata, records, concurrency, notes, digest, log_path
            )
            os.replace(partial, transcript)
            write_head(run_dir, head)  # the imported transcript is anchored at its end too
        finally:
            partial.unlink(missing_ok=True)
    statuses: dict[str, int] = {}
    for record in records:
        statuses[record["status"]] = statuses.get(record["status"], 0) + 1
    recorded = {r["cellKey"] for r in records}
    return ImportResult(
        run_dir=run_dir,
        transcript=transcript,
        seal_hash=context.seal_hash,
        planned=len(context.cells),
        imported=len(records),
        statuses=dict(sorted(statuses.items())),
        missing=[c.key for c in context.cells if c.key not in recorded],
        log_sha256=digest,
    )


def _write(
    path: Path,
    context: SealedContext,
    log: EvalLog,
    metadata: dict[str, object],
    records: Iterable[ExecutionRecord],
    concurrency: str,
    notes: list[str],
    digest: str,
    log_path: Path,
) -> dict[str, Any]:
    """Write the transcript; return its head."""
    endpoint = context.run.inputs.config.model.endpoint
    spec = log.eval
    with TranscriptWriter(path, context.seal_hash) as writer:
        writer.append(
            "run-started",
            {
                "runId": spec.run_id or spec.eval_id or "unknown",
                "instrumentVersion": str(metadata.get("instrumentVersion") or "unknown"),
                "endpointUrl": endpoint.url,
                "model": endpoint.model,
                "concurrency": concurrency,
                "rateLimitPerSecond": None,
                "plannedCells": str(len(context.cells)),
                "planSha256": context.run.seal["plan"]["planSha256"],
                "headFile": HEAD_FILE,
                "provenance": {
                    "source": SOURCE,
                    "sourceVersion": _inspect_version(log),
                    "sourceRecord": f"log {log_path.name} (sha256 {digest}), eval "
                    f"{spec.eval_id}, run {spec.run_id}, task {spec.task}, status {log.status}",
                    "model": spec.model,
                    "notRecorded": list(_RUN_NOT_RECORDED),
                    "derived": [
                        "endpointUrl and model: as sealed; the model Inspect used is in model",
                        *notes,
                    ],
                },
            },
        )
        count = 0
        statuses: dict[str, int] = {}
        for record in records:
            writer.append("execution", dict(record))  # the writer takes a plain JSON object
            count += 1
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
        planned = len(context.cells)
        if count == planned:
            writer.append(
                "run-finished",
                {
                    "cellsRecorded": str(count),
                    "statusCounts": [
                        {"status": s, "count": str(n)} for s, n in sorted(statuses.items())
                    ],
                },
            )
        else:
            writer.append(
                "run-stopped",
                {
                    "reason": f"the Inspect log (status {log.status}) holds {count} of the "
                    f"{planned} planned cells",
                    "cellsRecorded": str(count),
                    "cellsRemaining": str(planned - count),
                },
            )
        return head_document(context.seal_hash, writer.next_seq, writer.prev, writer.last_kind)
