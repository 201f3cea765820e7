"""AP-1 seals, transcripts and execution records: the seal's digests of the other
documents, the transcript's hash chain, an execution record of one of the cells."""

from __future__ import annotations

from typing import Any

from apconform.ap1.inputs.plan import Cell
from apconform.ap1.seal.build import composite_hash
from apconform.ap1.transcript.chain import GENESIS, record_hash
from apconform.core.canonical import canonical_text, sha256_hex, sha256_text
from apconform.core.errors import ApconformError
from apconform.core.jsonload import loads

from .ap1_inputs import run_inputs
from .shared import Body, _named

# --- the seal and the transcript: digests of the other documents, the hash chain ----------


def _seal(body: Body) -> str | None:
    """The seal names the body's AP-1 text and documents by their digests; its sealHash."""
    seal = body.get("seal")
    if not isinstance(seal, dict):
        return None
    citation, named = seal.get("ap1"), seal.get("inputs")
    if isinstance(citation, dict) and isinstance(body.get("ap1Text"), str):
        citation["textSha256"] = sha256_text(body["ap1Text"])
    if isinstance(named, dict):
        for name in ("config", "fixture", "questions", "derivations"):
            if isinstance(named.get(name), dict) and name in body:
                named[name]["sha256"] = sha256_hex(body[name])
    seal["sealHash"] = composite_hash(seal)
    return str(seal["sealHash"])


def _rechain(records: list[Any], seal_hash: str | None) -> None:
    """Number the records that are objects in order and link each to the one before."""
    previous = GENESIS
    for seq, record in enumerate(r for r in records if isinstance(r, dict)):
        record["seq"] = str(seq)
        record["prevSha256"] = previous
        if seal_hash is not None:
            record["sealHash"] = seal_hash
        record["sha256"] = record_hash(record)
        previous = record["sha256"]


def _records(body: Body) -> None:
    """A transcript given as a list of records: the seal's digests, then the chain."""
    run_inputs(body)
    seal_hash = _seal(body)
    if isinstance(body.get("records"), list):
        _rechain(body["records"], seal_hash)


def _transcript(body: Body) -> None:
    """A transcript given as JSON-lines text: the lines that are objects re-chained."""
    run_inputs(body)
    seal_hash = _seal(body)
    text = body.get("transcript")
    if not isinstance(text, str):
        return
    lines = text.split("\n")
    parsed: list[Any] = []
    for line in lines:
        try:
            parsed.append(loads(line, source="a transcript line"))
        except ApconformError:  # not JSON, or beyond the loader's bounds: kept as generated
            parsed.append(line)
    _rechain(parsed, seal_hash)
    body["transcript"] = "\n".join(
        canonical_text(p) if isinstance(p, dict) else line
        for p, line in zip(parsed, lines, strict=True)
    )


def _execution(body: Body) -> None:
    """The record is of an item of the questions, its cell key that of its cell."""
    items = run_inputs(body)
    record = body.get("record")
    ids = [item["id"] for item in items if isinstance(item.get("id"), str)]
    if not isinstance(record, dict) or not ids:
        return
    record["itemId"] = _named(ids, record.get("itemId"))
    repeat = record.get("repeat")
    if isinstance(record.get("condition"), str) and isinstance(repeat, str) and repeat.isdigit():
        cell = Cell(record["condition"], record["itemId"], int(repeat))
        record["cellKey"] = cell.key
        verdict = body.get("verdict")
        if isinstance(verdict, dict) and "cellKey" in verdict:
            verdict["cellKey"] = cell.key
