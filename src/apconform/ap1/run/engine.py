"""The engine: executes a sealed plan with bounded concurrency, appending to the transcript.

A run starts only from a run directory whose seal verifies; it writes
``run-started`` and then one record per cell as each execution completes. A
resume verifies the seal and the chain, sets aside an unterminated last line,
and executes exactly the cells that have no record. Ctrl-C stops cleanly: no
new cell starts, executions in flight are abandoned (they run again on
resume), and ``run-stopped`` records where the run stands.
"""

from __future__ import annotations

import os
import sys
import threading
import uuid
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TextIO

from apconform import __version__
from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.inputs.plan import Cell, plan_cells
from apconform.ap1.masking import Masker
from apconform.ap1.run.endpoint import Endpoint, Interrupted
from apconform.ap1.run.execution import ExecutionContext, execute_cell
from apconform.ap1.run.progress import Progress
from apconform.ap1.run.ratelimit import RateLimiter
from apconform.ap1.run.retry import RetryPolicy
from apconform.ap1.rundir import TRANSCRIPT_FILE, create_file, locked, open_existing
from apconform.ap1.seal.verify import SealedRun, open_sealed_run
from apconform.ap1.transcript.chain import TranscriptWriter
from apconform.ap1.transcript.verify import TranscriptReport, verify_transcript
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, define_code

__all__ = ["RunOptions", "RunResult", "run_sealed"]

API_KEY_MISSING = define_code(
    "AP1-API-KEY-MISSING",
    "The environment variable that should hold the API key is empty",
    "Set the variable named by endpoint.apiKeyEnv in your shell (never in a file), then run again.",
)
TRANSCRIPT_EXISTS = define_code(
    "AP1-TRANSCRIPT-EXISTS",
    "The run directory already holds a transcript",
    "Continue it with `apconform ap1 run --resume DIR`, or seal a new run in a new directory.",
)
TRANSCRIPT_BROKEN = define_code(
    "AP1-TRANSCRIPT-BROKEN",
    "The transcript does not verify, so the run cannot be resumed",
    "Run `apconform ap1 verify-transcript DIR` to see each fault; a broken transcript is evidence, "
    "keep it, and start a new run.",
    exit_status=1,
)


@dataclass(frozen=True)
class RunOptions:
    """How to run: concurrency, rate limit, where progress goes."""

    concurrency: int = 4
    rate_limit: Decimal | None = None
    resume: bool = False
    progress: TextIO | None = None
    tty: bool | None = None


@dataclass
class RunResult:
    """What a run invocation did."""

    run_dir: Path
    seal_hash: str
    planned: int
    recorded_before: int
    executed_now: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    interrupted: bool = False
    already_finished: bool = False


def _api_key(run: SealedRun) -> str | None:
    name = run.inputs.config.model.endpoint.apiKeyEnv
    if name is None:
        return None
    value = os.environ.get(name, "")
    if not value.strip():
        raise ApconformError(API_KEY_MISSING, f"the environment variable {name} is empty or unset")
    return value


def _set_aside_torn_tail(path: Path, report: TranscriptReport) -> dict[str, str | None]:
    """Move the bytes of an unterminated last line into a file of their own."""
    if report.torn_tail is None:
        return {"tornTailBytes": "0", "tornTailSha256": None, "tornTailFile": None}
    digest = sha256_bytes(report.torn_tail)
    keep = f"transcript.torn-{digest[:16]}.bin"
    create_file(path.parent, keep, report.torn_tail)  # new, never through a planted link
    fd = open_existing(path.parent, path.name, write=True)
    try:
        os.ftruncate(fd, report.good_bytes)
        os.fsync(fd)
    finally:
        os.close(fd)
    return {
        "tornTailBytes": str(len(report.torn_tail)),
        "tornTailSha256": digest,
        "tornTailFile": keep,
    }


def run_sealed(run_dir: Path, options: RunOptions) -> RunResult:
    """Run (or resume) the sealed run in ``run_dir``."""
    run = open_sealed_run(run_dir)
    api_key = _api_key(run)
    with locked(run_dir):
        return _run_locked(run, api_key, options)


