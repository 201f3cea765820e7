"""Scoring a run directory (or a transcript and its inputs) into report files, and comparing two.

REPORT_DIR/score-report.json        the report document (schema ap1-score-report)
REPORT_DIR/report.md, report.html   its renderings (the HTML is one offline file)
REPORT_DIR/executions.jsonl         every execution's scores, one line each
REPORT_DIR/adjudication/            scorer-1 and scorer-2 sheets (CSV and HTML) and key.json

The transcript is streamed from disk; the report files are derived, so
scoring again replaces them, and re-scoring into another folder must give the
same bytes.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel

from apconform.ap1.inputs.plan import load_sealed_inputs
from apconform.ap1.inputs.sealed import SealedInputs
from apconform.ap1.rundir import (
    SEAL_FILE,
    TRANSCRIPT_FILE,
    ensure_directory,
    load_in,
    open_binary_in,
    replace_file,
    replacing,
)
from apconform.ap1.scoring.adjudication.merged_document import Ap1Adjudication as MergedAdjudication
from apconform.ap1.scoring.adjudication.sheets import Rows, scorer_sheet_chunks, sheet_key
from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.context import scoring_inputs
from apconform.ap1.scoring.parallel import auto_jobs, stream_parallel
from apconform.ap1.scoring.report.html import render_html
from apconform.ap1.scoring.report.markdown import render_markdown
from apconform.ap1.scoring.rescoring import Rescorer, ScoreReport, execution_line
from apconform.ap1.transcript.verify import TRANSCRIPT_LIMIT
from apconform.core.canonical import sha256_text
from apconform.core.errors import (
    ApconformError,
    DocumentRefused,
    define_code,
    registered_codes,
)
from apconform.core.files import open_binary, refuse_special
from apconform.core.indented import indented_chunks
from apconform.core.memory import release_free_memory
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1Adjudication, Ap1Seal

__all__ = [
    "ADJUDICATION_FILE",
    "REPORT_FILES",
    "RescoreOutcome",
    "RunDocuments",
    "ScoredFiles",
    "compare_reports",
    "load_run_documents",
    "rescore_run",
    "score_run",
    "score_transcript",
]

REPORT_FILES = (
    "score-report.json",
    "report.md",
    "report.html",
    "executions.jsonl",
    "adjudication/key.json",
    "adjudication/scorer-1.csv",
    "adjudication/scorer-1.html",
    "adjudication/scorer-2.csv",
    "adjudication/scorer-2.html",
)
ADJUDICATION_FILE = "adjudication/merged.json"
SCORE_INPUT = define_code(
    "AP1-SCORE-INPUT",
    "The run cannot be scored",
    "Score a run directory written by `apconform ap1 run` (seal.json, inputs/, transcript.jsonl), "
    "or give the transcript and every sealed input.",
)

_READ_BUFFER = 1 << 20
"""Transcript lines are several KiB each; a large read buffer avoids the slow long-line path."""


@dataclass(frozen=True)
class ScoredFiles:
    """Where the report went, and the report itself."""

    output_dir: Path
    report: ScoreReport
    jobs: int = 1
    """Worker processes that scored the transcript (1: the calling process alone)."""
    streaming_maxrss_kib: int | None = None
    """With workers: this process's peak resident memory (KiB) when they ended."""


def _write(folder: Path, rel: str, text: str | Iterable[str]) -> None:
    """Write text (or its pieces, streaming) to a partial file, then move it into place;
    links in the folder are refused, never followed."""
    pieces = [text] if isinstance(text, str) else text
    replace_file(folder, rel, (piece.encode("utf-8") for piece in pieces))


def _optional_document(
    run_dir: Path, rel: str, model: type[BaseModel], what: str
) -> dict[str, Any] | None:
    document = _checked_document(run_dir, rel, model, what)
    return None if document is None else dict(document)


