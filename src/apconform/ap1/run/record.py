"""The one place an AP-1 execution record is started.

The instrument's own run (:mod:`apconform.ap1.run.execution`), the Inspect
import and the reference import all start an execution record with
:func:`new_execution_record`, then fill its rounds, tool calls and ending. The
record's types are those of :mod:`apconform.ap1.transcript.execution_record`
(re-exported here), which the transcript's reader shares. Key order is insertion
order, which the JSON outputs keep.
"""

from apconform.ap1.transcript.execution_record import (
    AttemptRecord,
    EchoedParameter,
    EvidenceInputs,
    ExecutionRecord,
    HeaderField,
    RecordProvenance,
    RequestRecord,
    ResponseRecord,
    RoundRecord,
    SentParameter,
    ToolCallRecord,
)
from apconform.models.ap1 import ExecutionStatus, StopReason

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
    "new_execution_record",
]


def new_execution_record(
    *,
    cell_key: str,
    condition: str,
    item_id: str,
    repeat: str,
    status: str = ExecutionStatus.EXECUTED.value,
    status_reason: str | None = None,
    stop_reason: str = StopReason.final_answer.value,
    started_at: str,
    elapsed_seconds: str,
    delivered_context_sha256: str,
    tool_name: str,
    all_rounds_readable: bool = True,
) -> ExecutionRecord:
    """A record with no rounds, tool calls or final text yet, its members in schema order.

    The status defaults to EXECUTED ending on a final answer; the caller changes
    it when the execution ends otherwise, and counts the rounds when it has them.
    """
    return {
        "cellKey": cell_key,
        "condition": condition,
        "itemId": item_id,
        "repeat": repeat,
        "status": status,
        "statusReason": status_reason,
        "stopReason": stop_reason,
        "startedAt": started_at,
        "elapsedSeconds": elapsed_seconds,
        "deliveredContextSha256": delivered_context_sha256,
        "rounds": [],
        "toolCalls": [],
        "finalText": None,
        "evidenceInputs": {
            "toolsOffered": True,
            "toolName": tool_name,
            "roundsRecorded": "0",
            "allRoundsReadable": all_rounds_readable,
        },
    }
