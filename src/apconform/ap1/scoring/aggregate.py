"""Accumulating execution scores into counts per item and condition, in one pass, in bounded memory.

The accumulator keeps counters per (item, condition), the distinct D2 values
per item, condition and surface (as digests, moved to temporary files past a
threshold when spooled), and only the lists a reader must see in full: the
originated-operand audit, altered transcriptions, ungoverned releases, the
non-outcome cells and the rows routed to human scorers. Nothing depends on
anything but the order of the records, so the same transcript always yields
the same counts. Accumulators of consecutive stretches of a transcript merge
(in order) into exactly the accumulator of the whole, which is what lets
worker processes score stretches side by side.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import TypeVar

from apconform.ap1.scoring.context import Candidate
from apconform.ap1.scoring.execution import ExecutionScore
from apconform.ap1.scoring.measures.operation import WRONG
from apconform.ap1.scoring.rows import (
    AlteredRow,
    AuditRow,
    NonOutcomeRow,
    RoutedCall,
    RoutedRow,
    UngovernedRow,
    UnreadableRow,
)
from apconform.core import distinct
from apconform.core.distinct import DistinctCounter
from apconform.core.spooled import EncodedRows, SpooledRows

__all__ = ["LISTINGS", "Accumulator", "Cell", "Rows"]

RowT = TypeVar("RowT")
Rows = list[RowT] | SpooledRows | EncodedRows
"""A listing of rows of type ``RowT``: in memory, spooled to a temporary file for a long
transcript, or (in a worker process) encoded for the process that merges it."""
LISTINGS = ("audit", "altered", "ungoverned", "non_outcome", "routed")
"""The listings that grow with the run (one row per operand, release, cell or routed row)."""

_FINDING_KINDS = ("QUANTISATION", "NEAR-MISS", "SIGN-INVERSION", "NEGATED-CONSTANT")


@dataclass
class Cell:
    """Counts for one item under one condition."""

    statuses: Counter[str] = field(default_factory=Counter)
    evidence: Counter[str] = field(default_factory=Counter)
    accuracy: Counter[str] = field(default_factory=Counter)
    exact_at_precision: int = 0
    figure: Counter[str] = field(default_factory=Counter)
    provenance_executions: Counter[str] = field(default_factory=Counter)
    provenance_invocations: Counter[str] = field(default_factory=Counter)
    operands: Counter[str] = field(default_factory=Counter)
    operations: Counter[str] = field(default_factory=Counter)
    operations_per_call: Counter[str] = field(default_factory=Counter)
    reclassified: int = 0
    wrong_split: Counter[str] = field(default_factory=Counter)
    transcription: Counter[str] = field(default_factory=Counter)
    coverage: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)
    echo: Counter[str] = field(default_factory=Counter)
    successful: int = 0

    def merge(self, other: Cell) -> None:
        """Add the counts of a later stretch (Counter keys keep first-seen order)."""
        for spec in fields(self):
            mine, theirs = getattr(self, spec.name), getattr(other, spec.name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            elif isinstance(mine, int):
                setattr(self, spec.name, mine + theirs)


def _split(score: ExecutionScore) -> str:
    figure = score.figure.outcome if score.figure is not None else None
    accuracy = score.accuracy["outcome"] if score.accuracy is not None else None
    if figure == "AUTO-MATCH" and accuracy == "CORRECT":
        return "routeDivergence"
    if figure in ("AUTO-NO-FIGURE",) or (figure == "AUTO-MATCH" and accuracy == "INCORRECT"):
        return "wrong"
    return "undetermined"


@dataclass
class Accumulator:
    """Everything the report needs, built one execution at a time."""

    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    audit: Rows[AuditRow] = field(default_factory=list)
    altered: Rows[AlteredRow] = field(default_factory=list)
    ungoverned: Rows[UngovernedRow] = field(default_factory=list)
    non_outcome: Rows[NonOutcomeRow] = field(default_factory=list)
    routed: Rows[RoutedRow] = field(default_factory=list)
    findings: Counter[str] = field(default_factory=Counter)
    echo_findings: Counter[tuple[str, str, str, str]] = field(default_factory=Counter)
    self_reports: int = 0
    attestations: int = 0
    tool_disagreements: int = 0
    executions: int = 0
    unreadable: list[UnreadableRow] = field(default_factory=list)
    interpretive: dict[str, tuple[str, str]] = field(default_factory=dict)
    """item id -> (dimension, class) for items of D5 or D6, whose answers people judge."""
    distinct: DistinctCounter = field(default_factory=DistinctCounter)
    """SHA-256 digests of the distinct D2 values by (item, condition, surface); only their
    number is reported (:meth:`distinct_values`)."""

    @classmethod
    def spooled(cls, directory: str | None = None) -> Accumulator:
        """An accumulator whose listings move to temporary files as they grow (flat memory)."""
        acc = cls(distinct=DistinctCounter(directory, distinct.MEMORY_VALUES))
        for name in LISTINGS:
            setattr(acc, name, SpooledRows(directory))
        return acc

    @classmethod
    def encoded(cls) -> Accumulator:
        """An accumulator whose listings are kept encoded (a worker's, merged by another process
        into a spooled one)."""
        acc = cls()
        for name in LISTINGS:
            setattr(acc, name, EncodedRows())
        return acc

    def close(self) -> None:
        """Drop the temporary files of spooled listings."""
        for name in LISTINGS:
            rows = getattr(self, name)
            if isinstance(rows, SpooledRows):
                rows.close()
        self.distinct.close()

    def distinct_values(self, item_id: str, condition: str, surface: str) -> int:
        """How many distinct values the executions of an item under a condition gave on a
        surface (D2)."""
        return self.distinct.count((item_id, condition, surface))

    def cell(self, item_id: str, condition: str) -> Cell:
        key = (item_id, condition)
        found = self.cells.get(key)
        if found is None:
            found = self.cells[key] = Cell()
        return found

    def add(self, score: ExecutionScore) -> None:
        """Fold one execution in."""
        view = score.view
        cell = self.cell(view.item_id, view.condition)
        self.executions += 1
        cell.statuses[view.status] += 1
        if view.status != "EXECUTED":
            self.non_outcome.append(
                {
                    "cellKey": view.cell_key,
                    "status": view.status,
                    "reason": view.status_reason or "",
                }
            )
        self._invocation(cell, score)
        if score.accuracy is not None:
            cell.accuracy[score.accuracy["outcome"]] += 1
            if score.accuracy.get("exactAtDeclaredPrecision"):
                cell.exact_at_precision += 1
        if score.figure is not None:
            cell.figure[score.figure.outcome] += 1
        self._provenance(cell, score)
        self._operations(cell, score)
        self._transcription(cell, score)
        answer = score.answer
        cell.answers[answer["outcome"] or answer["status"] or "ADJUDICATION"] += 1
        if view.status == "EXECUTED":
            cell.echo[score.echo["status"]] += 1
        for f in score.echo["findings"]:
            key = (f["parameter"], f["finding"], f["requested"], f.get("echoed", ""))
            self.echo_findings[key] += 1
        if score.surfaces is not None:
            cell.successful += 1
            for name, value in score.surfaces.items():
                self.distinct.add(
                    (view.item_id, view.condition, name),
                    hashlib.sha256(value.encode("utf-8")).digest(),
                )
        if answer["adjudication"]:
            self.routed.append(_routed_row(score, "D1", answer["reason"]))
        tagged = self.interpretive.get(view.item_id)
        if tagged is not None and view.status in ("EXECUTED", "UNOBSERVABLE"):
            dimension, klass = tagged
            self.routed.append(_routed_row(score, dimension, f"a {dimension} item ({klass})"))

    def _invocation(self, cell: Cell, score: ExecutionScore) -> None:
        invocation = score.invocation
        klass, outcome = invocation["evidenceClass"], invocation["outcome"]
        if klass is None:
            cell.evidence[score.view.status] += 1
        elif klass == "EV-2":
            cell.evidence[f"EV-2 {outcome}"] += 1
        else:
            cell.evidence[klass] += 1
        if invocation.get("selfReport"):
            self.self_reports += 1
        if "attestation" in invocation:
            self.attestations += 1

    def _provenance(self, cell: Cell, score: ExecutionScore) -> None:
        view = score.view
        cell.provenance_executions[score.provenance_outcome or "NO-INVOCATION"] += 1
        for invocation in score.provenance:
            cell.provenance_invocations[invocation.outcome] += 1
            for operand in invocation.operands:
                cell.operands[f"{operand.step} {operand.resolution}"] += 1
                if len(operand.candidates) > 1:
                    self.findings["AMBIGUOUS-ATTRIBUTION"] += 1
                if operand.finding is not None and operand.finding["type"] in _FINDING_KINDS:
                    self.findings[operand.finding["type"]] += 1
                if operand.grounded:
                    continue
                entry: AuditRow = {
                    "cellKey": view.cell_key,
                    "itemId": view.item_id,
                    "condition": view.condition,
                    "repeat": view.repeat,
                    "call": str(invocation.call),
                    "expression": invocation.expression or "",
                    "operand": operand.operand.literal,
                    "resolution": operand.resolution,
                    "detail": _audit_detail(operand.resolution, operand.candidates),
                }
                self.audit.append(entry)

    def _operations(self, cell: Cell, score: ExecutionScore) -> None:
        cell.reclassified += score.reclassified
        for call in score.operations:
            cell.operations[call.outcome] += 1
            cell.operations_per_call[call.per_call] += 1
            if call.outcome == WRONG:
                cell.wrong_split[_split(score)] += 1
            if call.tool_agrees is False:
                self.tool_disagreements += 1

    def _transcription(self, cell: Cell, score: ExecutionScore) -> None:
        view = score.view
        if score.transcription is not None:
            t = score.transcription
            label = t["outcome"] + (f" {t['kind']}" if "kind" in t else "")
            cell.transcription[label] += 1
            if t["outcome"] == "TRANSCRIBED-ALTERED":
                self.altered.append(
                    {
                        "cellKey": view.cell_key,
                        "kind": t["kind"],
                        "released": t["released"],
                        "lastReturn": t["lastReturn"],
                        "difference": t["difference"],
                    }
                )
        if score.coverage is not None:
            cell.coverage[score.coverage["outcome"]] += 1
            for row in score.coverage.get("ungoverned", []):
                self.ungoverned.append(
                    {
                        "cellKey": view.cell_key,
                        "figure": row["figure"],
                        "count": row["count"],
                        "finding": row["finding"],
                    }
                )

    def merge(self, other: Accumulator) -> None:
        """Fold in the accumulator of the stretch of records that follows this one's."""
        for key, cell in other.cells.items():
            self.cell(*key).merge(cell)
        for name in LISTINGS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, SpooledRows) and isinstance(theirs, EncodedRows):
                mine.extend_encoded(theirs)
            else:
                mine.extend(theirs)
        self.unreadable.extend(other.unreadable)
        self.distinct.merge(other.distinct)
        self.findings.update(other.findings)
        self.echo_findings.update(other.echo_findings)
        self.self_reports += other.self_reports
        self.attestations += other.attestations
        self.tool_disagreements += other.tool_disagreements
        self.executions += other.executions

    def record_unreadable(self, where: str, message: str) -> None:
        """A record that could not be scored (kept out of every count, listed)."""
        self.unreadable.append({"record": where, "message": message})


def _audit_detail(resolution: str, candidates: tuple[Candidate, ...]) -> str:
    if resolution == "UNTRACEABLE":
        return "no source value, declared constant, transformation, intermediate or grounded return"
    if not candidates:
        return resolution
    refs = ", ".join(f"{c.kind} {c.ref}" for c in candidates)
    return f"{resolution.lower().replace('-', ' ')} of {refs}"


def _routed_row(score: ExecutionScore, dimension: str, reason: str) -> RoutedRow:
    view = score.view
    calls: list[RoutedCall] = [
        {"name": c.name, "arguments": c.arguments_raw, "return": c.return_raw or ""}
        for c in view.tool_calls
    ]
    return {
        "cellKey": view.cell_key,
        "itemId": view.item_id,
        "condition": view.condition,
        "repeat": view.repeat,
        "dimension": dimension,
        "reason": reason,
        "figureOutcome": score.figure.outcome if score.figure is not None else view.status,
        "finalText": view.final_text if view.final_text is not None else (view.last_body() or ""),
        "responseShape": view.status_reason if view.status == "UNOBSERVABLE" else "",
        "toolCalls": calls,
    }