def _checked_document(run_dir: Path, rel: str, model: type[BaseModel], what: str) -> Any:
    """The JSON document at ``rel`` checked against ``model``, or None when there is none."""
    path = run_dir / rel
    if not os.path.lexists(path):
        return None
    document = load_in(run_dir, rel)
    try:
        validate_document(model, document, what=what)
    except DocumentRefused as refused:
        raise ApconformError(SCORE_INPUT, f"{path}: {refused.message}") from None
    return document


def _merged_adjudication(run_dir: Path) -> MergedAdjudication | None:
    """The run's merged adjudication (checked against its schema), or None when there is none."""
    merged: MergedAdjudication | None = _checked_document(
        run_dir, ADJUDICATION_FILE, Ap1Adjudication, "adjudication"
    )
    return merged


def _append(handle: BinaryIO, line: bytes) -> None:
    handle.write(line + b"\n")


def score_transcript(
    transcript: Path,
    documents: dict[str, object],
    output_dir: Path,
    *,
    ap1_text: str | None,
    seal: dict[str, Any] | None,
    adjudication: MergedAdjudication | None = None,
    jobs: int | None = None,
    run_dir: Path | None = None,
) -> ScoredFiles:
    """Stream a transcript file through the scorer and write every report file.

    ``jobs`` worker processes score it (None: two for a large transcript on a
    multi-core machine, else one); the report is the same bytes for any value.
    With ``run_dir`` the transcript is that run directory's, opened without
    following a link; otherwise it is a file the user named (a regular file).
    """
    if run_dir is None:
        refuse_special(transcript, expect="file")  # a FIFO or device: refused, never opened
    if run_dir is None and not transcript.is_file():
        raise ApconformError(SCORE_INPUT, f"{transcript} is not a transcript file")
    reader = (
        open_binary(
            transcript, max_bytes=TRANSCRIPT_LIMIT, what="a transcript", buffering=_READ_BUFFER
        )
        if run_dir is None
        else open_binary_in(
            run_dir,
            TRANSCRIPT_FILE,
            max_bytes=TRANSCRIPT_LIMIT,
            what="a transcript",
            buffering=_READ_BUFFER,
        )
    )
    with reader:
        return _score_stream(
            transcript,
            reader,
            documents,
            output_dir,
            ap1_text=ap1_text,
            seal=seal,
            adjudication=adjudication,
            jobs=jobs,
        )


def _score_stream(
    transcript: Path,
    reader: BinaryIO,
    documents: dict[str, object],
    output_dir: Path,
    *,
    ap1_text: str | None,
    seal: dict[str, Any] | None,
    adjudication: MergedAdjudication | None,
    jobs: int | None,
) -> ScoredFiles:
    inputs = load_sealed_inputs(SealedInputs.from_documents(documents, ap1_text))
    ensure_directory(output_dir)
    if jobs is None:
        jobs = auto_jobs(transcript)
    if jobs < 1:
        raise ApconformError(SCORE_INPUT, f"jobs must be at least 1, not {jobs}")
    with replacing(output_dir, "executions.jsonl") as out:
        rescorer = Rescorer(
            scoring_inputs(inputs),
            seal=seal,
            ap1_text_sha256=None if ap1_text is None else sha256_text(ap1_text),
            adjudication=adjudication,
            on_score=lambda doc: _append(out, execution_line(doc)),
            acc=Accumulator.spooled(str(output_dir)),
        )
        streaming_maxrss = None
        if jobs > 1:
            streaming_maxrss = stream_parallel(rescorer, transcript, jobs, out.write)
        else:
            for raw in reader:
                rescorer.add_line(raw[:-1] if raw.endswith(b"\n") else raw)
        rows, seal_hash = rescorer.sheet_rows()
        if jobs > 1 and not isinstance(rows, list):
            # A long run's sheets are written by two forked processes while this one builds
            # and writes the report: the three are independent and each about as long. Their
            # folder is made first, so the processes never race to create it, and the
            # executions written so far leave this process's buffer before they fork.
            # The worker results' free heap pages go back to the system first, or each forked
            # process would start with them resident (apconform.core.memory).
            ensure_directory(output_dir / "adjudication")
            out.flush()
            release_free_memory()
            children = [_SheetProcess(output_dir, rows, scorer, seal_hash) for scorer in (1, 2)]
            try:
                report = rescorer.finish()
                _write_report(output_dir, report)
            finally:
                failures = [child.join() for child in children]
            for failure in failures:
                if failure is not None:
                    raise failure
            return ScoredFiles(output_dir, report, jobs, streaming_maxrss)
        report = rescorer.finish()
    _write_report(output_dir, report)
    for scorer in (1, 2):
        _write_sheets(output_dir, report.sheet_rows, scorer, report.seal_hash)
    return ScoredFiles(output_dir, report, jobs, streaming_maxrss)


