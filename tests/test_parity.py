"""The JSON Schema and the Pydantic models must give every instance the same verdict.

The corpus is every hand-written instance under tests/corpus (each labelled
valid or invalid by its folder), every committed vector and clause registry,
and systematic mutations of the valid instances (each member replaced by a
value of another JSON type, removed, or joined by an unknown member). A
disagreement names the instance and both verdicts.
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from apconform.conformance.compare import resolve_pointer
from apconform.conformance.operations import input_documents
from apconform.core.schemas import json_schema_validator
from apconform.models import DOCUMENTS

CORPUS = Path(__file__).parent / "corpus"
_ABSENT = resolve_pointer({}, "/absent")
REPO = Path(__file__).resolve().parents[1]

_REPLACEMENTS: list[Any] = [True, "0.5", 0, 0.5, 2.0, None, [], {}, "", "x\n"]


def _model(document: str) -> Any:
    module, cls = DOCUMENTS[document]
    return getattr(importlib.import_module(f"apconform.models.{module}"), cls)


def _pydantic_accepts(document: str, instance: Any) -> bool:
    try:
        _model(document).model_validate(instance)
    except ValidationError:
        return False
    return True


def _schema_accepts(document: str, instance: Any) -> bool:
    return bool(json_schema_validator(document).is_valid(instance))


def _labelled() -> Iterator[tuple[str, str, Any, bool | None]]:
    for document in sorted(DOCUMENTS):
        for label in ("valid", "invalid"):
            for path in sorted((CORPUS / document / label).glob("*.json")):
                instance = json.loads(path.read_text(encoding="utf-8"))
                yield document, f"{document}/{label}/{path.name}", instance, label == "valid"
    for path in sorted((REPO / "vectors").rglob("*.json")):
        if path.name == "MANIFEST.json" or len(path.relative_to(REPO / "vectors").parts) < 3:
            continue
        instance = json.loads(path.read_text(encoding="utf-8"))
        rel = path.relative_to(REPO).as_posix()
        yield "vector", rel, instance, True
        for pointer, document in sorted(input_documents(instance["operation"]).items()):
            found = resolve_pointer(instance["input"], pointer)
            if found is not _ABSENT:
                yield document, f"{rel} input{pointer}", found, None
    registry = json.loads((REPO / "spec/clauses.json").read_text(encoding="utf-8"))
    yield "clause-registry", "spec/clauses.json", registry, True


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*prefix, key)
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:3]):
            yield (*prefix, index)
            yield from _paths(child, (*prefix, index))


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    clone = copy.deepcopy(root)
    target = clone
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return clone


def _remove(root: Any, path: tuple[Any, ...]) -> Any:
    clone = copy.deepcopy(root)
    target = clone
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return clone


def _mutations(instance: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(instance, dict):
        yield "+unknown", {**instance, "unknownMember": 1}
    for path in _paths(instance):
        where = "/".join(str(p) for p in path)
        for replacement in _REPLACEMENTS:
            yield f"{where}={json.dumps(replacement)}", _set(instance, path, replacement)
        original = _get(instance, path)
        if isinstance(original, str):
            yield f"{where}+newline", _set(instance, path, original + "\n")
        if isinstance(path[-1], str):
            yield f"{where} removed", _remove(instance, path)


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        root = root[part]
    return root


def _corpus() -> list[tuple[str, str, Any, bool | None]]:
    items = list(_labelled())
    mutated: list[tuple[str, str, Any, bool | None]] = []
    # Up to three valid seeds per document type, so every type is mutated.
    per_document: dict[str, int] = {}
    seeds = []
    for item in items:
        if item[3] and "/parse/" not in item[1] and per_document.get(item[0], 0) < 3:
            per_document[item[0]] = per_document.get(item[0], 0) + 1
            seeds.append(item)
    for document, name, instance, _ in seeds:
        for label, variant in _mutations(instance):
            mutated.append((document, f"{name} [{label}]", variant, None))
    return items + mutated


@pytest.fixture(scope="module")
def verdicts() -> list[tuple[str, bool, bool, bool | None]]:
    """(instance name, JSON Schema verdict, Pydantic verdict, label) for the whole corpus."""
    return [
        (name, _schema_accepts(doc, inst), _pydantic_accepts(doc, inst), label)
        for doc, name, inst, label in _corpus()  # built here, not at collection (20,000 items)
    ]


def test_corpus_is_large_enough(verdicts: list[tuple[str, bool, bool, bool | None]]) -> None:
    accepted = sum(1 for _, by_schema, _, _ in verdicts if by_schema)
    assert accepted >= 50
    assert len(verdicts) - accepted >= 50


def test_json_schema_and_models_agree(verdicts: list[tuple[str, bool, bool, bool | None]]) -> None:
    disagreements = []
    for name, by_schema, by_model, label in verdicts:
        if by_schema != by_model:
            disagreements.append(
                f"{name}: JSON Schema {'accepts' if by_schema else 'rejects'}, "
                f"Pydantic {'accepts' if by_model else 'rejects'}"
            )
        elif label is not None and by_schema != label:
            disagreements.append(
                f"{name}: labelled {'valid' if label else 'invalid'} "
                f"but both {'accept' if by_schema else 'reject'} it"
            )
    assert disagreements == []


@pytest.mark.parametrize(
    "pattern,text,expected",
    [
        ("^[a-z]+$", "abc", True),
        ("^[a-z]+$", "abc\n", False),
        ("\\S", " x ", True),
        ("^a\\$", "a$", True),
    ],
)
def test_patterns_keep_ecma_end_anchor(pattern: str, text: str, expected: bool) -> None:
    from apconform.core.schemas import ecma_search

    assert ecma_search(pattern, text) is expected
