"""The adapter protocol: the messages the harness and an implementation exchange.

The protocol is JSON lines (one JSON object per line). The harness sends
``start`` (with :data:`PROTOCOL_VERSION`), then one ``run`` per case (a
sequence number, the operation and the vector's input: never the expected
answer), then ``stop``. The implementation answers ``start`` with who it is and
what it supports, and each ``run`` with exactly one of ``answer``, ``refusal``,
``skipped`` or ``errored``. The schemas are ``schemas/jsonschema/adapter-*.json``.

Answers are read defensively: anything that does not follow the protocol
becomes a :class:`ProtocolViolation`, which the runner reports as an errored
case, never as a crash of the harness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from apconform.conformance.contracts import answer_problems, input_problems
from apconform.core.errors import DocumentRefused
from apconform.core.jsonload import MESSAGE_LIMITS
from apconform.core.schemas import ecma_search, json_schema_validator
from apconform.core.validation import validate_document
from apconform.models.conformance import AdapterAnswer, AdapterStarted, Implementation

ERROR_CODE_PATTERN = "^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"

__all__ = [
    "MESSAGE_LIMITS",
    "PROTOCOL_VERSION",
    "ProtocolViolation",
    "Reply",
    "check_request",
    "errored",
    "read_answer",
    "read_started",
    "run_message",
    "start_message",
    "stop_message",
]

PROTOCOL_VERSION = "apconform-adapter/1"

_ANSWER_KINDS = ("answer", "refusal", "skipped", "errored")
ReplyKind = Literal["answer", "refusal", "skipped", "errored"]


class ProtocolViolation(Exception):
    """The implementation broke the adapter protocol; the message says how."""

    def __init__(self, message: str, *, offending: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.offending = offending


@dataclass(frozen=True)
class Reply:
    """What the harness made of the implementation's reply to one case."""

    kind: ReplyKind
    document: Any = None
    code: str | None = None
    message: str | None = None
    reason: str | None = None
    issue_url: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False
    """True when no answer came within the timeout (the runner stops after several in a row)."""

    def to_actual(self) -> dict[str, Any]:
        """The ``actual`` member of a report case record."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "answer":
            out["document"] = self.document
        for key, value in (
            ("code", self.code),
            ("message", self.message),
            ("reason", self.reason),
            ("issueUrl", self.issue_url),
        ):
            if value is not None:
                out[key] = value
        if self.context:
            out["context"] = self.context
        return out


def errored(message: str, *, timed_out: bool = False, **context: Any) -> Reply:
    """An errored reply with context (stderr, traceback, the offending message, ...)."""
    return Reply(
        "errored",
        message=message,
        context={k: v for k, v in context.items() if v},
        timed_out=timed_out,
    )


def start_message() -> dict[str, Any]:
    return {"cmd": "start", "version": PROTOCOL_VERSION}


def run_message(seq: int, operation: str, value: Any) -> dict[str, Any]:
    return {"cmd": "run", "seq": seq, "operation": operation, "input": value}


def stop_message() -> dict[str, Any]:
    return {"cmd": "stop"}


_REQUEST_SCHEMAS = {"start": "adapter-start", "run": "adapter-run", "stop": "adapter-stop"}


def _schema_errors(document: str, value: Any) -> list[str]:
    validator = json_schema_validator(document)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    return [
        f"{'/' + '/'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in errors
    ]


def check_request(message: dict[str, Any]) -> None:
    """Validate a message the harness is about to send (with --validate-protocol).

    A run message's input must also meet its operation's input schema: the
    harness never sends an implementation an input the catalogue does not
    describe.
    """
    problems = _schema_errors(_REQUEST_SCHEMAS[str(message.get("cmd"))], message)
    if not problems and message.get("cmd") == "run":
        problems = [
            f"$.input{problem[1:]}"
            for problem in input_problems(str(message["operation"]), message["input"])
        ]
    if problems:
        raise ProtocolViolation(
            "the harness built a request that breaks the adapter protocol schema: "
            + "; ".join(problems),
            offending=message,
        )


def _violation(what: str, problems: list[str], offending: Any) -> ProtocolViolation:
    shown = "; ".join(problems[:5]) + (
        f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
    )
    return ProtocolViolation(f"{what} breaks the adapter protocol: {shown}", offending=offending)


def read_started(value: Any, *, validate: bool) -> Implementation:
    """Read the answer to start; refuse another protocol version or a malformed description."""
    if isinstance(value, dict) and value.get("version") not in (None, PROTOCOL_VERSION):
        raise ProtocolViolation(
            f"the implementation speaks adapter protocol {value.get('version')!r}; "
            f"the harness speaks {PROTOCOL_VERSION!r}",
            offending=value,
        )
    if validate:
        problems = _schema_errors("adapter-started", value)
        if problems:
            raise _violation("the answer to start", problems, value)
    try:
        started = validate_document(AdapterStarted, value, what="answer to start")
    except DocumentRefused as refused:
        raise _violation(
            "the answer to start", [f"{v.path}: {v.message}" for v in refused.violations], value
        ) from None
    return started.implementation


def read_answer(value: Any, seq: int, *, validate: bool, operation: str | None = None) -> Reply:
    """Turn the answer to run number ``seq`` into a :class:`Reply`, or raise ProtocolViolation.

    With ``validate``, the message must meet the adapter protocol's schema and
    an answer must meet the answer schema of ``operation``.
    """
    if not isinstance(value, dict):
        raise ProtocolViolation(f"the answer to run {seq} is not a JSON object", offending=value)
    if value.get("seq") != seq or isinstance(value.get("seq"), bool):
        raise ProtocolViolation(
            f"the answer to run {seq} carries seq {value.get('seq')!r}", offending=value
        )
    present = [kind for kind in _ANSWER_KINDS if kind in value]
    if len(present) != 1:
        raise ProtocolViolation(
            f"the answer to run {seq} must carry exactly one of answer, refusal, skipped "
            f"or errored; it carries {', '.join(present) if present else 'none'}",
            offending=value,
        )
    if validate:
        problems = _schema_errors("adapter-answer", value)
        if problems:
            raise _violation(f"the answer to run {seq}", problems, value)
        try:
            validate_document(AdapterAnswer, value, what=f"answer to run {seq}")
        except DocumentRefused as refused:
            raise _violation(
                f"the answer to run {seq}",
                [f"{v.path}: {v.message}" for v in refused.violations],
                value,
            ) from None
        if present[0] == "answer" and operation is not None:
            problems = answer_problems(operation, value["answer"])
            if problems:
                raise _violation(
                    f"the answer to run {seq} ({operation}, checked against its answer schema)",
                    [f"$.answer{problem[1:]}" for problem in problems],
                    value,
                )
    return _lenient_reply(present[0], value[present[0]], seq)


def _text(member: Any, key: str, where: str, *, required: bool = True) -> str | None:
    found = member.get(key) if isinstance(member, dict) else None
    if found is None and not required:
        return None
    if not isinstance(found, str):
        raise ProtocolViolation(f"{where} needs a string member {key!r}", offending=member)
    return found


def _lenient_reply(kind: str, member: Any, seq: int) -> Reply:
    """Read only what the harness needs; unknown members are ignored without --validate-protocol."""
    where = f"the {kind} member of the answer to run {seq}"
    if kind == "answer":
        return Reply("answer", document=member)
    if not isinstance(member, dict):
        raise ProtocolViolation(f"{where} must be a JSON object", offending=member)
    if kind == "refusal":
        code = _text(member, "code", where)
        if code is None or not ecma_search(ERROR_CODE_PATTERN, code):
            raise ProtocolViolation(
                f"{where} holds the error code {code!r}, which is not a stable code such as "
                "APC-JSON-DEPTH",
                offending=member,
            )
        path = _text(member, "path", where, required=False)
        return Reply(
            "refusal",
            code=code,
            message=_text(member, "message", where),
            context={"path": path} if path else {},
        )
    if kind == "skipped":
        return Reply(
            "skipped",
            reason=_text(member, "reason", where),
            issue_url=_text(member, "issueUrl", where, required=False),
        )
    context = member.get("context")
    return Reply(
        "errored",
        message=f"the implementation reported an error: {_text(member, 'message', where)}",
        context={"implementation": context} if context is not None else {},
    )
