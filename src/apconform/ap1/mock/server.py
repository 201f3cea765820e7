"""The built-in model endpoint: a real HTTP server on 127.0.0.1 speaking OpenAI chat completions.

The model name picks the persona (``mock-correct``, ``mock-mixed``, ...). The
server is deterministic for a given seed and request, apart from two counters
that make repeats differ: how often a first-round request has been answered
(its occurrence, which seeds the persona's choices) and how often a request
has been attempted (which drives the flaky persona's failures). A persona and
occurrence chosen in the first round travel in the tool-call ids, as a real
provider's state would, so later rounds of one execution stay consistent.
"""

from __future__ import annotations

import errno
import hashlib
import json
import random
import threading
from collections import Counter
from decimal import Decimal
from http.server import ThreadingHTTPServer
from typing import TypeVar

from apconform.ap1.inputs.plan import RunInputs
from apconform.ap1.mock.completion import AssistantMessage, ChatCompletion, ErrorBody
from apconform.ap1.mock.echo import echo_error, echo_headers, echo_into, fill_placeholder
from apconform.ap1.mock.http import Reply, make_handler
from apconform.ap1.mock.identity import endpoint_identity
from apconform.ap1.mock.oracle import Oracle
from apconform.ap1.mock.personas import CODES, PERSONAS, Conversation, Turn, play, read_conversation
from apconform.ap1.run.wire import dump, parse_body
from apconform.core.errors import ApconformError, define_code

__all__ = ["MOCK_PORT", "MODELS", "MockEndpoint"]

MOCK_PORT = define_code(
    "AP1-MOCK-PORT",
    "The built-in endpoint cannot listen on the port",
    "Choose another --port (0 picks a free one), or stop the program that holds this one.",
)

