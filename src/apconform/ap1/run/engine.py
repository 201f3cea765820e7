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
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TextIO

from apconform import __version__
from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.inputs.plan import Cell, plan_cells
from apconform.ap1.masking import Masker
from apconform.ap1.run.credentials import credential_transport
from apconform.ap1.run.endpoint import Endpoint, Interrupted
from apconform.ap1.run.execution import ExecutionContext, execute_cell
from apconform.ap1.run.outage import DEFAULT_FAILURE_LIMIT, EndpointWatch, endpoint_failure
from apconform.ap1.run.progress import Progress
from apconform.ap1.run.ratelimit import RateLimiter
from apconform.ap1.run.retry import RetryPolicy
from apconform.ap1.rundir import (
    HEAD_FILE,
    TRANSCRIPT_FILE,
    create_file,
    locked,
    open_existing,
    refuse_links,
)
from apconform.ap1.seal.verify import SealedRun, open_sealed_run
from apconform.ap1.transcript.chain import TranscriptWriter
from apconform.ap1.transcript.deferral import deferral_cause
from apconform.ap1.transcript.head import head_document, read_head, write_head
from apconform.ap1.transcript.verdict import verify_run
from apconform.ap1.transcript.verify import TranscriptReport, verify_transcript
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, define_code
from apconform.core.signing import Ed25519Key
from apconform.models.ap1 import ExecutionStatus

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
IMPORTED_RUN = define_code(
    "AP1-RUN-IMPORTED",
    "The run directory holds a run imported from another instrument",
    "An imported run is scored and compared, never executed or resumed: seal a new run of the "
    "kit's own for new executions.",
)
TRANSCRIPT_BROKEN = define_code(
    "AP1-TRANSCRIPT-BROKEN",
    "The transcript does not verify, so the run cannot be resumed",
    "Run `apconform ap1 verify-transcript DIR` to see each fault; a broken transcript is evidence, "
    "keep it, and start a new run.",
    exit_status=1,
)


HEAD_KEY = define_code(
    "AP1-HEAD-KEY",
    "The run's head is signed, and the resume does not sign with the same key",
    "Resume with --sign-with and the key that signed the head, so the anchor stays signed.",
)


@dataclass(frozen=True)
class RunOptions:
    """How to run: concurrency, rate limit, where progress goes, and the run's safeguards."""

    concurrency: int = 4
    rate_limit: Decimal | None = None
    resume: bool = False
    progress: TextIO | None = None
    tty: bool | None = None
    allow_plain_http_key: bool = False
    """Send the API key over plain http to a host that is not loopback (recorded)."""
    failure_limit: int = DEFAULT_FAILURE_LIMIT
    """Executions in a row that may fail at the endpoint before the run stops (resumable)."""
    sign_with: Ed25519Key | None = None
    """Sign the transcript's head with this key each time it is written."""


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
    credential_transport: str = "no-key"
    deferred_now: Counter[str] = field(default_factory=Counter)
    """Why executions of this invocation were deferred (cause -> count)."""
    retried: int = 0
    """Cells deferred by an earlier invocation that this one recorded."""
    retry_causes: Counter[str] = field(default_factory=Counter)
    """Why the cells this invocation found deferred had been deferred (cause -> records)."""
    stopped_early: str | None = None
    """Why the run stopped before its end (endpoint failures), else None."""
    cells_deferred: int = 0
    """Cells without a record whose last execution was deferred, when the run stopped."""
    unmeasured_causes: Counter[str] = field(default_factory=Counter)
    """Every UNMEASURED cell's cause (without its round), over the whole run."""

    @property
    def finished(self) -> bool:
        return not self.interrupted and not self.stopped_early and not self.cells_deferred


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
    """Run (or resume) the sealed run in ``run_dir``.

    Refuses, before any request, to send an API key over plain http to a host
    that is not loopback (unless ``allow_plain_http_key``).
    """
    refuse_links(run_dir)
    run = open_sealed_run(run_dir)
    source = run.inputs.config.model.importedFrom
    if source is not None:
        raise ApconformError(
            IMPORTED_RUN, f"{run_dir} holds a run imported from {source.instrument}"
        )
    api_key = _api_key(run)
    transport = credential_transport(
        run.inputs.config.model.endpoint.url,
        key_set=api_key is not None,
        allow_plain_http=options.allow_plain_http_key,
    )
    with locked(run_dir):
        return _run_locked(run, api_key, options, transport)


def _resumable(run: SealedRun, report: TranscriptReport, options: RunOptions) -> bool:
    """Refuse a transcript whose end does not match its head; True when the head must be
    rewritten although nothing is executed (a run that finished just before its head)."""
    head = read_head(run.run_dir)
    if head is not None and "signature" in head:
        signer = head["signature"]["publicKey"]
        if options.sign_with is None or options.sign_with.public_key_hex != signer:
            raise ApconformError(
                HEAD_KEY,
                f"{run.run_dir / HEAD_FILE} is signed by {head['signature']['keyId']}; resume "
                "with --sign-with and that key",
            )
    verdict = verify_run(report, head, seal_hash=run.seal_hash)
    if verdict.blocks_resume:
        raise ApconformError(
            TRANSCRIPT_BROKEN, f"{run.run_dir / TRANSCRIPT_FILE}: {verdict.anchor.message}"
        )
    return verdict.anchor.state == "tail"


def _anchor(run: SealedRun, writer: TranscriptWriter, options: RunOptions) -> None:
    """Write the head: the transcript's record count and last hash (signed when asked)."""
    write_head(
        run.run_dir,
        head_document(
            run.seal_hash,
            writer.next_seq,
            writer.prev,
            writer.last_kind,
            sign_key=options.sign_with,
        ),
    )


