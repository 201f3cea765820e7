"""What an adjudicator sees of one row: the sheet's texts and the execution's evidence, blind.

The run is scored again from its transcript and sealed inputs (never from the
derived report files), and for every row of the sheets this module keeps what
the rules ask a scorer to see: the question and the delivered data, the
expected value where accuracy is judged, the released answer, every tool call
with its arguments and return and the scorer's verdict on it, the operand
provenance, the automated verdicts and the model's side of the transcript
(its messages and tool calls, and the tool's returns). It keeps nothing that
names the condition: not the cell key, not the condition, not the repeat, and
not the requests sent (the instruction a condition removes is in them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.ap1.inputs.plan import load_sealed_inputs
from apconform.ap1.inputs.sealed import SealedInputs
from apconform.ap1.rundir import TRANSCRIPT_FILE, open_binary_in
from apconform.ap1.scoring.adjudication.sheets import ACCURACY_MARKS, RUBRICS
from apconform.ap1.scoring.context import scoring_inputs
from apconform.ap1.scoring.files import load_run_documents
from apconform.ap1.scoring.rescoring import Rescorer
from apconform.ap1.scoring.results import ExecutionScoreJson
from apconform.ap1.scoring.rows import (
    BlindRow,
    EvidenceCall,
    ExcerptTurn,
    ModelCall,
    Released,
    RoutedRow,
    RowEvidence,
    Verdicts,
)
from apconform.ap1.transcript.verify import TRANSCRIPT_LIMIT
from apconform.core.canonical import sha256_text

__all__ = ["RunEvidence", "run_evidence"]

_TEXT_LIMIT = 20_000
"""Characters of one transcript text shown; the rest is counted, not shown."""


@dataclass(frozen=True)
class RunEvidence:
    """Every row's evidence, by row id, and the report's statement on the transcript."""

    seal_hash: str
    items: dict[str, RowEvidence]
    integrity: str
    """The re-scored report's sentence on what was scored (chain, inputs, seal)."""


def _bounded(text: str) -> tuple[str, int]:
    """The text shown (at most the bound) and how many characters are not."""
    if len(text) <= _TEXT_LIMIT:
        return text, 0
    return text[:_TEXT_LIMIT], len(text) - _TEXT_LIMIT


def _model_turn(round_no: str, response: dict[str, Any]) -> ExcerptTurn:
    """The model's side of one round: its message and tool calls, or the raw body."""
    body = response.get("bodyText")
    shape = response.get("shape")
    if shape == "openai-chat-completion" and isinstance(body, str):
        try:
            message = json.loads(body)["choices"][0]["message"]
            calls: list[ModelCall] = [
                {"name": str(c["function"]["name"]), "arguments": str(c["function"]["arguments"])}
                for c in message.get("tool_calls") or []
            ]
            content = message.get("content")
            text, omitted = _bounded(content if isinstance(content, str) else "")
            return {
                "round": round_no,
                "speaker": "model",
                "text": text,
                "omitted": omitted,
                "toolCalls": calls,
            }
        except (ValueError, KeyError, IndexError, TypeError):
            pass  # shown raw below
    text, omitted = _bounded(body if isinstance(body, str) else "")
    return {
        "round": round_no,
        "speaker": "model",
        "text": text,
        "omitted": omitted,
        "toolCalls": [],
        "raw": True,
        "shape": str(shape),
    }


def _excerpt(execution: dict[str, Any]) -> list[ExcerptTurn]:
    """The model's side of the transcript, round by round, with the tool's returns."""
    turns: list[ExcerptTurn] = []
    calls = [c for c in execution.get("toolCalls") or [] if isinstance(c, dict)]
    for entry in execution.get("rounds") or []:
        if not isinstance(entry, dict):
            continue
        round_no = str(entry.get("round"))
        response = entry.get("response")
        if isinstance(response, dict):
            turns.append(_model_turn(round_no, response))
        else:
            attempts = entry.get("attempts") or []
            last = attempts[-1] if attempts and isinstance(attempts[-1], dict) else {}
            text, omitted = _bounded(
                f"no response: {last.get('outcome', 'unknown')}"
                + (f" (HTTP {last['httpStatus']})" if last.get("httpStatus") else "")
            )
            turns.append(
                {
                    "round": round_no,
                    "speaker": "transport",
                    "text": text,
                    "omitted": omitted,
                    "toolCalls": [],
                }
            )
        for number, call in enumerate(calls, start=1):
            if str(call.get("round")) == round_no:
                returned = call.get("returnRaw")
                text, omitted = _bounded(
                    returned if isinstance(returned, str) else "(not executed)"
                )
                turns.append(
                    {
                        "round": round_no,
                        "speaker": "tool",
                        "call": str(number),
                        "text": text,
                        "omitted": omitted,
                        "toolCalls": [],
                        "outcome": str(call.get("outcome")),
                    }
                )
    return turns