def _write_report(output_dir: Path, report: ScoreReport) -> None:
    document = report.content
    _write(output_dir, "score-report.json", report.json_chunks())
    _write(output_dir, "report.md", render_markdown(document))
    _write(output_dir, "report.html", render_html(document))
    key = sheet_key(report.sheet_rows, report.seal_hash)
    _write(output_dir, "adjudication/key.json", itertools.chain(indented_chunks(key), "\n"))


def _write_sheets(output_dir: Path, rows: Rows, scorer: int, seal_hash: str) -> None:
    """One scorer's CSV and HTML sheets, in one pass over the rows in that scorer's order."""
    with (
        replacing(output_dir, f"adjudication/scorer-{scorer}.csv") as csv_out,
        replacing(output_dir, f"adjudication/scorer-{scorer}.html") as html_out,
    ):
        for csv_piece, html_piece in scorer_sheet_chunks(rows, scorer, seal_hash):
            csv_out.write(csv_piece.encode("utf-8"))
            html_out.write(html_piece.encode("utf-8"))


class _SheetProcess:
    """A forked process writing one scorer's sheets; ``join`` gives back what it raised."""

    def __init__(self, output_dir: Path, rows: Rows, scorer: int, seal_hash: str) -> None:
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_sheet_child, args=(send, output_dir, rows, scorer, seal_hash), daemon=True
        )
        self._process.start()
        send.close()

    def join(self) -> BaseException | None:
        try:
            outcome = self._receive.recv()
        except EOFError:
            outcome = ("other", "the process writing an adjudication sheet ended unexpectedly")
        self._process.join()
        self._receive.close()
        if outcome is None:
            return None
        if outcome[0] == "apconform":
            _, code, message, path, hint, context = outcome
            codes = {c.code: c for c in registered_codes()}
            return ApconformError(codes[code], message, path=path, hint=hint, context=context)
        if outcome[0] == "os":
            return OSError(*outcome[1:])
        return RuntimeError(outcome[1])


def _sheet_child(
    send: Connection, output_dir: Path, rows: Rows, scorer: int, seal_hash: str
) -> None:
    outcome: tuple[Any, ...] | None = None
    try:
        _write_sheets(output_dir, rows, scorer, seal_hash)
    except ApconformError as exc:
        outcome = ("apconform", exc.code, exc.message, exc.path, exc.hint, exc.context)
    except OSError as exc:
        outcome = ("os", exc.errno, exc.strerror, exc.filename)
    except BaseException as exc:  # reported by the parent, never as a traceback here
        outcome = ("other", f"writing scorer {scorer}'s sheet failed: {exc}")
    send.send(outcome)
    send.close()


@dataclass(frozen=True)
class RunDocuments:
    """What scoring reads from a run directory besides the transcript."""

    seal: dict[str, Any]
    documents: dict[str, object]
    """The sealed copies: config, fixture, questions, derivations."""
    ap1_text: str | None
    adjudication: MergedAdjudication | None


