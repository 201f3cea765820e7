"""What arrived on the wire for the attempt in flight, for when Inspect cannot read it.

A body in another provider's shape, or an empty object, answers with HTTP 200
but is no chat completion: the native adapter records it and declares the
execution UNOBSERVABLE with the shape it recognised. Inside Inspect such a
body makes the provider's conversion raise, and Inspect keeps no copy of it.
So the tool loop listens on the provider's HTTP client (a response event
hook, for providers built on httpx, the OpenAI-compatible ones among them)
and keeps the status and the bytes of the last successful response of the
attempt in flight; the loop reads them only when Inspect failed to.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from apconform.ap1.run.wire import RESPONSE_LIMITS

__all__ = ["Arrival", "listen", "listening"]


@dataclass
class Arrival:
    """The last response of one attempt: its status, and its body when it was a success."""

    status: int | None = None
    body: bytes | None = None
    note: str | None = None
    """Why the body was not kept (too large, a stream)."""


_IN_FLIGHT: ContextVar[Arrival | None] = ContextVar("apconform_ap1_arrival", default=None)


async def _keep(response: Any) -> None:
    arrival = _IN_FLIGHT.get()
    if arrival is None:
        return
    arrival.status, arrival.body, arrival.note = int(response.status_code), None, None
    if not 200 <= arrival.status <= 299:
        return  # an error body reaches the loop with the SDK's exception
    kind = str(response.headers.get("content-type", ""))
    length = str(response.headers.get("content-length", ""))
    if "event-stream" in kind:
        arrival.note = "the response is a stream"
        return
    if length.isdigit() and int(length) > RESPONSE_LIMITS.max_bytes:
        arrival.note = f"the response is {length} bytes, above the {RESPONSE_LIMITS.max_bytes}"
        return
    await response.aread()  # the SDK reads the same cached bytes afterwards
    data = bytes(response.content)
    if len(data) > RESPONSE_LIMITS.max_bytes:
        arrival.note = f"the response is above {RESPONSE_LIMITS.max_bytes} bytes"
        return
    arrival.body = data


def listen(model: Any) -> bool:
    """Listen on the HTTP client of ``model``'s provider; False when it has none to listen on."""
    client = getattr(getattr(model, "api", None), "http_client", None)
    hooks = getattr(client, "event_hooks", None)
    if not isinstance(hooks, dict) or not isinstance(hooks.get("response"), list):
        return False
    if _keep not in hooks["response"]:
        hooks["response"].append(_keep)
    return True


@contextlib.contextmanager
def listening() -> Iterator[Arrival]:
    """The arrival of the attempt run inside the block."""
    arrival = Arrival()
    token = _IN_FLIGHT.set(arrival)
    try:
        yield arrival
    finally:
        _IN_FLIGHT.reset(token)
