"""The AP-1 run inputs: the configuration's own relations and the documents of one body
(config, fixture, questions, derivations, the AP-1 text) made to agree; the repairs of
validate-config and of the operations asked about one item's cell."""

from __future__ import annotations

import copy
from typing import Any

from apconform.ap1.inputs.config import load_config
from apconform.ap1.inputs.derivations.checks import derivation_violations
from apconform.ap1.inputs.items import load_fixture, load_questions, minimum_n_violations
from apconform.core.canonical import sha256_text
from apconform.core.errors import ApconformError
from apconform.models.ap1 import Ap1DerivationSet, OmissionReason

from .shared import Body, _decimal, _named, _pick

# --- the configuration: relations between its own members ---------------------------------


def _transport(config: Body) -> None:
    """Timeout above 0, multiplier at least 1, the longest wait at least the first."""
    transport = config.get("transport")
    if not isinstance(transport, dict):
        return
    timeout = _decimal(transport.get("timeoutSeconds"))
    if timeout is not None and timeout <= 0:
        transport["timeoutSeconds"] = str(timeout + 1)
    multiplier = _decimal(transport.get("backoffMultiplier"))
    if multiplier is not None and multiplier < 1:
        transport["backoffMultiplier"] = str(multiplier + 1)
    first = _decimal(transport.get("backoffInitialSeconds"))
    most = _decimal(transport.get("backoffMaxSeconds"))
    if first is not None and most is not None and most < first:
        transport["backoffInitialSeconds"], transport["backoffMaxSeconds"] = (
            transport["backoffMaxSeconds"],
            transport["backoffInitialSeconds"],
        )


IMPORTED_ONLY = OmissionReason.not_supported.value
NATIVE_REASONS = [r.value for r in OmissionReason if r is not OmissionReason.not_supported]
"""The omission reasons a configuration of this instrument declares; ``not-supported`` is kept
only by one imported from another instrument (``importedFrom``)."""


def _settings(config: Body) -> list[Any]:
    """Every request setting of the configuration: the shared ones and each override's."""
    holders = [config.get("request")]
    pair = config.get("conditions")
    if isinstance(pair, dict):
        holders += [pair.get("base"), pair.get("instructionRemoved")]
    found: list[Any] = []
    for holder in holders:
        if not isinstance(holder, dict):
            continue
        found.append(holder.get("toolChoice"))
        sampling = holder.get("sampling")
        if isinstance(sampling, dict):
            found.extend(sampling.values())
    return [setting for setting in found if isinstance(setting, dict)]


def _native_reasons(config: Body) -> None:
    """Without importedFrom, a not-supported omission declares one of the native reasons.

    The native reason is picked by the setting's generated detail (a not-supported omission
    has one, which every native reason accepts).
    """
    if "importedFrom" in config:
        return
    for setting in _settings(config):
        if setting.get("omit") == IMPORTED_ONLY:
            setting["omit"] = _pick(NATIVE_REASONS, str(setting.get("detail")))


def _conditions(config: Body) -> None:
    """The instruction-removed condition differs from the base in the declared quantity only."""
    pair = config.get("conditions")
    if not isinstance(pair, dict):
        return
    base, removed, varies = pair.get("base"), pair.get("instructionRemoved"), pair.get("varies")
    if not isinstance(base, dict) or not isinstance(removed, dict):
        return
    for name in ("systemPrompt", "userPreamble", "tool", "toolChoice", "sampling"):
        if name == varies:
            continue
        if name in base:
            removed[name] = copy.deepcopy(base[name])
        else:
            removed.pop(name, None)
    if varies in base and base.get(varies) == removed.get(varies):
        # The instruction is what the base adds: the removed condition has none of it.
        removed[varies] = "" if base[varies] else "instruction"


def _config(config: Any) -> None:
    if isinstance(config, dict):
        _transport(config)
        _native_reasons(config)
        _conditions(config)


# --- the run inputs: the documents of one body --------------------------------------------


def _unique_ids(items: list[Any], key: str, limit: int) -> None:
    """Make ``items[*][key]`` unique, keeping the first of each and suffixing the others."""
    seen: set[str] = set()
    for position, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get(key), str):
            continue
        value = item[key]
        if value in seen:
            suffix = f"_{position}"
            value = value[: limit - len(suffix)] + suffix
        seen.add(value)
        item[key] = value


def _field_form(field: Any) -> None:
    """Exactly one of amount or label: the one the field's name picks, or its name as label."""
    if not isinstance(field, dict):
        return
    present = [name for name in ("amount", "label") if name in field]
    if len(present) == 2:
        field.pop(_pick(present, str(field.get("name"))))
    elif not present and isinstance(field.get("name"), str):
        field["label"] = field["name"]


