"""The AP-1 scoring routes: score one execution record, re-score an uploaded transcript.

Both take the sealed input documents in the body, so the API holds no state:
the answer depends on the body alone. Preparing the inputs (every seal-time
rule, then each item's traced values) costs far more than scoring one record,
so prepared inputs are kept in a small bounded LRU cache keyed by the SHA-256
of the inputs' canonical form (RFC 8785). The cache is only a speed-up: its
key is the content itself, so a hit gives exactly what a miss would compute,
and workers behind a load balancer answer alike whatever each has seen.

Refusals: the four input documents are checked first with the instrument's
own rules (AP-1 codes, paths from the body root, as validate-derivations
does); a record the scorer cannot read is refused with AP1-SCORE-RECORD at
``$.record``. A transcript is never refused for what its lines hold: broken
lines, edits and chain breaks are findings of the report.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from apconform.ap1.inputs.sealed import SEALED_NAMES
from apconform.ap1.refusal import Ap1Refused
from apconform.ap1.scoring import (
    ScoringInputs,
    prepare_inputs,
    rescore_bytes,
    score_execution,
    transcript_lines,
)
from apconform.ap1.scoring.execution import RECORD_UNSCORABLE
from apconform.api.routes.ap1 import check_ap1_inputs, require_members, within_member
from apconform.api.typed import TypedRoute
from apconform.core.canonical import canonical_text, sha256_hex
from apconform.core.errors import ApconformError, DocumentRefused, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1ExecutionScore, Ap1ScoreReport, Ap1Seal
from apconform.models.api import Ap1ScoreExecutionRequest, Ap1ScoreTranscriptRequest
from apconform.resources import data_path

__all__ = ["AP1_SCORING_ROUTES", "PreparedInputsCache", "transcript_text"]

_DOCUMENTS = (*SEALED_NAMES, "ap1Text")


class PreparedInputsCache:
    """A bounded LRU of prepared scoring inputs, keyed by the digest of the canonical inputs."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, ScoringInputs] = OrderedDict()
        self._held: OrderedDict[int, tuple[dict[str, Any], ScoringInputs]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def prepared(self, value: dict[str, Any]) -> ScoringInputs:
        """The prepared inputs of a body; its input documents are checked on a miss."""
        documents = {name: value[name] for name in _DOCUMENTS if name in value}
        if not isinstance(documents.get("ap1Text", ""), str):
            del documents["ap1Text"]  # the body's schema refuses it afterwards
        held = self._holding(documents)
        if held is not None:
            return held
        key = sha256_hex(documents)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                self._hold(documents, hit)
                return hit
        check_ap1_inputs(value)
        try:
            inputs = prepare_inputs(documents)
        except Ap1Refused as refused:  # only the AP-1 text's hash is left to disagree
            raise Ap1Refused(
                within_member("config", refused.violations), what="AP-1 inputs"
            ) from None
        with self._lock:
            self._entries[key] = inputs
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            self._hold(documents, inputs)
        return inputs

    def _holding(self, documents: dict[str, Any]) -> ScoringInputs | None:
        """The prepared inputs of these very documents (the same objects, or equal strings).

        Bodies parsed with remembered members share the objects of their sealed inputs, so
        the digest of their canonical form (about a millisecond for the demo's 80 KB) is
        computed once per input set, not once per request.
        """
        with self._lock:
            for held, inputs in reversed(self._held.values()):
                if held.keys() == documents.keys() and all(
                    mine is documents[name] or (type(mine) is str and mine == documents[name])
                    for name, mine in held.items()
                ):
                    return inputs
        return None

    def _hold(self, documents: dict[str, Any], inputs: ScoringInputs) -> None:
        """Remember which documents these prepared inputs were looked up for (caller locks)."""
        self._held[id(inputs)] = (documents, inputs)
        self._held.move_to_end(id(inputs))
        while len(self._held) > self.size:
            self._held.popitem(last=False)


CACHE = PreparedInputsCache(8)
"""The process's cache (per worker); eight input sets is a few megabytes at most."""


def _score_execution(value: Any) -> dict[str, Any]:
    require_members(value, Ap1ScoreExecutionRequest, "scoring request", (*SEALED_NAMES, "record"))
    inputs = CACHE.prepared(value)
    try:
        return score_execution(value["record"], inputs)
    except ApconformError as error:
        if error.error_code is not RECORD_UNSCORABLE:
            raise
        raise ApconformError(RECORD_UNSCORABLE, error.message, path="$.record") from None
    except Exception as exc:  # e.g. an item or condition outside the sealed inputs
        message = f"the record cannot be scored against these inputs: {exc}"
        raise ApconformError(RECORD_UNSCORABLE, message, path="$.record") from None


MAX_TRANSCRIPT_LINES = 20_000
"""More lines than a 1 MiB body of real records can hold (each is over 1 KB): a bound on
the work one request may ask for, since a line costs about the same however short it is."""

TOO_MANY_LINES = define_code(
    "AP1-TRANSCRIPT-LINES",
    "The uploaded transcript has more lines than the API re-scores",
    f"Upload at most {MAX_TRANSCRIPT_LINES:,} lines, or re-score the run locally with "
    "`apconform ap1 rescore RUN_DIR`, which has no such bound.",
    exit_status=1,
    http_status=422,
)


def _score_transcript(value: Any) -> dict[str, Any]:
    require_members(
        value, Ap1ScoreTranscriptRequest, "re-scoring request", (*SEALED_NAMES, "transcript")
    )
    if not isinstance(value["transcript"], str):
        validate_document(Ap1ScoreTranscriptRequest, value, what="re-scoring request")
    seal = value.get("seal")
    if "seal" in value:
        try:
            validate_document(Ap1Seal, seal, what="seal record")
        except DocumentRefused as refused:
            found = within_member("seal", refused.violations)
            raise DocumentRefused(found, what="seal record") from None
    inputs = CACHE.prepared(value)
    lines = transcript_lines(value["transcript"].encode("utf-8"))
    if len(lines) > MAX_TRANSCRIPT_LINES:
        raise ApconformError(
            TOO_MANY_LINES,
            f"the transcript has {len(lines):,} lines; the API re-scores at most "
            f"{MAX_TRANSCRIPT_LINES:,}",
            path="$.transcript",
        )
    text = value.get("ap1Text")
    report = rescore_bytes(
        lines, inputs, seal=seal, ap1_text=text if isinstance(text, str) else None
    )
    return report.document


def _vector_input(*parts: str) -> Any:
    return load_path(data_path("vectors", "ap1", *parts))["input"]


def transcript_text(records: list[dict[str, Any]]) -> str:
    """The JSON-lines text the instrument writes for these records (RFC 8785, one per line)."""
    return "".join(canonical_text(record) + "\n" for record in records)


def _execution_example() -> Any:
    return _vector_input("execution-scores", "ap1-score-execution-computed.json")


def _transcript_example() -> dict[str, Any]:
    value = dict(_vector_input("report", "ap1-rpt-profile.json"))
    value["transcript"] = transcript_text(value.pop("records"))
    return value


AP1_SCORING_ROUTES = (
    TypedRoute(
        path="/v1/ap1/score-execution",
        operation="ap1.score_execution",
        operation_id="ap1_score_execution",
        tag="ap1",
        summary="Score one AP-1 execution record against its sealed inputs",
        description="Every automated measurement of one execution (answer, figure, accuracy, "
        "invocation, provenance, operation, transcription, coverage, parameter echo), as the "
        "re-score computes it for the record's line of executions.jsonl. The body carries the "
        "sealed documents and the record; the AP-1 text is optional and, when given, must match "
        "the configuration's hash. Input documents are checked first with the instrument's "
        "rules (AP-1 codes, paths from the body root such as $.questions.items[0]); a record the "
        "scorer cannot read, or one outside the sealed inputs, is refused with AP1-SCORE-RECORD "
        "at $.record. Every refusal is a 422 problem. Prepared inputs are cached by the digest "
        "of their canonical form, a speed-up only: the answer depends on the body alone.",
        body=Ap1ScoreExecutionRequest,
        answer=Ap1ExecutionScore,
        run=_score_execution,
        what="scoring request",
        answer_description="The execution's scores (an ap1-execution-score document).",
        examples=(("computed-answer", _execution_example),),
        remembers_members=True,
    ),
    TypedRoute(
        path="/v1/ap1/score-transcript",
        operation_id="ap1_score_transcript",
        tag="ap1",
        summary="Re-score an uploaded AP-1 transcript into the score report",
        description="The HTTP form of `apconform ap1 rescore`: the transcript is given as the "
        "text of transcript.jsonl (the whole body at most 1 MiB) and each line's sha256 is "
        "checked over its own bytes, so the answer is the score-report.json the command writes "
        "for the same run. With the seal record the report states whether the inputs' digests "
        "equal the sealed ones. The input documents are checked as score-execution checks them "
        "(422 with AP-1 codes); what the transcript's lines hold is never a refusal: broken "
        "lines, edited records and chain breaks are listed in the report.",
        body=Ap1ScoreTranscriptRequest,
        answer=Ap1ScoreReport,
        run=_score_transcript,
        what="re-scoring request",
        answer_description="The score report (an ap1-score-report document).",
        examples=(("six-cell-profile", _transcript_example),),
        remembers_members=True,
    ),
)
"""The typed AP-1 scoring routes."""