MODELS = tuple(f"mock-{name}" for name in PERSONAS)
_BY_CODE = {code: name for name, code in CODES.items()}
_MIXED_BASE = (
    ("correct", 30),
    ("split", 12),
    ("no-tool", 8),
    ("invent", 10),
    ("sign-invert", 10),
    ("transcribe-error", 10),
    ("decline", 6),
    ("flaky", 8),
    ("foreign-shape", 6),
)
_MIXED_UNPROMPTED = (
    ("correct", 20),
    ("split", 8),
    ("no-tool", 36),
    ("invent", 8),
    ("sign-invert", 8),
    ("transcribe-error", 8),
    ("decline", 4),
    ("flaky", 4),
    ("foreign-shape", 4),
)
_FAULTS = (
    ((), 35),
    (("429",), 15),
    (("500",), 15),
    (("garbage",), 10),
    (("timeout",), 10),
    (("429", "500"), 5),
    (("503-always",), 10),
)
_MAX_BODY = 8 * 1024 * 1024
_T = TypeVar("_T")


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _arguments(value: object) -> object:
    """Tool-call arguments as the value they spell (unparseable text stays the text it is)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value, parse_float=Decimal)
    except (ValueError, RecursionError):
        return value


def _said(message: object) -> object:
    """What a message of the conversation says, whatever JSON spelling the client chose.

    Clients write an assistant's tool calls, and the tool results, back in
    their own spelling (content null or "", arguments re-serialised with other
    spacing, members in another order); the server keys its later rounds on
    what was said, so the same conversation gets the same behaviour from every
    client. Other messages are kept as sent.
    """
    if not isinstance(message, dict):
        return message
    role = message.get("role")
    if role == "assistant" and message.get("tool_calls"):
        calls = []
        for item in message.get("tool_calls") or []:
            call: dict[str, object] = item if isinstance(item, dict) else {}
            found = call.get("function")
            function: dict[str, object] = found if isinstance(found, dict) else {}
            calls.append(
                [call.get("id"), function.get("name"), _arguments(function.get("arguments"))]
            )
        return {"role": role, "content": message.get("content") or "", "toolCalls": calls}
    if role == "tool":
        return {
            "role": role,
            "toolCallId": message.get("tool_call_id"),
            "content": message.get("content") or "",
        }
    return message


def _weighted(rng: random.Random, table: tuple[tuple[_T, int], ...]) -> _T:
    return rng.choices([v for v, _ in table], weights=[w for _, w in table])[0]


class MockEndpoint:
    """The server; start it with ``with MockEndpoint(inputs) as mock: mock.url``."""

    def __init__(
        self,
        inputs: RunInputs,
        *,
        port: int = 0,
        latency: Decimal = Decimal(0),
        seed: int = 0,
        stall_seconds: Decimal = Decimal(3),
    ) -> None:
        self.oracle = Oracle(inputs)
        self.identity = endpoint_identity(inputs)
        """What ``GET /v1/apconform/endpoint`` answers: a run checks it is talking to us."""
        self.latency = float(latency)
        self.stall = float(stall_seconds)
        self.seed = seed
        self._lock = threading.Lock()
        self._occurrences: Counter[str] = Counter()
        self._attempts: Counter[str] = Counter()
        self.served: Counter[str] = Counter()
        try:
            self._server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(self))
        except OSError as exc:
            busy = exc.errno == errno.EADDRINUSE
            raise ApconformError(
                MOCK_PORT,
                f"port {port} on 127.0.0.1 "
                + ("is already in use" if busy else f"cannot be used ({exc.strerror})"),
                context={"port": port},
            ) from None
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/chat/completions"

    def start(self) -> MockEndpoint:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="ap1-mock", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MockEndpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ behaviour
    def handle(self, body: object, authorization: str | None = None) -> Reply:
        """(status, headers, body bytes, seconds to wait before answering) for one request.

        ``authorization`` is the request's Authorization header, which only the
        hostile ``echo-key`` persona reads (to send it back).
        """
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("messages"), list)
            or not body["messages"]
        ):
            return self.error_reply(
                400, "the body must be an object with a non-empty messages list"
            )
        model = body.get("model")
        if model not in MODELS:
            return self.error_reply(
                404,
                f"model {model!r} does not exist; try one of {', '.join(MODELS)}",
                "model_not_found",
            )
        messages: list[object] = body["messages"]
        first_round = not any(m.get("role") == "tool" for m in messages if isinstance(m, dict))
        key = _digest(model, dump([_said(m) for m in messages]))
        persona, occurrence = self._persona(str(model)[5:], messages, key, first_round)
        fault = self._fault(persona, key, occurrence)
        if fault is not None:
            return fault
        if persona == "echo-key" and authorization and first_round:
            with self._lock:
                attempt = self._attempts[_digest(key, occurrence, "echo")]
                self._attempts[_digest(key, occurrence, "echo")] += 1
            if attempt == 0:  # one rate-limit answer quoting the key, then the completion
                headers = {"Content-Type": "application/json", "Retry-After": "0"}
                headers.update(echo_headers(authorization))
                return 429, headers, echo_error(authorization), self.latency
        user_text = next(
            (m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"),
            "",
        )
        conversation = read_conversation(str(user_text or ""), messages, body.get("tools"))
        rng = random.Random(
            _digest(self.seed, persona, key if not first_round else user_text, occurrence)
        )
        turn = play(
            persona, self.oracle.find(conversation.user_text), conversation, self.oracle, rng
        )
        if first_round:
            with self._lock:
                self._occurrences[key] += 1
        with self._lock:
            self.served[persona] += 1
        reply = self._completion(str(model), body, turn, persona, occurrence, conversation)
        if persona == "echo-key" and authorization and turn.foreign is None:
            status, headers, raw, wait = reply
            completion = parse_body(raw)
            echo_into(completion, authorization)
            raw = fill_placeholder(dump(completion).encode("utf-8"), authorization)
            return status, {**headers, **echo_headers(authorization)}, raw, wait
        return reply

    def _persona(
        self, name: str, messages: list[object], key: str, first_round: bool
    ) -> tuple[str, int]:
        if not first_round:
            for message in messages:
                for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
                    parts = str(call.get("id", "")).split("_") if isinstance(call, dict) else []
                    if len(parts) >= 3 and parts[1] in _BY_CODE and parts[2].isdigit():
                        return _BY_CODE[parts[1]], int(parts[2])
            return (name if name != "mixed" else "correct"), 0
        with self._lock:
            occurrence = self._occurrences[key]
        if name != "mixed":
            return name, occurrence
        system = next(
            (
                m.get("content", "")
                for m in messages
                if isinstance(m, dict) and m.get("role") == "system"
            ),
            "",
        )
        prompted = "calculator" in str(system).lower() or "tool" in str(system).lower()
        rng = random.Random(_digest(self.seed, "mixed", key, occurrence))
        return _weighted(rng, _MIXED_BASE if prompted else _MIXED_UNPROMPTED), occurrence

    def _fault(self, persona: str, key: str, occurrence: int) -> Reply | None:
        if persona != "flaky":
            return None
        pattern = _weighted(random.Random(_digest(self.seed, "faults", key, occurrence)), _FAULTS)
        attempt_key = _digest(key, occurrence)
        with self._lock:
            attempt = self._attempts[attempt_key]
            self._attempts[attempt_key] += 1
        if pattern == ("503-always",):
            kind = "503"
        elif attempt < len(pattern):
            kind = pattern[attempt]
        else:
            return None
        with self._lock:
            self.served[f"fault-{kind}"] += 1
        if kind == "429":
            status, headers, body, wait = self.error_reply(
                429, "rate limit reached (injected)", "rate_limit_exceeded"
            )
            return status, {**headers, "Retry-After": "0"}, body, wait
        if kind in ("500", "503"):
            return self.error_reply(int(kind), "the server had an error (injected)", "server_error")
        if kind == "garbage":
            return (
                200,
                {"Content-Type": "application/json"},
                b'{"id": "chatcmpl-x", "choices": [{"mess',
                self.latency,
            )
        return 200, {"Content-Type": "application/json"}, b"{}", self.stall  # timeout

    def error_reply(self, status: int, message: str, code: str = "invalid_request") -> Reply:
        """An error in the shape OpenAI-compatible endpoints use, sent after the latency."""
        body: ErrorBody = {
            "error": {
                "message": message,
                "type": "invalid_request_error" if status < 500 else "server_error",
                "code": code,
            }
        }
        return status, {"Content-Type": "application/json"}, json.dumps(body).encode(), self.latency

    def _completion(
        self,
        model: str,
        request: dict[str, object],
        turn: Turn,
        persona: str,
        occurrence: int,
        conversation: Conversation,
    ) -> Reply:
        if turn.foreign is not None:
            return (
                200,
                {"Content-Type": "application/json"},
                dump(turn.foreign).encode(),
                self.latency,
            )
        message: AssistantMessage = {"role": "assistant", "content": turn.text}
        if turn.calls and conversation.tool is not None:
            name, argument = conversation.tool
            message["content"] = None
            message["tool_calls"] = [
                {
                    "id": f"call_{CODES[persona]}_{occurrence}_{conversation.tool_rounds + 1}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": dump({argument: expression})},
                }
                for i, expression in enumerate(turn.calls)
            ]
        completion: ChatCompletion = {
            "id": "chatcmpl-" + _digest(self.seed, dump(request))[:24],
            "object": "chat.completion",
            "created": 1767225600,
            "model": model,
            "system_fingerprint": f"apconform-mock-{self.seed}",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
        if "temperature" in request:  # the sampling parameters sent, echoed in this order
            completion["temperature"] = request["temperature"]
        if "top_p" in request:
            completion["top_p"] = request["top_p"]
        if "seed" in request:
            completion["seed"] = request["seed"]
        return 200, {"Content-Type": "application/json"}, dump(completion).encode(), self.latency
