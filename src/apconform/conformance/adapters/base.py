"""The adapter interface the runner sees, and the adapter that speaks the protocol over a channel.

The runner sees only :class:`Adapter`: ``start``, ``run`` and ``stop``. Crashes,
hangs and protocol violations come back as errored replies; only a failed start
is an exception. :class:`MessageAdapter` carries protocol messages over a
channel (in process or a subprocess pipe); the HTTP adapter lives in
:mod:`apconform.conformance.adapters.http`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apconform.conformance.adapters.channels import (
    Channel,
    ChannelFailure,
    ExecChannel,
)
from apconform.conformance.protocol import (
    ProtocolViolation,
    Reply,
    check_request,
    errored,
    read_answer,
    read_started,
    run_message,
    start_message,
    stop_message,
)
from apconform.core.errors import ApconformError, define_code
from apconform.models.conformance import Implementation

__all__ = ["ADAPTER_START", "Adapter", "MessageAdapter"]

ADAPTER_START = define_code(
    "APC-ADAPTER-START",
    "The implementation did not start or did not answer the start message correctly",
    "Run the implementation by hand and send it the start message from the adapter protocol "
    "documentation; its answer must follow schemas/jsonschema/adapter-started.schema.json.",
)

_TAIL_LINES = 12
_TAIL_CHARS = 2000


def _stderr_tail(context: dict[str, Any]) -> str:
    """The last lines the implementation wrote to stderr, indented under the message."""
    text = str(context.get("stderr") or "").strip()
    if not text:
        return ""
    lines = text[-_TAIL_CHARS:].splitlines()[-_TAIL_LINES:]
    return "\nthe implementation's standard error ended with:\n" + "\n".join(
        f"  | {line}" for line in lines
    )


def _start_hint(program: str) -> str | None:
    """What to do when an exec command started but died: say which program ran."""
    if not program:
        return None
    return (
        f"The command ran {program}. If it needs packages from a virtual environment, name "
        "that environment's interpreter (for example exec:.venv/bin/python adapter.py) or "
        "activate the environment first; then run the command by hand and send it the start "
        "message from the adapter protocol documentation."
    )


_MAX_RESTARTS = 3


class Adapter:
    """What the runner needs from an implementation under test."""

    target: str = ""

    def start(self, timeout: float, operations: list[str]) -> Implementation:
        """Start the implementation and return its description; raise APC-ADAPTER-START."""
        raise NotImplementedError

    def run(self, seq: int, operation: str, value: Any, timeout: float) -> Reply:
        """Send one case and return the reply (errored on crash, hang or protocol violation)."""
        raise NotImplementedError

    def stop(self) -> dict[str, Any] | None:
        """Stop the implementation; never raises. For a process: how it exited (a StopCheck)."""
        return None


def _failure_reply(failure: ChannelFailure) -> Reply:
    context = dict(failure.context)
    violation = bool(context.pop("protocolViolation", False))
    prefix = "protocol violation: " if violation else ""
    return errored(prefix + failure.message, timed_out=failure.timed_out, **context)


class MessageAdapter(Adapter):
    """An adapter that exchanges protocol messages over a channel (direct or exec).

    After a crash, a hang or a protocol violation the channel is discarded and
    a fresh one is started (with a new start handshake) for the next case; after
    three failed restarts in a row every remaining case is errored at once.
    """

    def __init__(
        self, target: str, connect: Callable[[], Channel], *, validate_protocol: bool
    ) -> None:
        self.target = target
        self._connect = connect
        self._validate = validate_protocol
        self._channel: Channel | None = None
        self._failed_restarts = 0
        self._last_failure = ""

    def _send(self, channel: Channel, message: dict[str, Any], timeout: float) -> Any:
        if self._validate:
            check_request(message)
        return channel.exchange(message, timeout)

    def _handshake(self, timeout: float) -> Implementation:
        channel = self._connect()
        try:
            implementation = read_started(
                self._send(channel, start_message(), timeout), validate=self._validate
            )
        except (ChannelFailure, ProtocolViolation):
            _discard(channel)
            raise
        self._channel = channel
        return implementation

    def start(self, timeout: float, operations: list[str]) -> Implementation:
        try:
            return self._handshake(timeout)
        except ChannelFailure as failure:
            raise ApconformError(
                ADAPTER_START,
                f"{self.target}: {failure.message}{_stderr_tail(failure.context)}",
                context=failure.context,
                hint=_start_hint(failure.program),
            ) from None
        except ProtocolViolation as violation:
            raise ApconformError(ADAPTER_START, f"{self.target}: {violation.message}") from None

    def _reconnect(self, timeout: float) -> Reply | None:
        if self._failed_restarts >= _MAX_RESTARTS:
            return errored(
                f"not sent: the implementation failed to restart {_MAX_RESTARTS} times "
                f"(last: {self._last_failure})"
            )
        try:
            self._handshake(timeout)
        except (ChannelFailure, ProtocolViolation) as exc:
            self._failed_restarts += 1
            self._last_failure = getattr(exc, "message", str(exc))
            return errored(
                f"the implementation could not be restarted: {self._last_failure}",
                timed_out=getattr(exc, "timed_out", False),
            )
        self._failed_restarts = 0
        return None

    def run(self, seq: int, operation: str, value: Any, timeout: float) -> Reply:
        if self._channel is None:
            problem = self._reconnect(timeout)
            if problem is not None:
                return problem
        channel = self._channel
        assert channel is not None
        try:
            raw = self._send(channel, run_message(seq, operation, value), timeout)
            return read_answer(raw, seq, validate=self._validate, operation=operation)
        except ChannelFailure as failure:
            self._drop()
            return _failure_reply(failure)
        except ProtocolViolation as violation:
            self._drop()
            offending = violation.offending
            return errored(
                f"protocol violation: {violation.message}",
                offending=offending if offending is not None else None,
            )

    def _drop(self) -> None:
        if self._channel is not None:
            _discard(self._channel)
            self._channel = None

    def stop(self) -> dict[str, Any] | None:
        if self._channel is None:
            return None
        outcome: dict[str, Any] | None = None
        try:
            message = stop_message()
            if self._validate:
                check_request(message)
            outcome = self._channel.close(message)
        except Exception:  # stopping never fails the harness
            _discard(self._channel)
        self._channel = None
        return outcome


def _discard(channel: Channel) -> None:
    if isinstance(channel, ExecChannel):
        channel.kill()
