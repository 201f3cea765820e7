"""Vector operations' inputs and answers are typed, or free on purpose and saying why.

The walk starts at each vector operation's request body and 2xx answers in the committed
OpenAPI document (kept equal to the app's by ``apconform-dev gen --check``), and at the
operation's published input and answer schemas; a second walk starts at every route of both
committed OpenAPI documents (``openapi.json`` and ``openapi-ledger.json``: request bodies, every
response's content and headers, parameters) and at every component schema. Both follow
``$ref``, ``anyOf``/``oneOf``/``allOf``, ``properties``, ``items``, ``prefixItems`` and
``additionalProperties``. A schema is free when it carries no type or constraint keyword
(``{}``, or a ``$ref`` to such a definition), or when it is ``anyOf: [X, {not: X}]`` (a member
the operation checks itself). The member a free schema belongs to must say why in its
description, always with the same words.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apconform.api import operation_path
from apconform.conformance.contracts import operation_contract
from apconform.conformance.operations import operation_names

REPO = Path(__file__).resolve().parents[2]
OPENAPI = json.loads((REPO / "schemas/openapi.json").read_text(encoding="utf-8"))
DOCUMENTS = {
    name: json.loads((REPO / "schemas" / name).read_text(encoding="utf-8"))
    for name in ("openapi.json", "openapi-ledger.json")
}

FREE_FORM = "Free-form on purpose"
"""The words a free member's description uses to say why it is free."""

_CONSTRAINTS = frozenset(
    {
        "type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
        "properties", "patternProperties", "additionalProperties", "propertyNames", "required",
        "items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems",
        "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
        "minLength", "maxLength", "pattern", "format",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    }
)  # fmt: skip

Resolve = Callable[[str], dict[str, Any]]


def _is_free(schema: dict[str, Any], resolve: Resolve) -> bool:
    keys = set(schema) & _CONSTRAINTS
    if not keys:
        return True
    if keys == {"$ref"}:
        return not set(resolve(schema["$ref"])) & _CONSTRAINTS
    branches = schema.get("anyOf", [])
    negated = [b["not"] for b in branches if isinstance(b, dict) and set(b) == {"not"}]
    return any(b in branches for b in negated)


def unexplained_free_members(root: dict[str, Any], resolve: Resolve, start: str) -> list[str]:
    """'where: description' for each free member whose description does not say why."""
    found: dict[str, str] = {}
    visited: set[str] = set()

    def walk(schema: Any, where: str, description: str) -> None:
        if not isinstance(schema, dict):
            return
        said = schema.get("description") or description
        if _is_free(schema, resolve):
            if FREE_FORM not in said:
                found.setdefault(where, said)
            if "anyOf" not in schema:
                return
        ref = schema.get("$ref")
        if ref is not None and ref not in visited:
            visited.add(ref)
            walk(resolve(ref), ref.rsplit("/", 1)[-1], "")
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            for branch in schema.get(key, []):
                walk(branch, where, said)
        for name, member in schema.get("properties", {}).items():
            walk(member, f"{where}.{name}", "")
        walk(schema.get("items"), f"{where}[]", said)
        walk(schema.get("additionalProperties"), f"{where}.*", said)

    walk(root, start, "")
    return [f"{where}: {text!r}" for where, text in sorted(found.items())]


