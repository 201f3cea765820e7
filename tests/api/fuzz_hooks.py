"""Schemathesis hooks that make the documents of one generated body agree with each other.

JSON Schema states what each document of a request may hold, not how the
documents of one body relate: the AP-1 text's hash named by the configuration,
the entities a question names in the fixture, one derivation per question, the
item an operation is asked about. Random bodies almost never satisfy such a
relation, so the kernel refuses every one of them and the fuzzer never reaches
the operation's acceptance path (schemathesis then warns that the operation
"mostly rejected generated data"). These hooks repair the relations of a
*positive* case from what was generated (the hash is recomputed from the
generated text, a question is pointed at one of the generated entities), using
the kit's own functions, and leave every generated value they need not touch.

Only positive cases are touched, and only a deterministic share of them (three
in four, decided by a hash of the generated body), so the refusal branches are
still fuzzed with schema-valid bodies. A negative case is never repaired: it
must stay invalid for the negative data rejection check.

Loaded by ``.ci/fuzz-api`` (``SCHEMATHESIS_HOOKS=tests.api.fuzz_hooks``, from the
repository root) and imported by ``tests/api/test_api_fuzz.py``; see
docs/api/fuzzing.md.
"""

from __future__ import annotations

import collections
import copy
import hashlib
import json
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from functools import cache, partial
from typing import Any

import schemathesis
from schemathesis import Case
from schemathesis.generation.modes import GenerationMode

from apconform.ap1.importers.reference.documents import (
    CONDITION_NAMES,
    convert_config,
    convert_fixture,
    convert_questions,
)
from apconform.ap1.inputs.config import SAMPLING_PARAMETERS, load_config
from apconform.ap1.inputs.derivations.checks import derivation_violations
from apconform.ap1.inputs.items import load_fixture, load_questions, minimum_n_violations
from apconform.ap1.inputs.plan import Cell
from apconform.ap1.masking import looks_like_credential
from apconform.ap1.seal.build import composite_hash
from apconform.ap1.seal.reference import reference_config_hash, reference_seal_hashes
from apconform.ap1.transcript.chain import GENESIS, record_hash
from apconform.apx.checks import RESERVED, is_digest, is_text
from apconform.apx.hashing import freeze, rebind
from apconform.apx.manifest import SCHEMA_VERSION
from apconform.apx.run import ASSISTANCE_MODES, EVIDENCE_KINDS, SAFETY, WALL_SEGMENTS
from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.operations import input_documents
from apconform.conformance.schemas import json_schema_validator
from apconform.core.canonical import canonical_text, sha256_hex, sha256_text
from apconform.core.errors import ApconformError
from apconform.core.jsonload import loads
from apconform.models.ap1 import (
    Ap1DerivationSet,
    Ap1Dimension,
    OmissionReason,
    ReasoningEffort,
    RoundingMode,
    ToolChoiceMode,
    TransformationName,
    VariedQuantity,
)

__all__ = [
    "CHECKERS",
    "NATIVE_REASONS",
    "REPAIRS",
    "coherent",
    "documents_meet_schemas",
    "map_case",
    "repaired_share",
    "run_inputs",
]

Body = dict[str, Any]

SHARE = 4
"""A positive body is repaired unless its hash is 0 modulo SHARE (three in four are)."""


def repaired_share(body: Any) -> bool:
    """Whether this generated body is one of the three in four that are made coherent."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).digest()[0] % SHARE != 0


def _pick(options: list[str], seed: str) -> str:
    """A deterministic choice among ``options``, steered by a generated value."""
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()
    return options[digest[0] % len(options)]


def _named(options: list[str], name: Any) -> str:
    """``name`` when it is one of ``options``, else the option it picks."""
    return name if name in options else _pick(options, str(name))


def _decimal(text: Any) -> Decimal | None:
    try:
        return Decimal(text) if isinstance(text, str) else None
    except InvalidOperation:
        return None


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


# --- the seal and the transcript: digests of the other documents, the hash chain ----------


def _seal(body: Body) -> str | None:
    """The seal names the body's AP-1 text and documents by their digests; its sealHash."""
    seal = body.get("seal")
    if not isinstance(seal, dict):
        return None
    citation, named = seal.get("ap1"), seal.get("inputs")
    if isinstance(citation, dict) and isinstance(body.get("ap1Text"), str):
        citation["textSha256"] = sha256_text(body["ap1Text"])
    if isinstance(named, dict):
        for name in ("config", "fixture", "questions", "derivations"):
            if isinstance(named.get(name), dict) and name in body:
                named[name]["sha256"] = sha256_hex(body[name])
    seal["sealHash"] = composite_hash(seal)
    return str(seal["sealHash"])