def _calls(row: RoutedRow, score: ExecutionScoreJson) -> list[EvidenceCall]:
    operations = {c["call"]: c for c in score["operation"]["calls"]}
    provenance = {p["call"]: p for p in score["provenance"]["invocations"]}
    out: list[EvidenceCall] = []
    for number, call in enumerate(row["toolCalls"], start=1):
        key = str(number)
        operation = operations.get(key)
        invocation = provenance.get(key)
        out.append(
            {
                "call": key,
                "name": call["name"],
                "arguments": call["arguments"],
                "return": call["return"] or None,
                "operation": operation,
                "provenance": invocation,
            }
        )
    return out


def _verdicts(score: ExecutionScoreJson | None) -> Verdicts:
    if score is None:
        return {}
    return {
        "invocation": score["invocation"],
        "figure": score["figure"],
        "accuracy": score["accuracy"],
        "transcription": score["transcription"],
        "coverage": score["coverage"],
        "answer": score["answer"],
    }


def _released(score: ExecutionScoreJson | None) -> Released | None:
    figure = None if score is None else score["figure"]
    if figure is None:
        return None
    return {
        "text": figure["releasedText"],
        "value": figure["released"],
        "figures": [t["text"] for t in figure["tokens"]],
    }


def _evidence(sheet_row: BlindRow, routed: RoutedRow, score: ExecutionScoreJson | None,
              excerpt: list[ExcerptTurn]) -> RowEvidence:  # fmt: skip
    dimension = sheet_row["dimension"]
    return {
        "rowId": sheet_row["rowId"],
        "dimension": dimension,
        "itemId": sheet_row["itemId"],
        "category": sheet_row["category"],
        "question": sheet_row["question"],
        "deliveredData": sheet_row["deliveredData"],
        "expectedValue": sheet_row["expectedValue"],
        "routedBecause": sheet_row["routedBecause"],
        "response": sheet_row["response"],
        "released": _released(score),
        "status": None if score is None else score["status"],
        "calls": [] if score is None else _calls(routed, score),
        "verdicts": _verdicts(score),
        "excerpt": excerpt,
        "rubric": list(RUBRICS[dimension]),
        "accuracyMarks": list(ACCURACY_MARKS) if dimension == "D1" else [],
        "selectedValue": dimension == "D6",
    }


def _lines(run_dir: Path) -> Iterator[bytes]:
    with open_binary_in(
        run_dir, TRANSCRIPT_FILE, max_bytes=TRANSCRIPT_LIMIT, what="a transcript"
    ) as reader:
        for raw in reader:
            yield raw[:-1] if raw.endswith(b"\n") else raw


def run_evidence(run_dir: Path) -> RunEvidence:
    """Score the run again in memory and gather the evidence of every routed row."""
    run = load_run_documents(run_dir)
    inputs = scoring_inputs(
        load_sealed_inputs(SealedInputs.from_documents(run.documents, run.ap1_text))
    )
    scores: dict[str, ExecutionScoreJson] = {}
    pending: list[str] = []

    def keep(doc: ExecutionScoreJson) -> None:
        if doc["answer"]["adjudication"] or doc["itemId"] in rescorer.acc.interpretive:
            scores[doc["cellKey"]] = doc
            pending.append(doc["cellKey"])

    rescorer = Rescorer(
        inputs,
        seal=run.seal,
        ap1_text_sha256=None if run.ap1_text is None else sha256_text(run.ap1_text),
        on_score=keep,
    )
    excerpts: dict[str, list[ExcerptTurn]] = {}
    for raw in _lines(run_dir):
        rescorer.add_line(raw)
        while pending:
            cell = pending.pop()
            record = json.loads(raw)
            excerpts[cell] = _excerpt(record.get("execution") or {})
    report = rescorer.finish()
    routed = {(r["cellKey"], r["dimension"]): r for r in rescorer.acc.routed}
    items: dict[str, RowEvidence] = {}
    for row in report.sheet_rows:
        cell = row["_key"]["cellKey"]
        items[row["rowId"]] = _evidence(
            row, routed[cell, row["dimension"]], scores.get(cell), excerpts.get(cell, [])
        )
    return RunEvidence(report.seal_hash, items, report.content["integrity"]["statement"])
