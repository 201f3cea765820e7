"""A configuration for ap1/load-config: every member of its schema, from the generated
values."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.ap1.masking import looks_like_credential
from apconform.models.ap1 import (
    Ap1Dimension,
    OmissionReason,
    ReasoningEffort,
    RoundingMode,
    ToolChoiceMode,
    TransformationName,
    VariedQuantity,
)

from .ap1_inputs import NATIVE_REASONS, _config
from .shared import Body, _digest, _list, _magnitude, _named, _object, _pick, _whole, _word

_NOT_BLANK = re.compile(
    r"[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)
_DECIMAL = r"-?(0|[1-9][0-9]*)(\.[0-9]+)?"
_HEX64 = r"[0-9a-f]{64}"


def _fits(value: Any, pattern: str = r"(?s).*", most: int = 256) -> bool:
    """A generated text the configuration takes as it is: of the member's form, at most
    ``most`` characters, nothing credential-shaped (the loader refuses that anywhere)."""
    return (
        isinstance(value, str)
        and len(value) <= most
        and re.fullmatch(pattern, value) is not None
        and not looks_like_credential(value)
    )


def _as_text(value: Any) -> Any:
    """A generated JSON number as its decimal text (the loader refuses bare numbers); any
    other value as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    try:
        return format(Decimal(repr(value)), "f")
    except (ValueError, ArithmeticError):  # beyond what a decimal text is sensibly made of
        return value


def _formed(value: Any, pattern: str, derived: Any, most: int = 256) -> Any:
    """The generated text when it has the form, else the derived value."""
    return value if _fits(value, pattern, most) else derived


def _count(value: Any, most: int) -> str:
    """A generated whole-number text above 0 kept, else one from 1 to ``most`` (``_whole``)."""
    return str(_formed(value, r"[1-9][0-9]*", str(_whole(value, 1, most)), 12))


def _text(value: Any, most: int = 128, blank: bool = False) -> str:
    """A generated text (not blank, unless ``blank``) kept; any other value a word naming it."""
    kept = _fits(value, most=most) and (blank or _NOT_BLANK.search(value) is not None)
    return str(value) if kept else f"v{_digest(value)}"


def _enum(options: Any, value: Any) -> str:
    """``value`` when it is a member of the enumeration, else the member it picks."""
    return _named([option.value for option in options], value)


_SENDABLE: dict[str, Callable[[Any], bool]] = {
    "temperature": partial(_fits, pattern=_DECIMAL),
    "top_p": partial(_fits, pattern=_DECIMAL),
    "presence_penalty": partial(_fits, pattern=_DECIMAL),
    "frequency_penalty": partial(_fits, pattern=_DECIMAL),
    "seed": partial(_fits, pattern=r"-?(0|[1-9][0-9]*)", most=24),
    "max_tokens": partial(_fits, pattern=r"-?(0|[1-9][0-9]*)", most=24),
    "max_completion_tokens": partial(_fits, pattern=r"-?(0|[1-9][0-9]*)", most=24),
    "top_k": partial(_fits, pattern=r"-?(0|[1-9][0-9]*)", most=24),
    "stop": partial(_fits, pattern=r"(?s).+"),
    "reasoning_effort": lambda value: value in [e.value for e in ReasoningEffort],
    "toolChoice": lambda value: value in [m.value for m in ToolChoiceMode],
}
"""Whether a generated value can be sent as the setting (the schema's form of its ``send``)."""


def _setting(name: str, generated: Any) -> Body:
    """Sent when the generated value (or its ``send``) has the setting's form; else omitted,
    for the generated reason when it is one (else one picked by the value's hash), with the
    generated detail when text, else one naming the value (an operator's omission without
    a detail is kept without one)."""
    got = _object(generated)
    sent = _as_text(got.get("send", generated))
    if _SENDABLE[name](sent):
        return {"send": sent}
    reason = got.get("omit")
    if reason not in [r.value for r in OmissionReason]:
        reason = _pick(NATIVE_REASONS, _digest(generated))
    if reason == OmissionReason.operator_declared.value and "detail" not in got:
        return {"omit": reason}
    return {"omit": reason, "detail": _text(got.get("detail", generated))}


def _sampling_settings(generated: Any, seed: str) -> Body:
    got = _object(generated)
    return {name: _setting(name, got.get(name, f"{name}/{seed}")) for name in SAMPLING_PARAMETERS}


def _tool(generated: Any, seed: str) -> Body:
    got = _object(generated)
    name = got.get("name", f"tool/{seed}")
    return {
        "name": _formed(name, r"[A-Za-z0-9_-]+", _word(name, "A-Za-z0-9_-"), 64),
        "description": _text(got.get("description", f"description/{seed}")),
        "argumentName": _word(got.get("argumentName", f"argument/{seed}"), "a-z0-9_", lower=True),
        "argumentDescription": _text(got.get("argumentDescription", f"argument/{seed}")),
    }


def _condition(generated: Any, name: str, seed: str) -> Body:
    """A condition's two texts, and each override the generated condition holds."""
    got = _object(generated)
    out: Body = {
        "systemPrompt": _text(got.get("systemPrompt", f"{name}/{seed}"), 256, blank=True),
        "userPreamble": _text(got.get("userPreamble", ""), 256, blank=True),
    }
    if "tool" in got:
        out["tool"] = _tool(got["tool"], seed)
    if "toolChoice" in got:
        out["toolChoice"] = _setting("toolChoice", got["toolChoice"])
    if "sampling" in got:
        out["sampling"] = _sampling_settings(got["sampling"], seed)
    return out


