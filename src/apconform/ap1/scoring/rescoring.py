"""Re-scoring a transcript: one streaming pass from records (or raw lines) to the score report.

The transcript is read once, in order. Each line's chain is checked as it
passes (its own hash over its bytes, the previous record's hash, consecutive
seq numbers, one record per cell) and each execution is scored and folded into
the counts; only counts, the audit lists and the rows for human scorers are
kept, so memory does not grow with the length of the transcript. The same
records, sealed inputs and scorer always give the same report bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from apconform.ap1.inputs.plan import plan_groups
from apconform.ap1.scoring.adjudication.merged_document import Ap1Adjudication
from apconform.ap1.scoring.adjudication.sheets import Rows, SheetRow
from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.execution import RECORD_UNSCORABLE, score_view
from apconform.ap1.scoring.record import RecordUnreadable, read_execution
from apconform.ap1.scoring.report.document import RunFacts, build_report
from apconform.ap1.scoring.report.score_report import Ap1ScoreReport
from apconform.ap1.scoring.results import ExecutionScoreJson
from apconform.ap1.scoring.rows import TranscriptProblem
from apconform.ap1.scoring.tally import CellTally
from apconform.ap1.transcript.chain import GENESIS, record_hash
from apconform.ap1.transcript.deferral import deferral_cause
from apconform.core.errors import ApconformError
from apconform.core.indented import indented_chunks
from apconform.core.spooled import RowStream, SpooledRows

__all__ = ["Rescorer", "ScoreReport", "Stretch", "execution_line", "rescore_records"]

_TAIL = len(b',"sha256":"') + 64 + 2
_HEX64 = re.compile(r"[0-9a-f]{64}")
_MAX_LINE = 64 * 1024 * 1024


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


_SHAPE = bytes(
    0x30
    if 0x30 <= byte <= 0x39
    else 0x5B
    if byte in b"[{"
    else 0x2B
    if byte in b"-,: \t\n\r"
    else 0x2E
    for byte in range(256)
)
"""Maps ASCII digits to ``0``, ``[`` and ``{`` to ``[``, the bytes that can come just before a
number in JSON (``-``, ``,``, ``:`` and the four white space bytes) to ``+``, every other byte
to ``.``."""
_LONG_RUN = b"0" * 19
_BEFORE_NUMBER = b"+["
_NESTING_SAFE = 512
"""Fewer opening brackets than this: the standard decoder cannot run out of recursion."""


def _long_integer(shape: bytes) -> bool:
    """Whether a line's shape has 19 digits at its start or just after a byte before a number.

    Each search goes on 19 bytes after the last run found: a run found inside a
    longer run follows a digit, and the first run found of each longer run is
    its start, which is the one whose preceding byte counts.
    """
    at = shape.find(_LONG_RUN)
    while at >= 0:
        if at == 0 or shape[at - 1] in _BEFORE_NUMBER:
            return True
        at = shape.find(_LONG_RUN, at + 19)
    return False


def _parse_line(raw: bytes) -> Any:
    """``json.loads(raw, parse_constant=_refuse_constant)``: the same value or the same error.

    orjson reads a line about three times faster and agrees with the standard
    decoder on every text it accepts except integers outside 64 bits, which it
    turns into floats, and nesting deeper than the standard decoder's
    recursion allows, which it reads. Such an integer is a run of 19 or more
    digits at the start of the line or after ``-``, ``,``, ``:``, ``[`` or
    JSON white space: the only bytes orjson accepts before a number. A run
    after any other byte (a fraction's digits after ``.``, digits in a hash
    or in a decimal string) cannot be one. A line with such an integer run, a
    line with 512 or more opening brackets, and every line orjson refuses
    (invalid UTF-8 or JSON, a lone surrogate, a byte order mark, NaN, a
    number out of range) go through the standard decoder, whose value or
    message is then the one reported.
    """
    shape = raw.translate(_SHAPE)
    if shape.count(b"[") < _NESTING_SAFE and not _long_integer(shape):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return _DECODER.decode(raw.decode(json.detect_encoding(raw), "surrogatepass"))


_LINE_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def execution_line(document: ExecutionScoreJson) -> bytes:
    """One line of executions.jsonl, without its newline: sorted keys, UTF-8, no spaces.

    The bytes are those of ``json.dumps(document, sort_keys=True,
    ensure_ascii=False, separators=(",", ":"))`` encoded as UTF-8; orjson
    writes them about four times faster. The two agree on everything a score
    row holds (strings, booleans, null, lists, objects with string keys; the
    measures write every number as a string); whatever orjson refuses (a
    non-string key, an integer past 64 bits, a lone surrogate, an unknown type)
    goes through the standard encoder, which gives the same bytes or the same
    error as before.
    """
    try:
        return orjson.dumps(document, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return _LINE_ENCODER.encode(document).encode("utf-8")


@dataclass
class ScoreReport:
    """The report document and what is written beside it."""

    content: Ap1ScoreReport
    """The report document."""
    sheet_rows: Rows
    """A list, or (for a transcript scored with spooled listings) rows in a temporary file."""
    seal_hash: str

    @property
    def document(self) -> dict[str, Any]:
        """:attr:`content` as a plain dict, for callers outside the scorer that take one."""
        return dict(self.content)

    def plain_document(self) -> dict[str, Any]:
        """The document as plain JSON data (listings spooled to disk read back into lists)."""
        plain: dict[str, Any] = _plain(self.content)
        return plain

    def json_text(self) -> str:
        return "".join(self.json_chunks())

    def json_chunks(self) -> Iterator[str]:
        """The score-report.json text in pieces, the same bytes as :meth:`json_text`."""
        yield from indented_chunks(self.content)
        yield "\n"


@dataclass
class Stretch:
    """What scoring consecutive lines on their own found, for :meth:`Rescorer.absorb`.

    ``assumed_prev`` is the previous record's hash the stretch was checked
    against (the first line's own ``prevSha256``); the stretch is valid only if
    that is the hash the whole-transcript pass holds when it reaches the stretch.
    """

    first_line: int
    lines: int
    assumed_prev: str | None
    last_prev: str
    objects: int
    records: int
    finished: bool
    problems: list[TranscriptProblem]
    seal_hashes: set[str]
    run_started: dict[str, Any] | None
    recorded: list[str]
    duplicates: list[str]
    acc: Accumulator
    execution_bytes: bytes
    deferrals: Counter[str] = field(default_factory=Counter)
    deferral_causes: Counter[str] = field(default_factory=Counter)


@dataclass
class Rescorer:
    """Feed records or lines, then call :meth:`finish`."""

    inputs: ScoringInputs
    seal: dict[str, Any] | None = None
    ap1_text_sha256: str | None = None
    adjudication: Ap1Adjudication | None = None
    on_execution: Callable[[dict[str, Any]], None] | None = None
    """Called with each execution's score document as a plain dict (for callers outside the
    scorer that take one)."""
    on_score: Callable[[ExecutionScoreJson], None] | None = None
    """Called with each execution's score document."""
    acc: Accumulator = field(default_factory=Accumulator)
    """Pass ``Accumulator.spooled()`` to keep the long listings in temporary files."""
    facts: RunFacts | None = None
    _prev: str = GENESIS
    _seq: int = 0
    _objects: int = 0
    _cells: CellTally | None = None
    _stretch_keys: list[str] | None = None
    """The cell keys of a stretch, in order (only while scoring one, for :meth:`absorb`)."""

    def __post_init__(self) -> None:
        self.facts = RunFacts(self.seal, self.inputs.inputs.documents, self.ap1_text_sha256)
        self._cells = self.facts.recorded = CellTally(plan_groups(self.inputs.inputs))
        self.facts.adjudication = self.adjudication
        for item in self.inputs.inputs.questions.items:
            if "adversarialClass" in item.model_fields_set:
                self.acc.interpretive[item.id] = ("D5", str(item.adversarialClass))
            elif "conflictClass" in item.model_fields_set:
                self.acc.interpretive[item.id] = ("D6", str(item.conflictClass))

    def _problem(self, line: int, seq: object, kind: str, message: str) -> None:
        assert self.facts is not None
        if len(self.facts.problems) < 1000:
            self.facts.problems.append(
                {
                    "line": str(line),
                    "seq": seq if isinstance(seq, str) else None,
                    "kind": kind,
                    "message": message,
                }
            )

    def add_line(self, raw: bytes) -> None:
        """One transcript line (without its newline), checked and scored."""
        line = self._seq + 1
        if len(raw) > _MAX_LINE:
            self._problem(line, None, "not-a-record", "the line is longer than 64 MiB")
            self._seq += 1
            return
        try:
            record = _parse_line(raw)
        except (ValueError, RecursionError) as exc:
            self._problem(line, None, "not-a-record", f"the line is not JSON: {exc}")
            self._seq += 1
            return
        stored = record.get("sha256") if isinstance(record, dict) else None
        if isinstance(stored, str) and raw.endswith(b'"}') and len(raw) > _TAIL:
            body = hashlib.sha256(memoryview(raw)[:-_TAIL])
            body.update(b"}")
            if (
                raw[-_TAIL:] != b',"sha256":"' + stored.encode() + b'"}'
                or body.hexdigest() != stored
            ):
                self._problem(
                    line, record.get("seq"), "edited", "the record's bytes do not match its sha256"
                )
        else:
            self._problem(line, None, "edited", "the line does not end with its sha256 member")
        self.add_record(record, line=line, hashed=True)

    def add_record(self, record: Any, *, line: int | None = None, hashed: bool = False) -> None:
        """One parsed transcript record (a dict), checked and scored."""
        assert self.facts is not None
        self._seq += 1
        line = line if line is not None else self._seq
        self.facts.records += 1
        if not isinstance(record, dict):
            self._problem(line, None, "not-a-record", "the record is not a JSON object")
            return
        self._objects += 1
        seq = record.get("seq")
        if not hashed and record.get("sha256") != _safe_hash(record):
            self._problem(line, seq, "edited", "the record's content does not match its sha256")
        if seq != str(self._seq - 1):
            self._problem(line, seq, "sequence", f"expected seq {self._seq - 1}")
        if record.get("prevSha256") != self._prev:
            self._problem(line, seq, "chain", "prevSha256 does not match the previous record")
        self._prev = str(record.get("sha256"))
        if isinstance(record.get("sealHash"), str):
            self.facts.seal_hashes.add(record["sealHash"])
        kind = record.get("kind")
        if kind == "run-started" and isinstance(record.get("runStarted"), dict):
            self.facts.run_started = self.facts.run_started or record["runStarted"]
        self.facts.finished = kind == "run-finished"
        if kind == "execution":
            self._execution(record, line)
        elif kind == "cell-deferred" and isinstance(record.get("cellDeferred"), dict):
            deferred = record["cellDeferred"]
            self.facts.deferrals[str(deferred.get("cellKey"))] += 1
            self.facts.deferral_causes[deferral_cause(deferred)] += 1

    def _execution(self, record: Mapping[str, Any], line: int) -> None:
        assert self.facts is not None
        try:
            view = read_execution(record)
        except RecordUnreadable as exc:
            self.acc.record_unreadable(f"line {line}", str(exc))
            return
        cells = self._cells
        assert cells is not None
        if not cells.add_if_new(view.cell_key):
            self.facts.duplicates.append(view.cell_key)
            self._problem(line, record.get("seq"), "duplicate-cell", f"cell {view.cell_key} again")
            return
        if self._stretch_keys is not None:
            self._stretch_keys.append(view.cell_key)
        try:
            score = score_view(view, self.inputs)
        except ApconformError as exc:  # the record names an item outside the sealed set
            if exc.error_code is not RECORD_UNSCORABLE:
                raise
            self.acc.record_unreadable(f"line {line}", str(exc))
            return
        self.acc.add(score)
        if self.on_score is not None:
            self.on_score(score.document())
        if self.on_execution is not None:
            self.on_execution(score.to_json())

    def stretch(self, first_line: int, assumed_prev: str | None, text: bytes) -> Stretch:
        """This pass's findings as a stretch (for a pass started with ``start_stretch``)."""
        assert self.facts is not None
        facts = self.facts
        return Stretch(
            first_line=first_line,
            lines=self._seq - (first_line - 1),
            assumed_prev=assumed_prev,
            last_prev=self._prev,
            objects=self._objects,
            records=facts.records,
            finished=facts.finished,
            problems=facts.problems,
            seal_hashes=facts.seal_hashes,
            run_started=facts.run_started,
            recorded=self._stretch_keys or [],
            duplicates=facts.duplicates,
            acc=self.acc,
            execution_bytes=text,
            deferrals=facts.deferrals,
            deferral_causes=facts.deferral_causes,
        )

    def start_stretch(self, first_line: int, assumed_prev: str) -> None:
        """Check the lines that follow as if line ``first_line`` came after ``assumed_prev``."""
        self._seq, self._prev = first_line - 1, assumed_prev
        self._stretch_keys = []

    def absorb(self, part: Stretch) -> bool:
        """Fold in the stretch that follows, if it was checked against this pass's state.

        False (nothing changed) when the stretch does not start at the next
        line, assumed another previous hash, or repeats a cell already seen: the
        caller then feeds those lines itself, so the report is the same.
        """
        assert self.facts is not None
        cells = self._cells
        assert cells is not None
        if (
            part.first_line != self._seq + 1
            or part.assumed_prev != self._prev
            or not cells.add_new(part.recorded)
        ):
            return False
        facts = self.facts
        facts.records += part.records
        facts.problems.extend(part.problems[: max(0, 1000 - len(facts.problems))])
        facts.seal_hashes |= part.seal_hashes
        facts.run_started = facts.run_started or part.run_started
        if part.objects:
            facts.finished = part.finished
        facts.duplicates.extend(part.duplicates)
        facts.deferrals.update(part.deferrals)
        facts.deferral_causes.update(part.deferral_causes)
        self._seq += part.lines
        self._prev = part.last_prev
        self._objects += part.objects
        self.acc.merge(part.acc)
        return True

    def finish(self) -> ScoreReport:
        """Build the report (call once, after the last record)."""
        assert self.facts is not None
        rows, seal_hash = self.sheet_rows()
        self.facts.head_sha256 = self._prev if _HEX64.fullmatch(self._prev) else GENESIS
        document = build_report(self.acc, self.inputs, self.facts)
        return ScoreReport(document, rows, seal_hash)

    def sheet_rows(self) -> tuple[Rows, str]:
        """The rows for human scorers and the seal hash they name (after the last record).

        They do not need the report document, so the sheets can be written
        while it is built; rows spooled to disk are written out to their file
        first, so a forked process reads them all and never writes there.
        """
        assert self.facts is not None
        seal_hash = (
            self.seal["sealHash"]
            if self.seal is not None
            else _fallback_seal(self.facts.seal_hashes)
        )
        routed = self.acc.routed
        if isinstance(routed, SpooledRows) and routed.spilled:
            routed.flush()
            return routed.map(SheetRow(self.inputs, seal_hash)), seal_hash
        convert = SheetRow(self.inputs, seal_hash)
        return [convert(row) for row in routed], seal_hash


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(member) for key, member in value.items()}
    if isinstance(value, list | RowStream):
        return [_plain(member) for member in value]
    return value


def _safe_hash(record: dict[str, Any]) -> str | None:
    try:
        return record_hash(record)
    except Exception:
        return None


def _fallback_seal(hashes: set[str]) -> str:
    return sorted(hashes)[0] if hashes else "0" * 64


def rescore_records(
    records: Iterable[Any],
    inputs: ScoringInputs,
    *,
    seal: dict[str, Any] | None = None,
    adjudication: Ap1Adjudication | None = None,
    ap1_text_sha256: str | None = None,
) -> ScoreReport:
    """Re-score in-memory transcript records (each a parsed JSON object)."""
    rescorer = Rescorer(
        inputs, seal=seal, adjudication=adjudication, ap1_text_sha256=ap1_text_sha256
    )
    for record in records:
        rescorer.add_record(record)
    return rescorer.finish()