def _run_locked(
    run: SealedRun, api_key: str | None, options: RunOptions, transport: str
) -> RunResult:
    path = run.run_dir / TRANSCRIPT_FILE
    cells = plan_cells(run.inputs)
    rate = None if options.rate_limit is None else str(options.rate_limit)
    report = TranscriptReport()
    tail = {"tornTailBytes": "0", "tornTailSha256": None, "tornTailFile": None}
    stale_head = False
    if os.path.lexists(path):
        if not options.resume:
            raise ApconformError(TRANSCRIPT_EXISTS, f"{path} exists; this run was already started")
        report = verify_transcript(path, seal_hash=run.seal_hash, in_run_dir=True)
        faults = [p for p in report.problems if p.kind != "torn-tail"]
        if faults:
            raise ApconformError(
                TRANSCRIPT_BROKEN, f"{path}: " + "; ".join(str(p) for p in faults[:5])
            )
        stale_head = _resumable(run, report, options)
        tail = _set_aside_torn_tail(path, report)
    result = RunResult(run.run_dir, run.seal_hash, len(cells), len(report.cells))
    result.credential_transport = transport
    result.retry_causes.update(report.deferral_causes)
    for record in report.cells.values():
        result.statuses[record["execution"]["status"]] += 1
        if record["execution"]["status"] == "UNMEASURED":
            result.unmeasured_causes[deferral_cause(record["execution"])] += 1
    masker = Masker([api_key] if api_key else [])
    writer = TranscriptWriter(
        path, run.seal_hash, next_seq=report.next_seq, prev=report.last_hash, masker=masker
    )
    if report.records:
        writer.last_kind = str(report.records[-1]["kind"])
    if report.finished:
        result.already_finished = True
        if stale_head:  # finished, then stopped before its head was written: anchor it now
            _anchor(run, writer, options)
        writer.close()
        return result
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
                    "credentialTransport": transport,
                    "headFile": HEAD_FILE,
                    "endpointFailureLimit": str(options.failure_limit),
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
                    "credentialTransport": transport,
                    "cellsDeferred": str(sum(1 for c in remaining if c.key in report.deferred)),
                },
            )
        _anchor(run, writer, options)
        _execute(run, api_key, options, writer, remaining, result, report.deferred)
        recorded = result.recorded_before + result.executed_now
        if result.interrupted or result.stopped_early or result.cells_deferred:
            writer.append(
                "run-stopped",
                {
                    "reason": _stop_reason(result),
                    "cellsDeferred": str(result.cells_deferred),
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
        _anchor(run, writer, options)
    return result


def _stop_reason(result: RunResult) -> str:
    if result.interrupted:
        return "interrupted by the operator"
    if result.stopped_early:
        return result.stopped_early
    causes = "; ".join(f"{cause} ({n})" for cause, n in result.deferred_now.most_common(3))
    return (
        f"{result.cells_deferred} cell(s) failed at the endpoint and were deferred ({causes}); "
        "resume the run to execute them again"
    )


def _execute(
    run: SealedRun,
    api_key: str | None,
    options: RunOptions,
    writer: TranscriptWriter,
    remaining: list[Cell],
    result: RunResult,
    deferred_before: Counter[str],
) -> None:
    stop = threading.Event()
    watch = EndpointWatch(options.failure_limit)
    waiting = set(deferred_before)  # cells whose latest record is a deferral
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
        if stop.is_set() and record["status"] != ExecutionStatus.VOID.value:
            raise Interrupted
        payload = dict(record)  # the transcript's writer takes a plain JSON object
        if endpoint_failure(payload) is not None:  # not an outcome: kept, executed again later
            written = writer.append("cell-deferred", payload)
            failure = str(endpoint_failure(written["cellDeferred"]))  # the masked cause
            with lock:
                result.deferred_now[failure] += 1
                waiting.add(cell.key)
            if watch.observe(failure) is not None:
                result.stopped_early = watch.stop_reason
                stop.set()
            progress.update("DEFERRED")
            raise Deferred
        watch.observe(None)
        written = writer.append("execution", payload)
        with lock:
            if record["status"] == ExecutionStatus.UNMEASURED.value:
                result.unmeasured_causes[deferral_cause(written["execution"])] += 1
            if cell.key in deferred_before:
                result.retried += 1
            waiting.discard(cell.key)
        progress.update(record["status"])

    lock = threading.Lock()
    workers = max(1, options.concurrency)
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ap1")
    pending: set[Future[None]] = set()
    queue = iter(remaining)
    try:
        # A window of twice the concurrency keeps every worker busy; submitting every cell at
        # once instead made each wait() walk all the unfinished cells, a cost that grew with
        # the run. Cells still start in plan order.
        _submit(executor, work, queue, pending, 2 * workers)
        while pending:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in done:
                _collect(future, result)
            if not stop.is_set():  # a run stopped early starts no further cell
                _submit(executor, work, queue, pending, 2 * workers)
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
    del result.statuses["DEFERRED"]
    result.cells_deferred = len(waiting)


class Deferred(Exception):
    """The execution failed at the endpoint; it was recorded as cell-deferred, not as the cell."""


def _submit(
    executor: ThreadPoolExecutor,
    work: Callable[[Cell], None],
    queue: Iterator[Cell],
    pending: set[Future[None]],
    window: int,
) -> None:
    """Submit cells from ``queue`` until ``window`` are pending or none is left."""
    while len(pending) < window:
        cell = next(queue, None)
        if cell is None:
            return
        pending.add(executor.submit(work, cell))


def _collect(future: Future[None], result: RunResult) -> None:
    error = future.exception()
    if error is None:
        result.executed_now += 1
    elif not isinstance(error, Interrupted | Deferred):
        raise error