def _rechain(records: list[Any], seal_hash: str | None) -> None:
    """Number the records that are objects in order and link each to the one before."""
    previous = GENESIS
    for seq, record in enumerate(r for r in records if isinstance(r, dict)):
        record["seq"] = str(seq)
        record["prevSha256"] = previous
        if seal_hash is not None:
            record["sealHash"] = seal_hash
        record["sha256"] = record_hash(record)
        previous = record["sha256"]


def _records(body: Body) -> None:
    """A transcript given as a list of records: the seal's digests, then the chain."""
    run_inputs(body)
    seal_hash = _seal(body)
    if isinstance(body.get("records"), list):
        _rechain(body["records"], seal_hash)


def _transcript(body: Body) -> None:
    """A transcript given as JSON-lines text: the lines that are objects re-chained."""
    run_inputs(body)
    seal_hash = _seal(body)
    text = body.get("transcript")
    if not isinstance(text, str):
        return
    lines = text.split("\n")
    parsed: list[Any] = []
    for line in lines:
        try:
            parsed.append(loads(line, source="a transcript line"))
        except ApconformError:  # not JSON, or beyond the loader's bounds: kept as generated
            parsed.append(line)
    _rechain(parsed, seal_hash)
    body["transcript"] = "\n".join(
        canonical_text(p) if isinstance(p, dict) else line
        for p, line in zip(parsed, lines, strict=True)
    )


# --- per operation -----------------------------------------------------------------------


def _validate_config(body: Body) -> None:
    _config(body)


def _item_cell(body: Body) -> None:
    """The run inputs; the cell's item one of the questions (render-request, tool-loop)."""
    items = run_inputs(body)
    ids = [item["id"] for item in items if isinstance(item.get("id"), str)]
    if ids:
        body["itemId"] = _named(ids, body.get("itemId"))


def _execution(body: Body) -> None:
    """The record is of an item of the questions, its cell key that of its cell."""
    items = run_inputs(body)
    record = body.get("record")
    ids = [item["id"] for item in items if isinstance(item.get("id"), str)]
    if not isinstance(record, dict) or not ids:
        return
    record["itemId"] = _named(ids, record.get("itemId"))
    repeat = record.get("repeat")
    if isinstance(record.get("condition"), str) and isinstance(repeat, str) and repeat.isdigit():
        cell = Cell(record["condition"], record["itemId"], int(repeat))
        record["cellKey"] = cell.key
        verdict = body.get("verdict")
        if isinstance(verdict, dict) and "cellKey" in verdict:
            verdict["cellKey"] = cell.key


def _kit_parse(body: Body) -> None:
    """The generated text as a JSON text: a string literal holding it (kit.parse then answers)."""
    if isinstance(body.get("text"), str):
        body["text"] = json.dumps(body["text"])


def _hours(value: Any) -> float:
    """A finite number of hours at least 0, from a generated value of any type.

    A number keeps its magnitude; any other value gives the length of its JSON text (at
    least 1), so the number still comes from what was generated.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return abs(value)
    return len(json.dumps(value, ensure_ascii=False, default=str))


def _power_metrics(body: Body) -> None:
    """Hours APx can divide: W a finite number at least 0, T one above 0 (APX-QTY-4).

    The members stay free in the schema (a vector sends a string, refused with the
    operation's own code), so random bodies are almost never numbers; W / T overflowing a
    double is left as generated, the operation's APX-METRIC-OVERFLOW to answer.
    """
    if "creditedHumanHours" in body:
        body["creditedHumanHours"] = _hours(body["creditedHumanHours"])
    if "wallHours" in body:
        wall = _hours(body["wallHours"])
        body["wallHours"] = wall if wall > 0 else len(json.dumps(body["wallHours"]))


# --- a published reference run: the reference instrument's own formats ------------------


def _digest(value: Any, width: int = 12) -> str:
    """``width`` hex digits naming a generated value (for a text derived from a non-text)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:width]


