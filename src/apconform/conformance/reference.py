"""The kit's reference implementation, speaking the adapter protocol in process.

``apconform check --impl direct:apconform.conformance.reference:adapter`` checks
the reference operations registered in :mod:`apconform.conformance.operations`
(and the APx and AP-1 operations, when those packages are present) exactly as
a third-party implementation is checked: through protocol messages, never
seeing an expectation.
"""

from __future__ import annotations

import traceback
from typing import Any

from apconform import __version__
from apconform.conformance.operations import get_operation, operation_names
from apconform.conformance.protocol import PROTOCOL_VERSION
from apconform.core.errors import ApconformError

__all__ = ["IMPLEMENTATION_NAME", "adapter", "describe", "run_case"]

IMPLEMENTATION_NAME = "apconform-reference"
HOMEPAGE = "https://w3id.org/apconform"


def describe() -> dict[str, Any]:
    """The answer to start: who the reference implementation is and what it supports."""
    operations = operation_names()
    return {
        "version": PROTOCOL_VERSION,
        "implementation": {
            "name": IMPLEMENTATION_NAME,
            "version": __version__,
            "language": "python",
            "homepage": HOMEPAGE,
            "protocols": sorted({name.split(".", 1)[0] for name in operations}),
            "operations": operations,
        },
    }


def run_case(seq: int, operation: str, value: Any) -> dict[str, Any]:
    """Answer one run message: the answer, the refusal, or an error with its traceback."""
    if operation not in operation_names():
        return {"seq": seq, "skipped": {"reason": f"operation {operation} is not implemented"}}
    try:
        answer = get_operation(operation)(value)
    except ApconformError as error:
        refusal: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.path is not None:
            refusal["path"] = error.path
        return {"seq": seq, "refusal": refusal}
    except Exception as exc:  # a bug in the reference: report it, do not hide it
        return {
            "seq": seq,
            "errored": {
                "message": f"{type(exc).__name__}: {exc}",
                "context": {"traceback": traceback.format_exc(limit=20)},
            },
        }
    return {"seq": seq, "answer": answer}


def adapter(message: dict[str, Any]) -> dict[str, Any] | None:
    """Handle one adapter-protocol message (the direct adapter's entry point)."""
    command = message.get("cmd")
    if command == "start":
        return describe()
    if command == "run":
        return run_case(int(message["seq"]), str(message["operation"]), message["input"])
    if command == "stop":
        return None
    raise ValueError(f"unknown adapter command {command!r}")
