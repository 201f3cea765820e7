"""Running one cell against a scripted endpoint: the transport seam vectors use.

The script lists, per round, either a response body (HTTP 200) or a failed
round (``{"fail": cause}``); the execution logic is exactly the engine's. A
body is given as a JSON value, so its non-integer numbers arrive as binary
floats; each is taken as the decimal its shortest text writes, as the engine
reads a body off the wire (every number a ``Decimal``, integers kept).
"""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Any

from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.inputs.plan import Cell, RunInputs
from apconform.ap1.masking import Masker
from apconform.ap1.run.endpoint import Exchange
from apconform.ap1.run.execution import ExecutionContext, execute_cell
from apconform.ap1.run.record import RequestRecord, SentParameter
from apconform.ap1.run.shapes import response_record
from apconform.ap1.run.wire import dump
from apconform.models.ap1 import AttemptOutcome

__all__ = ["run_scripted"]


def _as_read(value: object) -> object:
    """``value`` with each float as the Decimal of its shortest text (JSON has one number)."""
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {key: _as_read(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_read(item) for item in value]
    return value


class _ScriptedEndpoint:
    """Answers each round from the script, in order."""

    def __init__(self, script: list[object]) -> None:
        self.script = list(script)
        self.mask = Masker()

    def exchange(self, body_text: str, sampling_as_sent: list[SentParameter]) -> Exchange:
        request: RequestRecord = {
            "url": "scripted",
            "headers": [],
            "bodyText": body_text,
            "bodySha256": "",
            "samplingAsSent": sampling_as_sent,
        }
        step = self.script.pop(0) if self.script else {"fail": "the script has no more responses"}
        exchange = Exchange(request=request)
        if isinstance(step, dict) and set(step) == {"fail"}:
            exchange.attempts.append(
                {
                    "attempt": "1",
                    "outcome": AttemptOutcome.transport_error.value,
                    "error": step["fail"],
                }
            )
            exchange.cause = (
                f"{AttemptOutcome.transport_error.value} after 1 attempt: {step['fail']}"
            )
            return exchange
        exchange.attempts.append(
            {"attempt": "1", "outcome": AttemptOutcome.ok.value, "httpStatus": "200"}
        )
        exchange.body = _as_read(step)
        exchange.response = response_record(
            "200", dump(exchange.body), "", exchange.body, self.mask
        )
        return exchange


def run_scripted(
    inputs: RunInputs, item_id: str, condition: str, script: list[object]
) -> dict[str, Any]:
    """The parts of the execution record a vector compares."""
    endpoint = _ScriptedEndpoint(script)
    ctx = ExecutionContext(inputs, endpoint, Calculator(inputs.config.rounding), threading.Event())
    record = execute_cell(Cell(condition, item_id, 1), ctx)
    return {
        "status": record["status"],
        "statusReason": record["statusReason"],
        "stopReason": record["stopReason"],
        "rounds": str(len(record["rounds"])),
        "finalText": record["finalText"],
        "allRoundsReadable": record["evidenceInputs"]["allRoundsReadable"],
        "toolCalls": [
            {
                "round": c["round"],
                "index": c["index"],
                "name": c["name"],
                "argumentsRaw": c["argumentsRaw"],
                "returnRaw": c["returnRaw"],
                "outcome": c["outcome"],
            }
            for c in record["toolCalls"]
        ],
        "messagesSent": [
            [m["role"] for m in _messages(r["request"]["bodyText"])] for r in record["rounds"]
        ],
    }


def _messages(body_text: str) -> list[dict[str, object]]:
    import json

    return list(json.loads(body_text)["messages"])