def _prose(value: Any) -> str:
    """A generated text that is not blank, kept; any other value as a word naming it."""
    if isinstance(value, str) and value.strip() and len(value) <= 128:
        return value
    return f"v{_digest(value)}"


def _word(value: Any, allowed: str, lower: bool = False) -> str:
    """The generated text's characters that ``allowed`` keeps, led by a letter (at most 64)."""
    text = value.lower() if lower and isinstance(value, str) else value
    kept = re.sub(f"[^{allowed}]", "", text)[:63] if isinstance(text, str) else ""
    return kept if kept[:1].isalpha() else f"v{kept or _digest(value)}"[:64]


def _whole(value: Any, least: int, most: int) -> int:
    """A whole number from ``least`` to ``most``: a generated one in range kept, else one
    steered by the length of the value's JSON text."""
    if isinstance(value, int) and not isinstance(value, bool) and least <= value <= most:
        return value
    return least + len(json.dumps(value, default=str)) % (most - least + 1)


def _magnitude(value: Any) -> str:
    """A generated non-negative decimal text kept, else its JSON text's length as one."""
    if isinstance(value, str) and re.fullmatch(r"(0|[1-9][0-9]*)(\.[0-9]+)?", value):
        return value
    return str(len(json.dumps(value, default=str)))


def _list(value: Any) -> list[Any]:
    """A generated list as it is; any other value as no items."""
    return value if isinstance(value, list) else []


def _object(value: Any) -> Body:
    """A generated object as it is; any other value as an object holding it."""
    return value if isinstance(value, dict) else {"value": value}


def _sampling(generated: Any) -> Body:
    """Known parameters only; a whole-number text sent as generated, any other value omitted."""
    out: Body = {}
    for name, value in _object(generated).items():
        if name not in SAMPLING_PARAMETERS:
            continue
        if isinstance(value, str) and value.isdigit() and value.isascii():
            out[name] = str(int(value))
        else:
            reason = _pick([r.value for r in OmissionReason], str(value))
            out[name] = {"value": "omitted", "reason": reason, "detail": _prose(value)}
    return out


def _reference_config(generated: Any, text_hash: str) -> Body:
    """A resolved configuration the importer converts, from the generated one's values."""
    got = _object(generated)
    dois = got.get("ap1_version_doi")
    url = got.get("endpoint_url")
    tools = got.get("tools")
    tool = tools[0] if isinstance(tools, list) and tools else tools
    base = _prose(got.get("system_prompt_base"))
    removed = _prose(got.get("system_prompt_instruction_removed"))
    quantisation = _object(got.get("quantisation"))
    separator = _pick([".", ","], str(got.get("decimal_separator")))
    return {
        "answer_tolerance": _magnitude(got.get("answer_tolerance")),
        "ap1_text_hash": text_hash,
        "ap1_version": _prose(got.get("ap1_version")),
        "ap1_version_doi": dois
        if isinstance(dois, str) and re.fullmatch(r"10\.[0-9]{4,9}/[!-~]+", dois)
        else f"10.5281/{_digest(dois)}",
        "currency_symbols": [_prose(c) for c in got.get("currency_symbols") or []][:4]
        if isinstance(got.get("currency_symbols"), list)
        else [],
        "decimal_separator": separator,
        "decline_markers": [],
        "dimensions_claimed": [
            _named([d.value for d in Ap1Dimension], c) for c in got.get("dimensions_claimed") or []
        ][:7]
        if isinstance(got.get("dimensions_claimed"), list)
        else [],
        "endpoint_url": url
        if isinstance(url, str) and re.fullmatch(r"https?://[!-.0-~]+(/[!-~]*)?", url)
        else f"https://{_word(url, 'a-z0-9', lower=True)}.invalid/v1/chat/completions",
        "grouping_separator": None,
        "model": _prose(got.get("model")),
        "permitted_transformations": sorted(
            {
                _named([t.value for t in TransformationName], t)
                for t in got.get("permitted_transformations") or []
            }
        )
        if isinstance(got.get("permitted_transformations"), list)
        else [],
        "quantisation": {
            "places": _whole(quantisation.get("places"), 0, 10),
            "rounding": _named([r.value for r in RoundingMode], quantisation.get("rounding")),
        },
        "repeat_count": _whole(got.get("repeat_count"), 1, 100),
        "sampling": _sampling(got.get("sampling")),
        "structured_answer_field": None,
        "system_prompt_base": base,
        "system_prompt_instruction_removed": removed if removed != base else "",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": _word(_object(tool).get("name"), "A-Za-z0-9_-"),
                    "description": _prose(_object(tool).get("description")),
                    "parameters": {
                        "type": "object",
                        "properties": {
                            _word(_object(tool).get("argument"), "a-z0-9_", lower=True): {
                                "type": "string",
                                "description": _prose(_object(tool).get("type")),
                            }
                        },
                    },
                },
            }
        ],
    }