def _fixture(fixture: Any) -> list[str]:
    """Unique entity ids and field names; the fixture's entity ids."""
    if not isinstance(fixture, dict) or not isinstance(fixture.get("entities"), list):
        return []
    entities = fixture["entities"]
    _unique_ids(entities, "id", 64)
    for entity in entities:
        if isinstance(entity, dict) and isinstance(entity.get("fields"), list):
            _unique_ids(entity["fields"], "name", 64)
            for field in entity["fields"]:
                _field_form(field)
    return [e["id"] for e in entities if isinstance(e, dict) and isinstance(e.get("id"), str)]


def _questions(questions: Any, entities: list[str], tool: str | None) -> list[Body]:
    """Unique item ids, source entities of the fixture, the configured tool; the items."""
    if not isinstance(questions, dict) or not isinstance(questions.get("items"), list):
        return []
    items = [item for item in questions["items"] if isinstance(item, dict)]
    _unique_ids(items, "id", 64)
    for item in items:
        named = item.get("sourceEntities")
        if isinstance(named, list) and entities:
            pointed = [_named(entities, name) for name in named]
            item["sourceEntities"] = list(dict.fromkeys(pointed))
        if tool is not None:
            item["requiredOperation"] = tool
    return items


def _underivable(derivation: Body, item: Body) -> None:
    """The derivation and its question marked underivable, the derivation's steps dropped."""
    item["derivable"] = False
    derivation["derivable"] = False
    for name in ("sourceFields", "constants", "intermediates"):
        derivation[name] = []
    derivation.pop("final", None)
    if not derivation.get("reasonUnderivable"):
        derivation["reasonUnderivable"] = item.get("text") or "not derivable"


def _derivations(derivations: Any, items: list[Body]) -> list[Body]:
    """One derivation per question, named after it, with the question's derivable flag."""
    if not isinstance(derivations, dict) or not isinstance(derivations.get("derivations"), list):
        return []
    generated = [d for d in derivations["derivations"] if isinstance(d, dict)]
    out: list[Body] = []
    for position, item in enumerate(items):
        if generated:
            derivation = copy.deepcopy(generated[position % len(generated)])
        else:
            derivation = {"itemId": "", "derivable": False}
            _underivable(derivation, item)
        derivation["itemId"] = item.get("id")
        derivation["derivable"] = item.get("derivable")
        out.append(derivation)
    derivations["derivations"] = out
    return out


def _derivation_checks(body: Body, items: list[Body], out: list[Body]) -> None:
    """Every item whose derivation the seal-time checks refuse becomes underivable."""
    try:
        config = load_config(body.get("config"))
        fixture = load_fixture(body.get("fixture"))
        questions = load_questions(body.get("questions"))
        derivations = Ap1DerivationSet.model_validate(body.get("derivations"))
        problems = derivation_violations(derivations, questions, fixture, config)
    except (ApconformError, ValueError):
        for derivation, item in zip(out, items, strict=True):
            if derivation.get("derivable"):
                _underivable(derivation, item)
        return
    refused = {p.path.split("]")[0] for p in problems if p.path.startswith("$.derivations[")}
    for position, (derivation, item) in enumerate(zip(out, items, strict=True)):
        if f"$.derivations[{position}" in refused:
            _underivable(derivation, item)


def _claims(body: Body) -> None:
    """Claim only the dimensions the question set has enough items for."""
    try:
        config = load_config(body.get("config"))
        questions = load_questions(body.get("questions"))
    except ApconformError:
        return
    short = {v.message.split(" ", 1)[0] for v in minimum_n_violations(questions, config)}
    claimed = body["config"].get("dimensionsClaimed")
    kept = [d for d in claimed if d not in short] if isinstance(claimed, list) else []
    if short and kept:  # at least one claim stays (the schema's minimum)
        body["config"]["dimensionsClaimed"] = kept


def _tool_name(config: Any) -> str | None:
    try:
        return load_config(config).tool_name
    except ApconformError:
        return None


def run_inputs(body: Body) -> list[Body]:
    """Make config, fixture, questions, derivations and the AP-1 text agree; the items."""
    _config(body.get("config"))
    entities = _fixture(body.get("fixture"))
    items = _questions(body.get("questions"), entities, _tool_name(body.get("config")))
    out = _derivations(body.get("derivations"), items)
    if out:
        _derivation_checks(body, items, out)
    if isinstance(body.get("config"), dict):
        _claims(body)
        citation = body["config"].get("ap1")
        if isinstance(body.get("ap1Text"), str) and isinstance(citation, dict):
            citation["textSha256"] = sha256_text(body["ap1Text"])
    return items


def _validate_config(body: Body) -> None:
    _config(body)


def _item_cell(body: Body) -> None:
    """The run inputs; the cell's item one of the questions (render-request, tool-loop)."""
    items = run_inputs(body)
    ids = [item["id"] for item in items if isinstance(item.get("id"), str)]
    if ids:
        body["itemId"] = _named(ids, body.get("itemId"))