def _load_config(body: Body) -> None:
    """ap1/load-config: the generated configuration made one the kit's loader accepts.

    Every member of the schema, each the generated value where it has the member's form
    (so a configuration that has them all is kept as generated), else derived from that
    value: a text naming it by its hash, a decimal text from the length of its JSON text, a
    named value picked by its hash. A member the generated configuration lacks is derived
    from its name and the hash of the whole; members the schema does not know are dropped.
    A generated number becomes its decimal text, as the loader wants every number written.
    Then the configuration's own relations, as for ``validate-config``.
    """
    seed = _digest(body.get("config"))
    got = _object(body.get("config"))

    def member(holder: Body, name: str) -> Any:
        return _as_text(holder.get(name, f"{name}/{seed}"))

    ap1, endpoint = _object(got.get("ap1")), _object(got.get("endpoint"))
    transport, request = _object(got.get("transport")), _object(got.get("request"))
    conditions, answer = _object(got.get("conditions")), _object(got.get("answer"))
    places, message = _object(answer.get("quantisation")), _object(request.get("message"))
    doi, url, sha = member(ap1, "versionDoi"), member(endpoint, "url"), member(ap1, "textSha256")
    key, grouping = endpoint.get("apiKeyEnv"), answer.get("groupingSeparator")
    repeats, place = member(got, "repeats"), member(places, "places")
    claimed = member(got, "dimensionsClaimed")
    field = answer.get("structuredAnswerField")
    allowed = got.get("permittedTransformations")
    config: Body = {
        "schemaVersion": "apconform-ap1-config/1",
        "ap1": {
            "version": _text(member(ap1, "version")),
            "versionDoi": _formed(doi, r"10\.[0-9]{4,9}/[!-~]+", f"10.5281/{_digest(doi)}"),
            "textSha256": _formed(sha, _HEX64, _digest(sha, 64)),
            "textHashMethod": "sha256-utf8-lf",
        },
        "endpoint": {
            "url": _formed(
                url,
                r"https?://[!-.0-~]+(/[!-~]*)?",
                f"https://{_word(url, 'a-z0-9', lower=True)}.invalid/v1/chat/completions",
                2048,
            ),
            "model": _text(member(endpoint, "model"), 256),
            "apiKeyEnv": _formed(key, r"[A-Z_][A-Z0-9_]*", None, 128),
        },
        "transport": {
            **{
                name: _magnitude(member(transport, name))
                for name in (
                    "timeoutSeconds",
                    "backoffInitialSeconds",
                    "backoffMultiplier",
                    "backoffMaxSeconds",
                )
            },
            **{name: _count(member(transport, name), 10) for name in ("maxAttempts", "maxTurns")},
        },
        "request": {
            "tool": _tool(request.get("tool"), seed),
            "toolChoice": _setting("toolChoice", member(request, "toolChoice")),
            "sampling": _sampling_settings(request.get("sampling"), seed),
            "message": {
                "contextHeading": _text(member(message, "contextHeading")),
                "questionPrefix": _text(message.get("questionPrefix", ""), 256, blank=True),
            },
        },
        "conditions": {
            "varies": _enum(VariedQuantity, member(conditions, "varies")),
            "base": _condition(conditions.get("base"), "base", seed),
            "instructionRemoved": _condition(conditions.get("instructionRemoved"), "removed", seed),
        },
        "repeats": _formed(repeats, r"[1-9][0-9]{0,3}|10000", str(_whole(repeats, 1, 100))),
        "dimensionsClaimed": list(
            dict.fromkeys(
                _enum(Ap1Dimension, d)
                for d in (claimed if isinstance(claimed, list) and claimed else [claimed])[:7]
            )
        ),
        "answer": {
            "tolerance": _magnitude(member(answer, "tolerance")),
            "quantisation": {
                "places": _formed(place, r"[0-9]|[1-9][0-9]|100", str(_whole(place, 0, 10))),
                "rounding": _enum(RoundingMode, member(places, "rounding")),
            },
            "decimalSeparator": _formed(
                answer.get("decimalSeparator"), r"(?s).", _pick([".", ","], seed), 1
            ),
            "groupingSeparator": _formed(grouping, r"(?s).", None, 1),
            "currencySymbols": [_text(s) for s in _list(answer.get("currencySymbols"))[:4]],
            "declineMarkers": [_text(m) for m in _list(answer.get("declineMarkers"))[:4]],
            "structuredAnswerField": None if field is None else _text(field),
        },
        "permittedTransformations": sorted(
            {_enum(TransformationName, t) for t in _list(allowed)[:3]}
        ),
    }
    if "importedFrom" in got:
        imported = _object(got["importedFrom"])
        config["importedFrom"] = {
            "instrument": _text(member(imported, "instrument"), 256),
            **{
                name: _formed(value, _HEX64, _digest(value, 64))
                for name in ("configHash", "sealHash")
                for value in [member(imported, name)]
            },
        }
    _config(config)
    body["config"] = config