def load_run_documents(run_dir: Path) -> RunDocuments:
    """The seal record, the sealed copies and an imported adjudication of a run directory."""
    if not os.path.lexists(run_dir / SEAL_FILE):
        raise ApconformError(
            SCORE_INPUT, f"{run_dir} holds no {SEAL_FILE}; it is not a run directory"
        )
    ensure_directory(run_dir, create=False)
    seal = _optional_document(run_dir, SEAL_FILE, Ap1Seal, "seal record")
    if seal is None:
        raise ApconformError(
            SCORE_INPUT, f"{run_dir} holds no {SEAL_FILE}; it is not a run directory"
        )
    sealed = SealedInputs.from_run_dir(
        run_dir, missing=lambda path: ApconformError(SCORE_INPUT, f"{path} is missing")
    )
    adjudication = _merged_adjudication(run_dir)
    return RunDocuments(seal, sealed.documents(), sealed.ap1_text, adjudication)


def score_run(
    run_dir: Path, output_dir: Path | None = None, *, jobs: int | None = None
) -> ScoredFiles:
    """Score a run directory from its transcript, sealed copies and seal record alone."""
    run = load_run_documents(run_dir)
    return score_transcript(
        run_dir / TRANSCRIPT_FILE,
        run.documents,
        output_dir if output_dir is not None else run_dir / "report",
        ap1_text=run.ap1_text,
        seal=run.seal,
        adjudication=run.adjudication,
        jobs=jobs,
        run_dir=run_dir,
    )


@dataclass(frozen=True)
class RescoreOutcome:
    """A run re-scored from its transcript alone, compared with the report it published."""

    scored: ScoredFiles
    """The new report and where it went."""
    published: Path
    """The folder of the published report (RUN_DIR/report)."""
    compared: bool
    """Whether there was a published report to compare with."""
    differ: tuple[str, ...] = ()
    """The report files whose bytes differ from the published ones (empty: identical)."""
    transcript_change: str | None = None
    """In words, how the transcript differs from the one the published report scored."""

    @property
    def exit_status(self) -> int:
        """1 when a report file differs from the published one, else 0 (a changed transcript
        alone is reported, not a finding: the report files say whether it mattered)."""
        return 1 if self.differ else 0


def rescore_run(
    run_dir: Path, output_dir: Path | None = None, *, jobs: int | None = None
) -> RescoreOutcome:
    """Re-score a run directory into ``output_dir`` (default RUN_DIR/rescore) and compare the
    new report files, byte for byte, with the published ones in RUN_DIR/report."""
    output = output_dir if output_dir is not None else run_dir / "rescore"
    scored = score_run(run_dir, output, jobs=jobs)
    published = run_dir / "report"
    if not (published / "score-report.json").is_file():
        return RescoreOutcome(scored, published, compared=False)
    differ = compare_reports(published, output)
    change = _published_transcript_change(published, run_dir)
    return RescoreOutcome(scored, published, True, tuple(differ), change)


def _published_transcript_change(published: Path, run_dir: Path) -> str | None:
    """How the run's transcript differs from the one the published report scored, if it does."""
    from apconform.ap1.scoring.anchor import transcript_change  # signing: only when comparing
    from apconform.ap1.transcript.verify import verify_transcript

    document = load_in(published, "score-report.json")
    transcript = document.get("integrity", {}).get("transcript", {})
    if "headSha256" not in transcript:
        return "unknown: the published report carries no transcript anchor (older format)"
    report = verify_transcript(run_dir / TRANSCRIPT_FILE, in_run_dir=True)
    return transcript_change((int(transcript["records"]), transcript["headSha256"]), report)


def compare_reports(first: Path, second: Path) -> list[str]:
    """The report files whose bytes differ between two folders (a missing file differs)."""
    return [name for name in REPORT_FILES if not _same_bytes(first, second, name)]


def _same_bytes(first: Path, second: Path, name: str) -> bool:
    """Whether ``name`` holds the same bytes in both folders (read in pieces, links refused)."""
    if not (os.path.lexists(first / name) and os.path.lexists(second / name)):
        return False
    limit, what = TRANSCRIPT_LIMIT, "a report file"
    with (
        open_binary_in(first, name, max_bytes=limit, what=what) as a,
        open_binary_in(second, name, max_bytes=limit, what=what) as b,
    ):
        while True:
            piece = a.read(_READ_BUFFER)
            if piece != b.read(_READ_BUFFER):
                return False
            if not piece:
                return True