def _openapi_ref(ref: str) -> dict[str, Any]:
    found: dict[str, Any] = OPENAPI["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return found


def _openapi_problems(name: str) -> list[str]:
    operation = OPENAPI["paths"][operation_path(name)]["post"]
    roots = [("request", operation["requestBody"])] + [
        (status, answer)
        for status, answer in operation["responses"].items()
        if status.startswith("2")
    ]
    problems = []
    for label, part in roots:
        for media in part.get("content", {}).values():
            start = f"POST {operation_path(name)} {label}"
            problems += unexplained_free_members(media["schema"], _openapi_ref, start)
    return problems


def test_the_walk_covers_every_registered_operation() -> None:
    names = operation_names()
    assert {"kit.check_vector", "ap1.score_execution", "apx.adapter"} <= set(names)
    for name in names:
        operation = OPENAPI["paths"][operation_path(name)]["post"]
        assert "requestBody" in operation, name
        assert any(status.startswith("2") for status in operation["responses"]), name


@pytest.mark.parametrize("name", operation_names())
def test_free_members_of_a_vector_operation_say_why(name: str) -> None:
    assert _openapi_problems(name) == []
    contract = operation_contract(name)
    assert contract is not None
    for side in ("input", "answer"):
        schema = contract.schema(side)

        def resolve(ref: str, schema: dict[str, Any] = schema) -> dict[str, Any]:
            found: dict[str, Any] = schema["$defs"][ref.rsplit("/", 1)[-1]]
            return found

        assert unexplained_free_members(schema, resolve, f"{name}.{side}") == []


def _check(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> list[str]:
    table = defs or {}
    return unexplained_free_members(schema, lambda ref: table[ref.rsplit("/", 1)[-1]], "$")


def test_the_walk_finds_free_members_everywhere_it_looks() -> None:
    any_def = {"Any": {"description": "Any JSON value."}}
    assert _check({"type": "object", "properties": {"a": {"description": "A."}}}) == ["$.a: 'A.'"]
    nullable = {"anyOf": [{}, {"type": "null"}], "description": "B."}
    assert _check({"type": "array", "items": nullable}) == ["$[]: 'B.'"]
    assert _check({"type": "object", "additionalProperties": {"description": "C."}}) == [
        "$.*: 'C.'"
    ]
    referenced = {"$ref": "#/$defs/Any", "description": "D."}
    assert _check({"type": "object", "properties": {"d": referenced}}, any_def) == ["$.d: 'D.'"]
    vector = {"type": "object", "properties": {"x": {"description": "X."}}}
    either = {"anyOf": [{"$ref": "#/$defs/V"}, {"not": {"$ref": "#/$defs/V"}}], "description": "E."}
    assert _check({"type": "object", "properties": {"e": either}}, {"V": vector}) == [
        "$.e: 'E.'",
        "V.x: 'X.'",
    ]
    said = {"description": f"F. {FREE_FORM}: anything goes."}
    typed = {"type": "string", "description": "G."}
    conditional = {"type": "object", "allOf": [{"if": {"properties": {"s": {}}}, "then": {}}]}
    assert _check({"type": "object", "properties": {"f": said, "g": typed, "h": conditional}}) == []


def _route_roots(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(where, schema) for each schema a route of ``document`` takes or answers."""
    roots = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            route = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                roots.append((f"{route} parameter {parameter['name']}", parameter["schema"]))
            parts = [("request", operation.get("requestBody", {}))]
            parts += list(operation["responses"].items())
            for label, part in parts:
                for media, content in part.get("content", {}).items():
                    roots.append((f"{route} {label} {media}", content["schema"]))
                for header, value in part.get("headers", {}).items():
                    roots.append((f"{route} {label} header {header}", value["schema"]))
    return roots


def _document_problems(name: str) -> list[str]:
    document = DOCUMENTS[name]
    components = document["components"]["schemas"]

    def resolve(ref: str) -> dict[str, Any]:
        found: dict[str, Any] = components[ref.rsplit("/", 1)[-1]]
        return found

    roots = _route_roots(document) + [(key, value) for key, value in components.items()]
    problems: set[str] = set()
    for where, schema in roots:
        problems.update(unexplained_free_members(schema, resolve, where))
    return sorted(problems)


def test_the_route_walk_reaches_every_route_and_its_parts() -> None:
    routes = {where.split(" ")[1] for where, _ in _route_roots(DOCUMENTS["openapi.json"])}
    assert set(OPENAPI["paths"]) == routes
    for tail in (
        "score-transcript",
        "validate-config",
        "validate-derivations",
        "validate-fixture",
        "validate-questions",
        "verify-seal",
    ):
        assert f"/v1/ap1/{tail}" in routes
    ledger = [where for where, _ in _route_roots(DOCUMENTS["openapi-ledger.json"])]
    assert "POST /v1/ledger/entries request application/json" in ledger
    assert "GET /v1/ledger/entries/{ref} 200 application/json" in ledger
    assert any(" parameter " in where for where in ledger)
    assert any(" header X-Request-Id" in where for where in ledger)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_free_members_of_every_route_and_component_say_why(name: str) -> None:
    assert _document_problems(name) == []
