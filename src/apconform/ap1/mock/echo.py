"""The hostile echo: how the ``echo-key`` persona hands the request's credential back.

A careless or malicious endpoint can return the Authorization value it
received anywhere in its response, and in encodings a plain search for the key
would miss. This persona does all of it at once, so the kit's tests can show
that none of it reaches a stored record, a report or a terminal: the value in
tool-call ids (decoded by the JSON parser into the record), in the answer text
with its characters written as ``\\uXXXX`` escapes (every one, and only the
hyphens), percent-encoded, in base64 (of the key and of ``Bearer <key>``), as
hexadecimal, as an HTML character reference, as a member name, as an echoed
sampling parameter, in a response header and in an error body.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

__all__ = ["PLACEHOLDER", "echo_error", "echo_headers", "echo_into", "fill_placeholder", "key_of"]

PLACEHOLDER = "ECHO-PLACEHOLDER-7f3a"
"""Stands in the answer text for the escaped forms, which only raw JSON text can carry."""


def key_of(authorization: str) -> str:
    """The credential inside an Authorization value (the part after ``Bearer``)."""
    scheme, _, rest = authorization.partition(" ")
    return rest.strip() if scheme.lower() == "bearer" and rest.strip() else authorization


def _escaped(text: str, *, only: str | None = None) -> str:
    """JSON string content with characters written as \\uXXXX (all, or only those in ``only``)."""
    out = []
    for char in text:
        if only is None or char in only:
            out.append(f"\\u{ord(char):04x}" if ord(char) % 2 else f"\\u{ord(char):04X}")
        else:
            out.append(json.dumps(char)[1:-1])
    return "".join(out)


def echo_into(completion: dict[str, object], authorization: str) -> None:
    """Plant the credential in a chat completion: ids, text, members, an echoed parameter.

    ``completion`` is a chat completion as read back from its JSON text (the endpoint's
    own), so every member is checked as it is reached.
    """
    key = key_of(authorization)
    choices = completion.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if isinstance(message, dict):
        calls = message.get("tool_calls") or []
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                call["id"] = f"{call['id']}_{authorization}"
        if isinstance(message.get("content"), str):
            message["content"] += f" (you sent {PLACEHOLDER})"
    completion["system_fingerprint"] = quote(authorization, safe="")
    completion["stop"] = [base64.b64encode(authorization.encode("utf-8")).decode("ascii")]
    completion[key] = {
        "key": base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii").rstrip("="),
        "hex": key.encode("utf-8").hex(),
        "html": "".join(f"&#{ord(c)};" for c in key[:3]) + key[3:],
        "partlyEncoded": quote(key, safe="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    }


def fill_placeholder(body: bytes, authorization: str) -> bytes:
    """Replace the placeholder in raw JSON text by escaped forms of the credential."""
    key = key_of(authorization)
    forms = " ".join(
        (
            _escaped(authorization),
            _escaped(key, only="-_."),
            _escaped(key[:1]) + key[1:],
            authorization,
        )
    )
    return body.replace(PLACEHOLDER.encode("ascii"), forms.encode("utf-8"))


def echo_headers(authorization: str) -> dict[str, str]:
    """Response headers that carry the credential back."""
    return {"X-Echo-Authorization": authorization}


def echo_error(authorization: str) -> bytes:
    """A rate-limit error body that quotes the credential (escaped and plain)."""
    key = key_of(authorization)
    message = f"slow down, {PLACEHOLDER} ({authorization}; {quote(key, safe='')})"
    body = json.dumps({"error": {"message": message, "type": "rate_limit", "code": "429"}})
    return fill_placeholder(body.encode("utf-8"), authorization)