def _reference_fixture(generated: Any) -> list[str]:
    """The fixture's accounts with unique ids and text values; the account ids."""
    fixture = _object(generated)
    accounts = fixture.get("accounts")
    accounts = [a for a in accounts if isinstance(a, dict)] if isinstance(accounts, list) else []
    if not accounts:
        accounts = [{"id": fixture.get("domain"), "name": fixture.get("description")}]
    for name in ("fixture_version", "domain", "description", "amount_convention"):
        fixture[name] = _prose(fixture.get(name))
    ids: list[str] = []
    for position, account in enumerate(accounts):
        given_id, given_name = account.get("id"), account.get("name")
        values = {k: v for k, v in account.items() if k not in ("id", "name")}
        account.clear()
        identifier = _word(given_id, "A-Za-z0-9_-")
        if identifier in ids:
            identifier = f"{identifier[:58]}_{position}"
        ids.append(identifier)
        account["id"] = identifier
        account["name"] = _prose(given_name)
        fields = {_word(k, "a-z0-9_", lower=True): v for k, v in values.items()}
        for field, value in (fields or {"balance": given_name}).items():
            field = f"{field}_value" if field in ("id", "name") else field
            account[field] = _magnitude(value) if not isinstance(value, str) else _prose(value)
            if re.fullmatch(r"[+-][0-9]+(\.[0-9]+)?", account[field]):
                account[field] = account[field][1:]  # a magnitude, as the fixtures hold
    fixture["accounts"] = accounts
    return ids


