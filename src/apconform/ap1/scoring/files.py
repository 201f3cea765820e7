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

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.ap1.inputs.files import read_text_file
from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.rundir import INPUT_FILES, SEAL_FILE, TRANSCRIPT_FILE
from apconform.ap1.scoring.adjudication.sheets import (
    sheet_csv_chunks,
    sheet_html_chunks,
    sheet_key,
)
from apconform.ap1.scoring.context import scoring_inputs
from apconform.ap1.scoring.parallel import auto_jobs, stream_parallel
from apconform.ap1.scoring.report.html import render_html
from apconform.ap1.scoring.report.markdown import render_markdown
from apconform.ap1.scoring.rescoring import Rescorer, ScoreReport, execution_line
from apconform.core.canonical import sha256_text
from apconform.core.errors import ApconformError, DocumentRefused, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1Adjudication, Ap1Seal

__all__ = [
    "ADJUDICATION_FILE",
    "REPORT_FILES",
    "ScoredFiles",
    "compare_reports",
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


def _write(path: Path, text: str | Iterable[str]) -> None:
    """Write text (or its pieces, streaming) to a partial file, then move it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial")
    with temporary.open("w", encoding="utf-8", newline="") as handle:
        if isinstance(text, str):
            handle.write(text)
        else:
            handle.writelines(text)
    os.replace(temporary, path)


def _optional_document(path: Path | None, model: Any, what: str) -> dict[str, Any] | None:
    if path is None or not path.is_file():
        return None
    document = load_path(path)
    try:
        validate_document(model, document, what=what)
    except DocumentRefused as refused:
        raise ApconformError(SCORE_INPUT, f"{path}: {refused.message}") from None
    return dict(document)


def _append(handle: Any, line: str) -> None:
    handle.write((line + "\n").encode("utf-8"))


def score_transcript(
    transcript: Path,
    documents: dict[str, Any],
    output_dir: Path,
    *,
    ap1_text: str | None,
    seal: dict[str, Any] | None,
    adjudication: dict[str, Any] | None = None,
    jobs: int | None = None,
) -> ScoredFiles:
    """Stream a transcript file through the scorer and write every report file.

    ``jobs`` worker processes score it (None: two for a large transcript on a
    multi-core machine, else one); the report is the same bytes for any value.
    """
    if not transcript.is_file():
        raise ApconformError(SCORE_INPUT, f"{transcript} is not a transcript file")
    inputs = load_run_inputs(
        config=documents["config"],
        fixture=documents["fixture"],
        questions=documents["questions"],
        derivations=documents["derivations"],
        ap1_text=ap1_text,
    )
    output_dir.mkdir(parents=True, exist_ok=True)
    lines_path = output_dir / "executions.jsonl"
    partial = lines_path.with_name(lines_path.name + ".partial")
    if jobs is None:
        jobs = auto_jobs(transcript)
    if jobs < 1:
        raise ApconformError(SCORE_INPUT, f"jobs must be at least 1, not {jobs}")
    with partial.open("wb") as out:
        rescorer = Rescorer(
            scoring_inputs(inputs),
            seal=seal,
            ap1_text_sha256=None if ap1_text is None else sha256_text(ap1_text),
            adjudication=adjudication,
            on_execution=lambda doc: _append(out, execution_line(doc)),
        )
        streaming_maxrss = None
        if jobs > 1:
            streaming_maxrss = stream_parallel(rescorer, transcript, jobs, out.write)
        else:
            with transcript.open("rb", buffering=_READ_BUFFER) as handle:
                for raw in handle:
                    rescorer.add_line(raw[:-1] if raw.endswith(b"\n") else raw)
        report = rescorer.finish()
    os.replace(partial, lines_path)
    document = report.document
    _write(output_dir / "score-report.json", report.json_chunks())
    _write(output_dir / "report.md", render_markdown(document))
    _write(output_dir / "report.html", render_html(document))
    rows = report.sheet_rows
    key = sheet_key(rows, report.seal_hash)
    _write(
        output_dir / "adjudication/key.json", json.dumps(key, indent=2, ensure_ascii=False) + "\n"
    )
    for scorer in (1, 2):
        _write(output_dir / f"adjudication/scorer-{scorer}.csv", sheet_csv_chunks(rows, scorer))
        _write(
            output_dir / f"adjudication/scorer-{scorer}.html",
            sheet_html_chunks(rows, scorer, report.seal_hash),
        )
    return ScoredFiles(output_dir, report, jobs, streaming_maxrss)


def score_run(
    run_dir: Path, output_dir: Path | None = None, *, jobs: int | None = None
) -> ScoredFiles:
    """Score a run directory from its transcript, sealed copies and seal record alone."""
    seal_path = run_dir / SEAL_FILE
    if not seal_path.is_file():
        raise ApconformError(
            SCORE_INPUT, f"{run_dir} holds no {SEAL_FILE}; it is not a run directory"
        )
    seal = _optional_document(seal_path, Ap1Seal, "seal record")
    documents = {}
    for name in ("config", "fixture", "questions", "derivations"):
        path = run_dir / INPUT_FILES[name]
        if not path.is_file():
            raise ApconformError(SCORE_INPUT, f"{path} is missing")
        documents[name] = load_path(path)
    text_path = run_dir / INPUT_FILES["ap1Text"]
    ap1_text = read_text_file(text_path) if text_path.is_file() else None
    adjudication = _optional_document(run_dir / ADJUDICATION_FILE, Ap1Adjudication, "adjudication")
    return score_transcript(
        run_dir / TRANSCRIPT_FILE,
        documents,
        output_dir if output_dir is not None else run_dir / "report",
        ap1_text=ap1_text,
        seal=seal,
        adjudication=adjudication,
        jobs=jobs,
    )


def compare_reports(first: Path, second: Path) -> list[str]:
    """The report files whose bytes differ between two folders (a missing file differs)."""
    differ = []
    for name in REPORT_FILES:
        a, b = first / name, second / name
        if not (a.is_file() and b.is_file()) or a.read_bytes() != b.read_bytes():
            differ.append(name)
    return differ
