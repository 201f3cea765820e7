"""The transcript: hash-chained records, and verification that locates every fault."""

from __future__ import annotations

import json
from pathlib import Path

from apconform.ap1.transcript.chain import GENESIS, TranscriptWriter, record_hash
from apconform.ap1.transcript.verify import verify_transcript, verify_transcript_bytes
from apconform.core.canonical import canonical_text

SEAL = "ab" * 32


def _write(path: Path, count: int) -> list[dict[str, object]]:
    records = []
    with TranscriptWriter(path, SEAL) as writer:
        records.append(writer.append("run-started", _started()))
        for i in range(1, count + 1):
            records.append(writer.append("execution", _execution(f"base/Q{i:02d}/1", f"Q{i:02d}")))
    return records


def _started() -> dict[str, object]:
    return {
        "runId": "r1",
        "instrumentVersion": "0.1.0",
        "endpointUrl": "http://127.0.0.1:1/v1/chat/completions",
        "model": "m",
        "concurrency": "4",
        "rateLimitPerSecond": None,
        "plannedCells": "3",
        "planSha256": "cd" * 32,
    }


def _execution(key: str, item: str) -> dict[str, object]:
    return {
        "cellKey": key,
        "condition": "base",
        "itemId": item,
        "repeat": "1",
        "status": "VOID",
        "statusReason": "no data",
        "stopReason": "not-sent",
        "startedAt": "2026-11-30T00:00:00Z",
        "elapsedSeconds": "0",
        "deliveredContextSha256": "ef" * 32,
        "rounds": [],
        "toolCalls": [],
        "finalText": None,
        "evidenceInputs": {
            "toolsOffered": True,
            "toolName": "calculator",
            "roundsRecorded": "0",
            "allRoundsReadable": True,
        },
    }


def test_records_are_canonical_chained_and_self_hashed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    records = _write(path, 3)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 5
    first = json.loads(lines[0])
    assert first["prevSha256"] == GENESIS and first["seq"] == "0" and first["kind"] == "run-started"
    for line, record in zip(lines[:-1], records, strict=True):
        assert line.decode() == canonical_text(record)
        assert record["sha256"] == record_hash(record)
    assert [r["prevSha256"] for r in records[1:]] == [r["sha256"] for r in records[:-1]]
    report = verify_transcript(path, seal_hash=SEAL)
    assert report.ok and sorted(report.cells) == ["base/Q01/1", "base/Q02/1", "base/Q03/1"]


def test_editing_any_single_byte_is_located(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, 3)
    data = path.read_bytes()
    offsets = [i for i in range(len(data)) if data[i : i + 1] != b"\n"]
    line_of = [data[:i].count(b"\n") + 1 for i in range(len(data))]
    for offset in offsets[:: max(1, len(offsets) // 300)]:
        edited = bytearray(data)
        edited[offset] = ord("x") if edited[offset] != ord("x") else ord("y")
        report = verify_transcript_bytes(bytes(edited), seal_hash=SEAL)
        assert not report.ok
        assert report.problems[0].line == line_of[offset], offset


def test_an_edited_value_names_the_record(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, 3)
    text = path.read_text()
    path.write_text(text.replace('"itemId":"Q02"', '"itemId":"Q09"'))
    problems = verify_transcript(path, seal_hash=SEAL).problems
    assert [(p.line, p.seq, p.kind) for p in problems] == [(3, "2", "edited")]
    assert str(problems[0]) == (
        "line 3 (seq 2): edited: the record's content does not match its sha256; "
        "the record was edited"
    )


def test_a_removed_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, 3)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2] + lines[3:]))
    problems = verify_transcript(path, seal_hash=SEAL).problems
    assert [(p.line, p.seq, p.kind) for p in problems] == [(3, "3", "removed"), (3, "3", "chain")]
    assert problems[0].message == "seq 2 missing before this record; records were removed"


def test_reordered_records_are_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, 3)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([lines[0], lines[2], lines[1], lines[3]]))
    kinds = [(p.line, p.kind) for p in verify_transcript(path, seal_hash=SEAL).problems]
    assert kinds[:2] == [(2, "removed"), (2, "chain")]
    assert (3, "reordered") in kinds


def test_a_duplicated_record_and_a_foreign_seal_are_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, 2)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines, lines[2]]))
    problems = verify_transcript(path, seal_hash="00" * 32).problems
    assert {p.kind for p in problems} >= {"reordered", "chain", "duplicate-cell", "seal"}


def test_an_unterminated_last_line_is_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, 2)
    good = path.stat().st_size
    with path.open("ab") as handle:
        handle.write(b'{"schemaVersion":"apconform-ap1-tr')
    report = verify_transcript(path, seal_hash=SEAL)
    assert [p.kind for p in report.problems] == ["torn-tail"]
    assert report.good_bytes == good and report.torn_tail == b'{"schemaVersion":"apconform-ap1-tr'
    assert len(report.cells) == 2
