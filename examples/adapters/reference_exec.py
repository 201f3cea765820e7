#!/usr/bin/env python3
"""A minimal exec adapter: the kit's reference implementation behind the adapter protocol.

Run it under the harness with

    .venv/bin/apconform check --impl "exec:.venv/bin/python examples/adapters/reference_exec.py"

(name the interpreter that has apconform installed: a bare `python` is whatever PATH finds).

The harness writes one JSON message per line to our stdin and reads one JSON
answer per line from our stdout. Anything we want to log goes to stderr (the
harness keeps the last few kilobytes of it for its error reports); stdout
carries nothing but answers. docs/kit/tutorial-exec-adapter.md walks through
this file step by step; an adapter for another language follows the same shape.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

# 1. The implementation under test. Here it is the kit's own reference
#    operations; in your adapter this is where you call your library.
from apconform import __version__
from apconform.conformance.operations import get_operation, operation_names
from apconform.core.errors import ApconformError

PROTOCOL_VERSION = "apconform-adapter/1"


# 2. The answer to "start": who we are and what we support. The harness runs
#    only vectors of the protocols we claim, and reports vectors of operations
#    we do not list as skipped without sending them.
def started() -> dict[str, Any]:
    operations = operation_names()
    return {
        "version": PROTOCOL_VERSION,
        "implementation": {
            "name": "apconform-reference-exec",
            "version": __version__,
            "language": "python",
            "homepage": "https://w3id.org/apconform",
            "protocols": sorted({name.split(".", 1)[0] for name in operations}),
            "operations": operations,
        },
    }


# 3. The answer to "run": exactly one of answer, refusal, skipped or errored,
#    always with the seq of the message it answers. A refusal is a correct
#    answer when the vector expects one, so it is not an error here.
def run(seq: int, operation: str, value: Any) -> dict[str, Any]:
    if operation not in operation_names():
        return {"seq": seq, "skipped": {"reason": f"{operation} is not implemented"}}
    try:
        answer = get_operation(operation)(value)
    except ApconformError as error:
        refusal = {"code": error.code, "message": error.message}
        if error.path is not None:
            refusal["path"] = error.path
        return {"seq": seq, "refusal": refusal}
    except Exception as exc:  # a bug: say so instead of crashing the whole run
        return {
            "seq": seq,
            "errored": {
                "message": f"{type(exc).__name__}: {exc}",
                "context": {"traceback": traceback.format_exc()},
            },
        }
    return {"seq": seq, "answer": answer}


# 4. Writing: one line per answer, flushed at once (the harness waits for it).
#    ensure_ascii keeps the line pure ASCII whatever the answer holds.
def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=True) + "\n")
    sys.stdout.flush()


# 5. The loop: read a line, dispatch on "cmd", answer. "stop" ends the process
#    with status 0; so does the end of stdin.
def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        command = message.get("cmd")
        if command == "start":
            if message.get("version") != PROTOCOL_VERSION:
                print(f"unsupported protocol {message.get('version')!r}", file=sys.stderr)
                return 2
            send(started())
        elif command == "run":
            send(run(message["seq"], message["operation"], message["input"]))
        elif command == "stop":
            return 0
        else:
            print(f"unknown command {command!r}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
