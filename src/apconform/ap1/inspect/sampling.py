"""The sealed request settings in Inspect's terms, and what the provider's request carried.

Inspect takes sampling parameters through its ``GenerateConfig`` and leaves the
wire names to each provider, so the sealed settings are applied by name where
``GenerateConfig`` has a field for them, and what was sent is read back from
the provider request Inspect recorded: a parameter the configuration sends but
the recorded request does not carry is recorded as not sent, with the reason,
instead of being assumed applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from apconform.ap1.inputs.conditions import ConditionView
from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.ap1.run.record import SentParameter
from apconform.ap1.run.wire import dump

__all__ = [
    "GenerateSettings",
    "generate_settings",
    "recorded_sampling",
]

_FLOATS = frozenset({"temperature", "top_p", "presence_penalty", "frequency_penalty"})
_INTEGERS = frozenset({"seed", "max_tokens", "max_completion_tokens", "top_k"})
_TOOL_CHOICE = {"auto": "auto", "required": "any", "none": "none"}
_FIELD = {
    "temperature": "temperature",
    "top_p": "top_p",
    "seed": "seed",
    "max_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "top_k": "top_k",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "stop": "stop_seqs",
    "reasoning_effort": "reasoning_effort",
}
# Names a provider may use on the wire for a sealed parameter, the sealed name first.
_WIRE_NAMES = {
    "max_tokens": ("max_tokens", "max_output_tokens", "maxTokens"),
    "max_completion_tokens": ("max_completion_tokens", "max_tokens", "max_output_tokens"),
    "stop": ("stop", "stop_sequences", "stopSequences"),
    "top_p": ("top_p", "topP"),
    "top_k": ("top_k", "topK"),
    "seed": ("seed", "random_seed"),
    "tool_choice": ("tool_choice", "toolChoice", "tool_config"),
}
# Where providers nest generation settings inside the request object.
_NESTED = ("extra_body", "generation_config", "generationConfig", "config", "inferenceConfig")


@dataclass(frozen=True)
class GenerateSettings:
    """What the task asks Inspect to apply for one condition, and what it cannot ask for."""

    config: dict[str, Any]
    """Keyword arguments for Inspect's ``GenerateConfig`` (sealed values, as Inspect types them)."""
    tool_choice: str | None
    """Inspect's tool choice ("auto", "any", "none"), or None when the seal omits it."""
    unapplied: dict[str, str]
    """Sealed parameters the task could not hand to Inspect, each with the reason."""


def _value(name: str, text: str) -> Any:
    if name in _FLOATS:
        return float(Decimal(text))  # GenerateConfig takes floats; the recorded request shows it
    if name in _INTEGERS:
        return int(text)
    if name == "stop":
        return [text]
    return text


def generate_settings(view: ConditionView) -> GenerateSettings:
    """The sealed settings of one condition as Inspect generation settings."""
    config: dict[str, Any] = {}
    unapplied: dict[str, str] = {}
    for name in SAMPLING_PARAMETERS:
        setting = view.sampling[name]
        if "send" not in setting:
            continue
        field = _FIELD[name]
        value = _value(name, str(setting["send"]))
        if field in config and config[field] != value:
            unapplied[name] = (
                f"Inspect has one {field} setting, already taken by another sealed parameter"
            )
            continue
        config[field] = value
    choice = view.tool_choice.get("send")
    return GenerateSettings(config, None if choice is None else _TOOL_CHOICE[choice], unapplied)


def _lookup(
    request: dict[str, object], names: tuple[str, ...], taken: set[str]
) -> tuple[str, object]:
    places: list[tuple[str, dict[str, object]]] = [("", request)]
    places += [(f"{n}.", nested) for n in _NESTED if isinstance(nested := request.get(n), dict)]
    for prefix, place in places:
        for name in names:
            key = prefix + name
            if name in place and place[name] is not None and key not in taken:
                return key, place[name]
    return "", None


def recorded_sampling(
    view: ConditionView, request: dict[str, object] | None, provider: str
) -> list[SentParameter]:
    """The ``samplingAsSent`` entries of one round, read from the request Inspect recorded.

    Each sealed setting (tool_choice, then every sampling parameter) is looked
    up in the recorded request under its wire names; one a sealed ``send``
    asked for that the request does not carry is recorded as omitted
    (``platform-unsupported``, with the provider named), and one the seal
    omits that the request carries anyway is recorded as sent. ``request`` is
    the recorded request parsed with every number a Decimal.
    """
    settings = {"tool_choice": view.tool_choice} | {
        n: view.sampling[n] for n in SAMPLING_PARAMETERS
    }
    found: dict[str, tuple[str, object]] = {}
    taken: set[str] = set()
    body = request or {}
    order = [n for n in settings if "send" in settings[n]] + [
        n for n in settings if "send" not in settings[n]
    ]
    for name in order:
        key, value = _lookup(body, _WIRE_NAMES.get(name, (name,)), taken)
        if key:
            taken.add(key)
            found[name] = (key, value)
    entries: list[SentParameter] = []
    for name, setting in settings.items():
        if name in found:
            key, value = found[name]
            entry: SentParameter = {"name": name, "sent": dump(value)}
            if key != name:
                entry["detail"] = f"carried as {key} in the request Inspect recorded"
            if "send" not in setting:
                entry["detail"] = (
                    f"the seal omits it ({setting['omit']}), but the request Inspect recorded "
                    f"carries it as {key}"
                )
        elif "send" in setting:
            entry = {
                "name": name,
                "omitted": "platform-unsupported",
                "detail": f"sealed as {setting['send']}, but the request Inspect recorded for "
                f"provider {provider} does not carry it",
            }
        else:
            entry = {"name": name, "omitted": setting["omit"]}
            if "detail" in setting:
                entry["detail"] = setting["detail"]
        entries.append(entry)
    return entries