def _run_locked(run: SealedRun, api_key: str | None, options: RunOptions) -> RunResult:
    path = run.run_dir / TRANSCRIPT_FILE
    cells = plan_cells(run.inputs)
    rate = None if options.rate_limit is None else str(options.rate_limit)
    report = TranscriptReport()
    tail = {"tornTailBytes": "0", "tornTailSha256": None, "tornTailFile": None}
    if path.exists():
        if not options.resume:
            raise ApconformError(TRANSCRIPT_EXISTS, f"{path} exists; this run was already started")
        report = verify_transcript(path, seal_hash=run.seal_hash)
        faults = [p for p in report.problems if p.kind != "torn-tail"]
        if faults:
            raise ApconformError(
                TRANSCRIPT_BROKEN, f"{path}: " + "; ".join(str(p) for p in faults[:5])
            )
        tail = _set_aside_torn_tail(path, report)
    result = RunResult(run.run_dir, run.seal_hash, len(cells), len(report.cells))
    for record in report.cells.values():
        result.statuses[record["execution"]["status"]] += 1
    if report.finished:
        result.already_finished = True
        return result
    masker = Masker([api_key] if api_key else [])
    writer = TranscriptWriter(
        path, run.seal_hash, next_seq=report.next_seq, prev=report.last_hash, masker=masker
    )
    with writer:
        if not report.records:
            writer.append(
                "run-started",
                {
                    "runId": uuid.uuid4().hex,
                    "instrumentVersion": __version__,
                    "endpointUrl": run.inputs.config.model.endpoint.url,
                    "model": run.inputs.config.model.endpoint.model,
                    "concurrency": str(options.concurrency),
                    "rateLimitPerSecond": rate,
                    "plannedCells": str(len(cells)),
                    "planSha256": run.seal["plan"]["planSha256"],
                },
            )
        remaining = [c for c in cells if c.key not in report.cells]
        if report.records:
            writer.append(
                "run-resumed",
                {
                    "instrumentVersion": __version__,
                    "concurrency": str(options.concurrency),
                    "rateLimitPerSecond": rate,
                    "cellsRecorded": str(len(report.cells)),
                    "cellsRemaining": str(len(remaining)),
                    **tail,
                },
            )
        _execute(run, api_key, options, writer, remaining, result)
        recorded = result.recorded_before + result.executed_now
        if result.interrupted:
            writer.append(
                "run-stopped",
                {
                    "reason": "interrupted by the operator",
                    "cellsRecorded": str(recorded),
                    "cellsRemaining": str(len(cells) - recorded),
                },
            )
        else:
            writer.append(
                "run-finished",
                {
                    "cellsRecorded": str(recorded),
                    "statusCounts": [
                        {"status": s, "count": str(n)} for s, n in sorted(result.statuses.items())
                    ],
                },
            )
    return result


def _execute(
    run: SealedRun,
    api_key: str | None,
    options: RunOptions,
    writer: TranscriptWriter,
    remaining: list[Cell],
    result: RunResult,
) -> None:
    stop = threading.Event()
    masker = Masker([api_key] if api_key else [])
    endpoint = Endpoint(
        run.inputs.config.model.endpoint.url,
        RetryPolicy.from_model(run.inputs.config.model.transport),
        api_key=api_key,
        masker=masker,
        limiter=RateLimiter(options.rate_limit),
        stop=stop,
    )
    ctx = ExecutionContext(run.inputs, endpoint, Calculator(run.inputs.config.rounding), stop)
    stream = options.progress if options.progress is not None else sys.stderr
    tty = (
        options.tty if options.tty is not None else bool(getattr(stream, "isatty", lambda: False)())
    )
    progress = Progress(result.planned, result.recorded_before, stream, tty=tty)

    def work(cell: Cell) -> None:
        record = execute_cell(cell, ctx)
        if stop.is_set() and record["status"] != "VOID":
            raise Interrupted
        writer.append("execution", record)
        progress.update(record["status"])

    executor = ThreadPoolExecutor(max_workers=max(1, options.concurrency), thread_name_prefix="ap1")
    pending: set[Future[None]] = set()
    try:
        pending = {executor.submit(work, cell) for cell in remaining}
        while pending:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in done:
                _collect(future, result)
    except KeyboardInterrupt:
        result.interrupted = True
        stop.set()
        for future in pending:
            future.cancel()
        executor.shutdown(wait=True, cancel_futures=True)
        for future in pending:
            if future.done() and not future.cancelled():
                _collect(future, result)
    finally:
        stop.set()
        executor.shutdown(wait=True, cancel_futures=True)
        progress.close()
    result.statuses.update(progress.statuses)


def _collect(future: Future[None], result: RunResult) -> None:
    error = future.exception()
    if error is None:
        result.executed_now += 1
    elif not isinstance(error, Interrupted):
        raise error
