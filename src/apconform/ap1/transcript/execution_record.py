"""The JSON shape of one AP-1 execution record, and of its parts, as TypedDicts.

They name the members of the ``ExecutionRecord`` class of the AP-1 schema (and of its
parts); tests check that their keys equal the generated model's, so the hand-written types
cannot drift from the schema. They live beside the transcript, which carries the records,
so that the transcript's reader and the instrument's writer
(:func:`apconform.ap1.run.record.new_execution_record`) share one type. Members the schema
leaves optional, or that are set while a record is filled, are ``NotRequired``.

(No ``from __future__ import annotations`` here: Python 3.11 reads ``Required`` and
``NotRequired`` only from evaluated annotations.)
"""

from typing import NotRequired, Required, TypedDict

__all__ = [
    "AttemptRecord",
    "EchoedParameter",
    "EvidenceInputs",
    "ExecutionRecord",
    "HeaderField",
    "RecordProvenance",
    "RequestRecord",
    "ResponseRecord",
    "RoundRecord",
    "SentParameter",
    "ToolCallRecord",
]


class HeaderField(TypedDict):
    """One request header as recorded (credentials redacted)."""

    name: str
    value: str


class SentParameter(TypedDict, total=False):
    """One request setting: sent, or omitted with its reason (and detail)."""

    name: Required[str]
    sent: str
    omitted: str
    detail: str


class RequestRecord(TypedDict):
    """A request exactly as sent."""

    url: str | None
    headers: list[HeaderField]
    bodyText: str
    bodySha256: str
    samplingAsSent: list[SentParameter]


class AttemptRecord(TypedDict, total=False):
    """One HTTP attempt; its outcome, status, error and timings are set as it proceeds."""

    attempt: Required[str]
    startedAt: str
    elapsedSeconds: str
    outcome: str
    httpStatus: str
    error: str
    waitSeconds: str


class EchoedParameter(TypedDict):
    """A sampling parameter the response reports back, as JSON text."""

    name: str
    valueJson: str


class ResponseRecord(TypedDict):
    """A response as received, with the shape the adapter recognised."""

    httpStatus: str | None
    bodyText: str
    bodySha256: str
    masked: bool
    shape: str
    shapeDetail: NotRequired[str]
    samplingEchoed: list[EchoedParameter]


class RoundRecord(TypedDict):
    """One request and its response, with every attempt."""

    round: str
    request: RequestRecord
    attempts: list[AttemptRecord]
    response: NotRequired[ResponseRecord]


class ToolCallRecord(TypedDict):
    """One tool call as the model made it and what the instrument returned."""

    round: str
    index: str
    id: str | None
    name: str
    argumentsRaw: str
    returnRaw: str | None
    outcome: str


class EvidenceInputs(TypedDict):
    """The structural facts invocation evidence is classified from."""

    toolsOffered: bool
    toolName: str
    roundsRecorded: str
    allRoundsReadable: bool


class RecordProvenance(TypedDict):
    """Where an imported record comes from and what its source does not record."""

    source: str
    sourceVersion: str
    sourceRecord: str
    model: NotRequired[str]
    notRecorded: list[str]
    derived: list[str]


class ExecutionRecord(TypedDict):
    """One planned execution in full (the schema's ``ExecutionRecord``)."""

    cellKey: str
    condition: str
    itemId: str
    repeat: str
    status: str
    statusReason: str | None
    stopReason: str
    startedAt: str
    elapsedSeconds: str
    deliveredContextSha256: str
    rounds: list[RoundRecord]
    toolCalls: list[ToolCallRecord]
    finalText: str | None
    evidenceInputs: EvidenceInputs
    provenance: NotRequired[RecordProvenance]
