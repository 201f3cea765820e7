"""Verifying a transcript: every fault found and located by line and seq.

Reads the file line by line and checks: well-formed record, canonical form,
schema, its own hash, consecutive seq, the chain, the seal hash, that no cell
is recorded twice and that no cell is deferred after its record. An
unterminated last line is reported as a torn tail: a record whose write never
completed (resuming sets it aside). Whether the chain's end is the run's end is
checked against the head file by :mod:`apconform.ap1.transcript.head`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypedDict

from apconform.ap1.rundir import open_binary_in
from apconform.ap1.transcript.chain import GENESIS, record_hash, split_lines
from apconform.ap1.transcript.deferral import deferral_cause
from apconform.ap1.transcript.execution_record import ExecutionRecord
from apconform.ap1.transcript.records import (
    TranscriptRecord,
    is_transcript_record,
)
from apconform.core.canonical import canonical_text
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.files import open_binary
from apconform.core.jsonload import Limits, loads

__all__ = [
    "TRANSCRIPT_LIMIT",
    "Problem",
    "TranscriptReport",
    "verify_transcript",
    "verify_transcript_bytes",
]

TRANSCRIPT_LIMIT = 64 * 1024**3
"""The largest transcript read: a bound far above any real run (64 GiB)."""
_LINE_LIMITS = Limits(max_bytes=64 * 1024 * 1024, max_depth=32, max_nodes=1_000_000)


class ProblemJson(TypedDict):
    """A located fault as ``verify-transcript --format json`` lists it."""

    line: int
    seq: str | None
    kind: str
    message: str


@dataclass(frozen=True)
class Problem:
    """One fault, located."""

    line: int
    seq: str | None
    kind: str
    message: str

    def to_dict(self) -> ProblemJson:
        return {"line": self.line, "seq": self.seq, "kind": self.kind, "message": self.message}

    def __str__(self) -> str:
        where = f"line {self.line}" + (f" (seq {self.seq})" if self.seq is not None else "")
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class TranscriptReport:
    """What verification found, and what a resume needs to continue the chain."""

    records: list[TranscriptRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    cells: dict[str, TranscriptRecord] = field(default_factory=dict)
    good_bytes: int = 0
    torn_tail: bytes | None = None
    deferred: Counter[str] = field(default_factory=Counter)
    """Cell key -> how many cell-deferred records it has (a resume executes it again)."""
    deferral_causes: Counter[str] = field(default_factory=Counter)
    declares_head: bool = False
    """Whether the run-started record names a head file (older transcripts do not)."""

    @property
    def ok(self) -> bool:
        return not self.problems and self.torn_tail is None

    @property
    def finished(self) -> bool:
        return bool(self.records) and self.records[-1]["kind"] == "run-finished"

    @property
    def last_hash(self) -> str:
        return str(self.records[-1]["sha256"]) if self.records else GENESIS

    @property
    def next_seq(self) -> int:
        return len(self.records)


def verify_transcript(
    path: Path, *, seal_hash: str | None = None, in_run_dir: bool = False
) -> TranscriptReport:
    """Verify the transcript file at ``path``, reading it line by line.

    With ``in_run_dir`` the file is a run directory's own and a link there is
    refused; otherwise it is a file the user named (a regular file, any size up
    to the transcript limit).
    """
    reader = (
        open_binary_in(path.parent, path.name, max_bytes=TRANSCRIPT_LIMIT, what="a transcript")
        if in_run_dir
        else open_binary(path, max_bytes=TRANSCRIPT_LIMIT, what="a transcript")
    )
    with reader:
        return _verify_lines(_file_lines(reader), seal_hash)


def _file_lines(handle: BinaryIO) -> Iterator[tuple[int, int, bytes, bool]]:
    """The lines of a file as :func:`split_lines` gives those of bytes."""
    offset = 0
    for number, line in enumerate(handle, start=1):
        terminated = line.endswith(b"\n")
        raw = line[:-1] if terminated else line
        yield number, offset, raw, terminated
        offset += len(line)


def verify_transcript_bytes(data: bytes, *, seal_hash: str | None = None) -> TranscriptReport:
    """Verify a transcript given as the bytes of its file."""
    return _verify_lines(split_lines(data), seal_hash)


def _verify_lines(
    lines: Iterable[tuple[int, int, bytes, bool]], seal_hash: str | None
) -> TranscriptReport:
    report = TranscriptReport()
    previous: TranscriptRecord | None = None
    for number, offset, raw, terminated in lines:
        if not terminated:
            report.torn_tail = raw
            report.problems.append(
                Problem(
                    number,
                    None,
                    "torn-tail",
                    f"the last line ({len(raw)} bytes) is unterminated: its write never completed",
                )
            )
            break
        record = _parse(number, raw, report)
        if record is None:
            continue
        seq = record.get("seq")
        _check_sequence(number, record, previous, report)
        if seal_hash is not None and record.get("sealHash") != seal_hash:
            report.problems.append(
                Problem(
                    number,
                    seq,
                    "seal",
                    f"the record names seal {record.get('sealHash')}, not the run's {seal_hash}",
                )
            )
        if record.get("kind") == "run-started" and record.get("seq") == "0":
            started = record.get("runStarted")
            report.declares_head = isinstance(started, dict) and "headFile" in started
        deferred = record.get("cellDeferred")
        if deferred is not None:
            _deferral(number, record, deferred, report)
        execution = record.get("execution")
        if execution is not None:
            key = execution["cellKey"]
            if key in report.cells:
                first = report.cells[key]["seq"]
                report.problems.append(
                    Problem(
                        number,
                        seq,
                        "duplicate-cell",
                        f"cell {key} is already recorded at seq {first}",
                    )
                )
            else:
                report.cells[key] = record
        report.records.append(record)
        previous = record
        if not report.problems:
            report.good_bytes = offset + len(raw) + 1
    return report


def _deferral(
    number: int, record: TranscriptRecord, deferred: ExecutionRecord, report: TranscriptReport
) -> None:
    key = deferred["cellKey"]
    if key in report.cells:
        report.problems.append(
            Problem(
                number,
                record.get("seq"),
                "deferred-after-record",
                f"cell {key} is deferred after its record at seq {report.cells[key]['seq']}",
            )
        )
        return
    report.deferred[key] += 1
    report.deferral_causes[deferral_cause(deferred)] += 1


def _parse(number: int, raw: bytes, report: TranscriptReport) -> TranscriptRecord | None:
    try:
        record: object = loads(raw, limits=_LINE_LIMITS, source=f"line {number}")
    except ApconformError as exc:
        report.problems.append(Problem(number, None, "not-a-record", exc.message))
        return None
    if not isinstance(record, dict):
        report.problems.append(
            Problem(number, None, "not-a-record", "the line is not a JSON object")
        )
        return None
    seq = record.get("seq") if isinstance(record.get("seq"), str) else None
    try:
        if not is_transcript_record(record, what=f"record at line {number}"):
            return None  # not reached: a record that is not an object was refused above
    except DocumentRefused as refused:
        first = refused.violations[0]
        report.problems.append(Problem(number, seq, "schema", f"{first.path}: {first.message}"))
        return None
    if canonical_text(record).encode("utf-8") != raw:
        report.problems.append(
            Problem(
                number,
                seq,
                "edited",
                "the line is not in canonical form; it was rewritten or edited",
            )
        )
    if record_hash(record) != record["sha256"]:
        report.problems.append(
            Problem(
                number,
                seq,
                "edited",
                "the record's content does not match its sha256; the record was edited",
            )
        )
    return record.copy()


def _check_sequence(
    number: int,
    record: TranscriptRecord,
    previous: TranscriptRecord | None,
    report: TranscriptReport,
) -> None:
    seq = int(record["seq"])
    expected = 0 if previous is None else int(previous["seq"]) + 1
    if seq > expected:
        missing = f"seq {expected}" if seq == expected + 1 else f"seq {expected} to {seq - 1}"
        report.problems.append(
            Problem(
                number,
                record["seq"],
                "removed",
                f"{missing} missing before this record; records were removed",
            )
        )
    elif seq < expected:
        report.problems.append(
            Problem(
                number,
                record["seq"],
                "reordered",
                f"seq {seq} after seq {expected - 1}; records were reordered or duplicated",
            )
        )
    prev_hash = GENESIS if previous is None else previous["sha256"]
    if record["prevSha256"] != prev_hash:
        what = (
            "the first record" if previous is None else f"line {number - 1} (seq {previous['seq']})"
        )
        report.problems.append(
            Problem(
                number, record["seq"], "chain", f"prevSha256 does not match the sha256 of {what}"
            )
        )
