#!/usr/bin/env python3
"""A deliberately faulty implementation, for proving that the harness catches faults.

It answers like the reference implementation except for the cases named in
its fault plan. A case is named by the first 16 hex characters of
``case_key(operation, input)``: the implementation never sees vector ids or
expectations, only what the adapter protocol sends it, so the plan is keyed by
what it does see. The plan is ``KIND=KEY[,KIND=KEY...]``, given as the
arguments (exec) or in the ``APCONFORM_FAULTS`` environment variable (direct:
``direct:faulty_impl:adapter`` with this folder on the Python path). A tester may
name a shipped vector instead of its key: ``wrong-value=vector:kit-jcs-negative-zero``.

Kinds: wrong-value (every scalar of the answer altered; a refusal becomes an
answer), wrong-refusal (an answer becomes a refusal, a refusal gets another
code), bad-json, wrong-seq, two-members (answer and refusal at once),
extra-member (an unknown member: only --validate-protocol objects),
off-schema (an answer with a member its operation's answer schema does not
have), skip, error, crash (the process exits) and hang (it never answers).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from apconform.conformance.reference import describe, run_case
from apconform.core.canonical import sha256_hex

KINDS = (
    "wrong-value",
    "wrong-refusal",
    "bad-json",
    "wrong-seq",
    "two-members",
    "extra-member",
    "off-schema",
    "skip",
    "error",
    "crash",
    "hang",
)


def case_key(operation: str, value: Any) -> str:
    """What names a case in a fault plan."""
    return sha256_hex({"operation": operation, "input": value})[:16]


def _key_of_vector(vector_id: str) -> str:
    """The case key of one of the kit's shipped vectors, named by its id (a tester's shorthand:
    the running implementation still sees only operations and inputs)."""
    from apconform.conformance.vectors import load_vectors

    for item in load_vectors():
        if item.id == vector_id:
            return case_key(item.vector.operation, item.vector.input)
    raise SystemExit(f"faulty_impl: no shipped vector has the id {vector_id!r}")


def parse_plan(text: str) -> dict[str, str]:
    """``KIND=KEY`` items, comma-separated; KEY is a case key or ``vector:ID``."""
    plan = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, _, key = item.partition("=")
        if kind not in KINDS or not key:
            raise SystemExit(f"faulty_impl: bad fault {item!r}; kinds: {', '.join(KINDS)}")
        if key.startswith("vector:"):
            key = _key_of_vector(key.removeprefix("vector:"))
        plan[key] = kind
    return plan


def _alter(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, list):
        return [_alter(item) for item in value] or ["~"]
    if isinstance(value, dict):
        return {key: _alter(item) for key, item in value.items()} or {"~": True}
    return "~"


def faulty_answer(
    message: dict[str, Any], plan: dict[str, str], *, in_process: bool = False
) -> dict[str, Any] | str | None:
    """The reply to one message: a dict to send, raw text (bad-json), or None (no reply)."""
    if message.get("cmd") != "run":
        return describe() if message.get("cmd") == "start" else None
    seq, operation, value = message["seq"], message["operation"], message["input"]
    reply = run_case(seq, operation, value)
    kind = plan.get(case_key(operation, value))
    if kind is None:
        return reply
    if kind == "wrong-value":
        if "answer" in reply:
            return {"seq": seq, "answer": _alter(reply["answer"])}
        return {"seq": seq, "answer": {"faulty": True}}
    if kind == "wrong-refusal":
        code = "FAULTY-CODE" if "refusal" in reply else "FAULTY-REFUSAL"
        return {"seq": seq, "refusal": {"code": code, "message": "refused on purpose"}}
    if kind == "bad-json":
        return "this line is not JSON"
    if kind == "wrong-seq":
        return {**reply, "seq": seq + 1000}
    if kind == "two-members":
        return {"seq": seq, "answer": 1, "refusal": {"code": "FAULTY-CODE", "message": "both"}}
    if kind == "extra-member":
        return {**reply, "note": "an unknown member"}
    if kind == "off-schema" and isinstance(reply.get("answer"), dict):
        return {"seq": seq, "answer": {**reply["answer"], "offSchema": True}}
    if kind == "skip":
        reason = {"reason": "not supported yet", "issueUrl": "https://example.org/issues/1"}
        return {"seq": seq, "skipped": reason}
    if kind == "error":
        return {"seq": seq, "errored": {"message": "failed on purpose", "context": {"step": 1}}}
    if kind == "crash" and in_process:
        raise RuntimeError("crashing on purpose")
    if kind == "crash":
        print("faulty_impl: crashing on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    time.sleep(3600)  # hang
    return None


def adapter(message: dict[str, Any]) -> Any:
    """The direct adapter's entry point; the plan comes from APCONFORM_FAULTS."""
    plan = parse_plan(os.environ.get("APCONFORM_FAULTS", ""))
    reply = faulty_answer(message, plan, in_process=True)
    if isinstance(reply, str):
        return {"not": "a protocol message"}
    return reply


def main(argv: list[str]) -> int:
    plan = parse_plan(",".join(argv) or os.environ.get("APCONFORM_FAULTS", ""))
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message.get("cmd") == "stop":
            return 0
        reply = faulty_answer(message, plan)
        if reply is not None:
            text = reply if isinstance(reply, str) else json.dumps(reply)
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
