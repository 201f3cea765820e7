"""A published reference run for ap1/import-reference: the reference instrument's own
formats, made consistent from the generated documents."""

from __future__ import annotations

import collections
import json
import re
from typing import Any

from apconform.ap1.importers.reference.documents import (
    CONDITION_NAMES,
    convert_config,
    convert_fixture,
    convert_questions,
)
from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.ap1.seal.reference import reference_config_hash, reference_seal_hashes
from apconform.core.canonical import sha256_text
from apconform.models.ap1 import Ap1Dimension, OmissionReason, RoundingMode, TransformationName

from .ap1_inputs import _derivation_checks, _derivations, _underivable
from .shared import Body, _digest, _magnitude, _named, _object, _pick, _prose, _whole, _word


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
