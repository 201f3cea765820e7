"""The kit routes: kit/parse's JSON text, and a vector document for kit/check-vector (the
relations the vector loader checks beyond its schema)."""

from __future__ import annotations

import copy
import json
from functools import cache

from apconform.conformance.clauses import load_clause_registry

from .shared import Body, _pick


def _kit_parse(body: Body) -> None:
    """The generated text as a JSON text: a string literal holding it (kit.parse then answers)."""
    if isinstance(body.get("text"), str):
        body["text"] = json.dumps(body["text"])


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
