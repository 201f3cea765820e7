"""The JSON shapes of the transcript: its records, its head and the run origin read from them.

Each is a :class:`~typing.TypedDict` naming the members of a class of the
``ap1`` schema (``Ap1TranscriptRecord``, ``Ap1TranscriptHead``, ``RunOrigin``);
at run time they are plain dicts, so the bytes written are unchanged. A record
read back is one that met its schema (:func:`is_transcript_record`); the event
members are JSON objects whose own members are checked where they are read.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, TypeGuard

from apconform.ap1.transcript.execution_record import ExecutionRecord
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1TranscriptHead, Ap1TranscriptRecord

__all__ = [
    "RunOriginJson",
    "TranscriptHead",
    "TranscriptRecord",
    "UnhashedRecord",
    "WrittenRecord",
    "is_transcript_head",
    "is_transcript_record",
]


class _RecordHeader(TypedDict):
    """The members every transcript record has before its event member."""

    schemaVersion: str
    seq: str
    kind: str
    recordedAt: str
    sealHash: str
    prevSha256: str


class UnhashedRecord(_RecordHeader):
    """A record as the writer builds it, before its ``sha256`` (what the hash covers).

    The event member is the payload as given (its secrets masked): a JSON object.
    """

    runStarted: NotRequired[dict[str, object]]
    execution: NotRequired[dict[str, object]]
    runResumed: NotRequired[dict[str, object]]
    runStopped: NotRequired[dict[str, object]]
    runFinished: NotRequired[dict[str, object]]
    cellDeferred: NotRequired[dict[str, object]]


class WrittenRecord(UnhashedRecord):
    """A record as the writer wrote it (an ``Ap1TranscriptRecord``)."""

    sha256: str


class TranscriptRecord(_RecordHeader):
    """One verified line of the transcript (``Ap1TranscriptRecord``): one event member."""

    sha256: str
    runStarted: NotRequired[dict[str, object]]
    execution: NotRequired[ExecutionRecord]
    runResumed: NotRequired[dict[str, object]]
    runStopped: NotRequired[dict[str, object]]
    runFinished: NotRequired[dict[str, object]]
    cellDeferred: NotRequired[ExecutionRecord]


class TranscriptHead(TypedDict):
    """The head file beside the transcript (``Ap1TranscriptHead``)."""

    schemaVersion: str
    sealHash: str
    records: str
    headSha256: str
    lastKind: str
    writtenAt: str
    signature: NotRequired[dict[str, str]]


class RunOriginJson(TypedDict):
    """Who ran a transcript's executions (``RunOrigin``)."""

    runner: str
    runnerVersion: str | None
    model: str | None


def is_transcript_record(value: object, *, what: str) -> TypeGuard[TranscriptRecord]:
    """Whether ``value`` is a transcript record; raises ``DocumentRefused`` naming what is not."""
    validate_document(Ap1TranscriptRecord, value, what=what)
    return isinstance(value, dict)


def is_transcript_head(value: object, *, what: str) -> TypeGuard[TranscriptHead]:
    """Whether ``value`` is a transcript head; raises ``DocumentRefused`` naming what is not."""
    validate_document(Ap1TranscriptHead, value, what=what)
    return isinstance(value, dict)