def _reference_questions(generated: Any, accounts: list[str], tool: str) -> list[Body]:
    """Unique item ids, accounts of the fixture, the configured tool, reference types; items."""
    questions = _object(generated)
    items = questions.get("items")
    items = [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    if not items:
        items = [{"id": questions.get("questions_version"), "text": questions.get("text")}]
    questions["questions_version"] = _prose(questions.get("questions_version"))
    seen: set[str] = set()
    for position, item in enumerate(items):
        identifier = _word(item.get("id"), "A-Za-z0-9_-")
        if identifier in seen:
            identifier = f"{identifier[:58]}_{position}"
        seen.add(identifier)
        named = item.get("source_accounts")
        named = named if isinstance(named, list) and named else [item.get("text")]
        expected = item.get("expected_value")
        keep = isinstance(expected, str) and re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?", expected)
        derivable = item.get("derivable")
        item.clear()
        item.update(
            {
                "id": identifier,
                "category": _word(named[0], "a-z0-9_", lower=True),
                "text": _prose(named[-1]),
                "required_operation": tool,
                "source_accounts": list(dict.fromkeys(_named(accounts, a) for a in named)),
                "steps": _whole(item.get("steps"), 0, 99),
                "derivable": derivable if isinstance(derivable, bool) else True,
            }
        )
        if keep:
            item["expected_value"] = expected
    questions["items"] = items
    return items


def _void_records(records: Any, items: list[Body]) -> int:
    """Each generated record that is an object as an execution the reference voided; the most
    records of one condition and item (the repeats the configuration must allow)."""
    if not isinstance(records, list):
        return 0
    ids = [str(item["id"]) for item in items]
    kept = [r for r in records if isinstance(r, dict)]
    for record in kept:
        stamp = record.get("timestamp")
        reason = record.get("void_reason")
        condition = _named(list(CONDITION_NAMES), record.get("condition"))
        item = _named(ids, record.get("item_id"))
        record.clear()
        record.update(
            {
                "condition": condition,
                "item_id": item,
                "error_state": "VOID",
                "void_reason": _prose(reason),
                "evidence_class": None,
                "request_sent": {},
                "response_received": None,
                "seal_hash": None,
                "timestamp": _prose(stamp),
                "tool_calls": [],
            }
        )
    records[:] = kept
    cells = collections.Counter((r["condition"], r["item_id"]) for r in kept)
    return max(cells.values(), default=0)


def _import_reference(body: Body) -> None:
    """A published reference run made consistent from the generated documents.

    The documents become objects of the reference's formats (every text value the
    importer reads taken from a generated one where it has the form, else derived
    from it), the questions point at the fixture's accounts and the configured tool,
    one derivation per question (the kit's seal-time checks decide which stay
    derivable), the records executions the reference voided, and the configuration's
    and seal record's hashes recomputed with the importer's own functions.
    """
    text = body.get("ap1Text")
    text_hash = sha256_text(text if isinstance(text, str) else "")
    config = _reference_config(body.get("config"), text_hash)
    body["config"] = config
    fixture = body["fixture"] = _object(body.get("fixture"))
    accounts = _reference_fixture(fixture)
    questions = body["questions"] = _object(body.get("questions"))
    tool = config["tools"][0]["function"]["name"]
    items = _reference_questions(questions, accounts, tool)
    kit_questions = convert_questions(questions)
    converted: Body = {
        "config": convert_config(
            config, config_hash="0" * 64, seal_hash="0" * 64, ap1_text_sha256="0" * 64
        ).document,
        "fixture": convert_fixture(fixture),
        "questions": kit_questions,
        "derivations": body.get("derivations"),
    }
    kit_items: list[Body] = kit_questions["items"]
    out = _derivations(converted["derivations"], kit_items)
    if out:
        _derivation_checks(converted, kit_items, out)
    for derivation, item in zip(out, kit_items, strict=False):  # none when not a set
        if not derivation.get("derivable"):
            _underivable(derivation, item)
    for item, kit_item in zip(items, kit_items, strict=True):
        item["derivable"] = kit_item["derivable"]
    config["repeat_count"] = max(config["repeat_count"], _void_records(body.get("records"), items))
    printed = _object(body.get("sealRecord"))
    for key, value in printed.items():
        printed[key] = value if isinstance(value, str) else json.dumps(value)
    printed["config_hash"] = reference_config_hash(config)
    printed["seal_hash"] = reference_seal_hashes(config, printed)["sealHash"]
    body["sealRecord"] = printed
    for record in body["records"] if isinstance(body.get("records"), list) else []:
        record["seal_hash"] = printed["seal_hash"]


# --- a configuration to load: every member of its schema, from the generated values ------

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


# --- an APx campaign for a contract adapter: the manifest and run the kernel checks -----


APX_SLOTS = 16
"""The most slots a repaired manifest keeps (APx allows 1,000)."""
APX_ATTEMPTS = 32
"""The most generated baseline attempts a repaired manifest keeps (APx allows 10,000)."""
APX_EVIDENCE = 4
"""The most evidence entries a repaired outcome keeps (APx allows 100).

The run needs an outcome per slot and takes the generated outcomes in turn, so one generated
outcome's evidence is repeated for every slot: without these bounds a generated body of 16 kB
(100 slots, 100 attempts, one outcome with 100 evidence entries) was repaired into 1.8 MB, one
of 79 kB (1,000 slots and attempts) into 18 MB. With them a repaired run holds at most 64
evidence entries (that body is repaired into 18 kB)."""


def _apx_text(value: Any, limit: int = 256) -> str:
    """A generated text APx takes as an identifier kept; any other value as a word naming it."""
    if is_text(value, limit) and value not in RESERVED:
        return str(value)
    return f"v{_digest(value)}"


def _apx_hours(value: Any, most: float, least: float = 0) -> float:
    """A number from ``least`` to ``most``: a generated one in range kept, else the number
    ``_hours`` derives from it (its magnitude or its JSON text's length) taken modulo ``most``
    (``most`` itself when that falls below ``least``)."""
    hours = _hours(value)
    if least <= hours <= most:
        return hours
    fitted = hours % most
    return fitted if fitted >= least else most


def _apx_unique(values: list[Any], limit: int = 256) -> list[str]:
    """Each value as an APx text, a repeated one suffixed with its position."""
    out: list[str] = []
    for position, value in enumerate(values):
        text = _apx_text(value, limit)
        out.append(text if text not in out else f"{text[:240]}_{position}")
    return out


def _listed(value: Any) -> list[Any]:
    """A generated non-empty list as it is; any other value as a list holding it."""
    return value if isinstance(value, list) and value else [value]


def _apx_manifest(generated: Any) -> Body:
    """A frozen APx manifest (schemaVersion apx/0.1, synthetic baseline) from generated values.

    Slots keep the first ``APX_SLOTS`` generated slots' ids and classes; each class gets those
    of the first ``APX_ATTEMPTS`` generated attempts pointed at it (the first accepted when
    none is), the predeclared ids are the attempts' own, and the kit's ``freeze`` computes
    taskSetHash and the four component hashes.
    """
    got = _object(generated)
    suite, baseline = _object(got.get("suite")), _object(got.get("baseline"))
    evaluator, environment = _object(got.get("evaluator")), _object(got.get("environment"))
    slots = [_object(s) for s in _listed(suite.get("slots"))][:APX_SLOTS]
    slot_ids = _apx_unique([s.get("id") for s in slots])
    classes = list(dict.fromkeys(_apx_text(s.get("classId")) for s in slots))
    selection = _apx_text(suite.get("selectionId"))
    holdout = _apx_text(suite.get("holdoutId"))
    cohort = _object(baseline.get("cohort"))
    attempts = [_object(a) for a in _listed(baseline.get("attempts"))][:APX_ATTEMPTS]
    attempt_ids = _apx_unique([a.get("id") for a in attempts])
    made: list[Body] = [
        {
            "id": identifier,
            "classId": _named(classes, attempt.get("classId")),
            "hours": _apx_hours(attempt.get("hours"), 1_000_000, 0.000000001),
            "accepted": attempt.get("accepted") is not False,
        }
        for identifier, attempt in zip(attempt_ids, attempts, strict=True)
    ]
    for class_id in classes:  # every class calibrated: its first attempt accepted, or a new one
        own = [a for a in made if a["classId"] == class_id]
        if own and not any(a["accepted"] for a in own):
            own[0]["accepted"] = True
        elif not own:
            made.append({**made[0], "id": f"{made[0]['id'][:200]}_{class_id}"[:256]})
            made[-1].update(classId=class_id, accepted=True)
    manifest = {
        "schemaVersion": SCHEMA_VERSION,
        "suite": {
            "id": _apx_text(suite.get("id")),
            "version": _apx_text(suite.get("version")),
            "selectionId": selection,
            "holdoutId": holdout if holdout != selection else f"{holdout[:200]}_holdout",
            "partition": _named(["selection", "holdout"], suite.get("partition")),
            "slots": [
                {"id": i, "classId": _apx_text(s.get("classId"))}
                for i, s in zip(slot_ids, slots, strict=True)
            ],
        },
        "baseline": {
            "id": _apx_text(baseline.get("id")),
            "version": _apx_text(baseline.get("version")),
            "kind": "synthetic",
            "cohort": {
                "id": _apx_text(cohort.get("id")),
                "tools": [_apx_text(t) for t in _listed(cohort.get("tools"))][:100],
                "skills": [_apx_text(t) for t in _listed(cohort.get("skills"))][:100],
            },
            "predeclaredAttemptIds": [a["id"] for a in made],
            "attempts": made,
        },
        "evaluator": {
            "id": _apx_text(evaluator.get("id")),
            "version": _apx_text(evaluator.get("version")),
            "qualityThreshold": _apx_hours(evaluator.get("qualityThreshold"), 1),
        },
        "environment": {
            "id": _apx_text(environment.get("id")),
            "version": _apx_text(environment.get("version")),
            "description": _apx_text(environment.get("description"), 4096),
        },
    }
    return freeze(manifest)


def _apx_run(generated: Any, manifest: Body) -> Body:
    """A synthetic run of the manifest from generated values: its hashes and partition, the
    wall hours the sum of the generated breakdown, an outcome per slot (generated ones in turn)."""
    got = _object(generated)
    mode = _named(list(ASSISTANCE_MODES), got.get("assistanceMode"))
    breakdown = _object(got.get("wallBreakdown"))
    wall = {name: _apx_hours(breakdown.get(name), 1_000) for name in WALL_SEGMENTS}
    if mode == "autonomous":
        wall["reviewHours"] = 0
    if sum(wall.values()) <= 0.000000001:
        wall["executionHours"] = float(len(json.dumps(breakdown, default=str)))
    total: float = 0
    for name in WALL_SEGMENTS:
        total += wall[name]
    human = _apx_hours(got.get("humanReviewHours"), 1_000_000)
    outcomes = [_object(o) for o in _listed(got.get("outcomes"))]
    slots = manifest["suite"]["slots"]
    run = {
        "id": _apx_text(got.get("id")),
        "independenceId": _apx_text(got.get("independenceId")),
        "kind": "synthetic",
        "assistanceMode": mode,
        "partition": manifest["suite"]["partition"],
        "wallHours": total,
        "wallBreakdown": wall,
        "agentRuntimeHours": _apx_hours(got.get("agentRuntimeHours"), 1_000_000),
        "humanReviewHours": 0 if mode == "autonomous" else max(human, wall["reviewHours"]),
        "costUSD": _apx_hours(got.get("costUSD"), 1_000_000),
        "policyViolations": [
            _apx_text(v, 2048) for v in got.get("policyViolations") or [] if v is not None
        ][:100]
        if isinstance(got.get("policyViolations"), list)
        else [],
        "outcomes": [
            _apx_outcome(outcomes[position % len(outcomes)], slot["id"])
            for position, slot in enumerate(slots)
        ],
    }
    return dict(rebind(manifest, run))


def _apx_outcome(got: Body, slot_id: str) -> Body:
    """One slot's outcome: generated flags kept where they have the form, its evidence (the
    first ``APX_EVIDENCE`` generated entries) with unique ids and digests of the generated
    entries."""
    provenance = got.get("provenance")
    entries = (
        [_object(e) for e in provenance][:APX_EVIDENCE] if isinstance(provenance, list) else []
    )
    ids = _apx_unique([e.get("id") for e in entries])
    evidence = []
    for identifier, entry in zip(ids, entries, strict=True):
        kind = _named(list(EVIDENCE_KINDS), entry.get("kind"))
        made = {
            "id": identifier,
            "hash": entry["hash"] if is_digest(entry.get("hash")) else sha256_hex(entry),
            "kind": kind,
            "verification": _named(["verified", "unreviewed"], entry.get("verification")),
        }
        if kind.endswith("-adjudication"):
            made["reviewerId"] = _apx_text(entry.get("reviewerId"))
        evidence.append(made)
    return {
        "slotId": slot_id,
        "accepted": got.get("accepted") is True,
        "quality": _apx_hours(got.get("quality"), 1),
        "safety": _named(list(SAFETY), got.get("safety")),
        "deliverableId": None
        if got.get("deliverableId") is None
        else _apx_text(got["deliverableId"]),
        "artifactHash": got["artifactHash"] if is_digest(got.get("artifactHash")) else None,
        "provenance": evidence,
    }


def _apx_adapter(body: Body) -> None:
    """A campaign the contract adapter scores: the manifest an APx one, the run one of it.

    The route takes any manifest and run (a vector sends ones that break an APx rule), so
    random bodies are refused with APX-VAL-OBJECT or APX-MAN-VERSION; both are rebuilt from
    the generated values (``_apx_manifest``, ``_apx_run``).
    """
    manifest = _apx_manifest(body.get("manifest"))
    body["manifest"] = manifest
    body["run"] = _apx_run(body.get("run"), manifest)


# --- a vector document: the relations the vector loader checks beyond its schema ----------

_NEEDS = {"exact": "document", "refusal": "errorCode", "partial": "matchers"}
"""The member each kind of expectation needs (as the vector loader reads it)."""


@cache
def _live_clauses(protocol: str) -> list[str]:
    """The registry's clauses of ``protocol`` that are not retired, sorted."""
    clauses = load_clause_registry().registry.clauses
    return sorted(c.id for c in clauses if c.status != "retired" and c.protocol == protocol)


def _expectation(expected: Body, vector: Body) -> None:
    """The member the kind needs present, the other kinds' members and refusal-only ones gone."""
    kind = expected.get("kind")
    if _NEEDS.get(kind) not in expected:
        present = sorted(k for k, need in _NEEDS.items() if need in expected)
        if present:
            kind = _pick(present, str(vector.get("id")))
        else:  # nothing to steer by: the exact answer is the generated input itself
            kind = "exact"
            expected["document"] = copy.deepcopy(vector.get("input"))
        expected["kind"] = kind
    for other in set(_NEEDS.values()) - {_NEEDS[kind]}:
        expected.pop(other, None)
    if kind != "refusal":
        expected.pop("message", None)
        expected.pop("path", None)
    for matcher in expected.get("matchers") or []:
        if not isinstance(matcher, dict):
            continue
        held = ["equals"] if "equals" in matcher else []
        held += [k for k in ("absent", "present") if matcher.get(k) is True]
        if not held:
            matcher["present"] = True
        for member in held[1:]:  # exactly one: the first the generated matcher holds
            matcher.pop(member)


def _check_vector(body: Body) -> None:
    """kit/check-vector: the file name the generated id; the operation of the protocol; known
    clauses; an expectation the loader accepts."""
    vector = body.get("vector")
    if not isinstance(vector, dict):
        return
    if isinstance(vector.get("id"), str):
        body["fileName"] = f"{vector['id']}.json"
    protocol = vector.get("protocol")
    operation = vector.get("operation")
    if isinstance(protocol, str) and isinstance(operation, str) and "." in operation:
        vector["operation"] = f"{protocol}.{operation.split('.', 1)[1]}"
    clauses = vector.get("clauses")
    if isinstance(protocol, str) and isinstance(clauses, list):
        live = _live_clauses(protocol)
        vector["clauses"] = [
            c if c in live else _pick(live, f"{vector.get('id')}/{n}/{c}")
            for n, c in enumerate(clauses)
        ]
    if isinstance(vector.get("expected"), dict):
        _expectation(vector["expected"], vector)


REPAIRS: dict[str, Callable[[Body], object]] = {
    "/v1/ap1/validate-config": _validate_config,
    "/v1/ap1/derivation-findings": run_inputs,
    "/v1/ap1/seal-record": run_inputs,
    "/v1/ap1/render-request": _item_cell,
    "/v1/ap1/tool-loop": _item_cell,
    "/v1/ap1/validate-derivations": run_inputs,
    "/v1/ap1/check-inputs": run_inputs,
    "/v1/ap1/adjudication-sheets": _records,
    "/v1/ap1/rescore": _records,
    "/v1/ap1/score-execution": _execution,
    "/v1/ap1/score-transcript": _transcript,
    "/v1/ap1/compare-reference-execution": _execution,
    "/v1/kit/parse": _kit_parse,
    "/v1/apx/power-metrics": _power_metrics,
    "/v1/kit/check-vector": _check_vector,
    "/v1/ap1/import-reference": _import_reference,
    "/v1/ap1/load-config": _load_config,
    "/v1/apx/adapter": _apx_adapter,
}
"""The repair each operation's positive bodies get, by route."""


CHECKERS = {"/v1/ap1/check-inputs": "ap1.check_inputs", "/v1/kit/check-vector": "kit.check_vector"}
"""The document checkers among the repaired routes, by route: their members are a document
or any other value (``checked_by: operation``)."""


def documents_meet_schemas(path: str, body: Body) -> bool:
    """Whether every document a checker's body carries meets its document schema.

    Only such bodies are repaired: the relations between documents are what the hooks
    make agree, and a member that is not a document is the operation's to refuse.
    """
    operation = CHECKERS.get(path)
    if operation is None:
        return True
    return all(
        json_schema_validator(document).is_valid(body.get(pointer.lstrip("/")))
        for pointer, document in input_documents(operation).items()
    )


def coherent(path: str, body: Any) -> Any:
    """``body`` with its documents made to agree (a repaired copy), or ``body`` itself."""
    repair = REPAIRS.get(path)
    if repair is None or not isinstance(body, dict) or not repaired_share(body):
        return body
    if not documents_meet_schemas(path, body):
        return body
    out = copy.deepcopy(body)
    repair(out)
    return out


@schemathesis.hook
def map_case(context: schemathesis.HookContext, case: Case[Any]) -> Case[Any]:
    """Repair a share of the positive cases of the operations in ``REPAIRS``."""
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE:
        return case
    if case.operation.path in REPAIRS and case.body is not None:
        case.body = coherent(case.operation.path, case.body)
    return case
