"""The committed APx vectors are what vector_cases.py writes, and they cover every clause."""

from __future__ import annotations

import json
from pathlib import Path

from vector_cases import add_all
from vectorlib import ROOT, VECTORS, render

from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.vectors import load_vectors


def _built() -> dict[str, dict[str, object]]:
    if not VECTORS:
        add_all()
    return VECTORS


def test_committed_vectors_match_the_builder() -> None:
    built = _built()
    committed = {p.relative_to(ROOT).as_posix(): p for p in ROOT.rglob("*.json")}
    assert sorted(committed) == sorted(built)
    stale = [
        rel
        for rel, path in committed.items()
        if path.read_text(encoding="utf-8") != render(built[rel])
    ]
    assert stale == [], "run: cd tests/apx && python vector_cases.py"


def test_every_testable_must_clause_has_positive_and_negative_vectors(repo: Path) -> None:
    registry = load_clause_registry()
    vectors = load_vectors(repo / "vectors", protocols=["apx"])
    positive: set[str] = set()
    negative: set[str] = set()
    for loaded in vectors:
        vector = loaded.vector
        is_negative = vector.expected.kind == "refusal" or "negative" in (vector.tags or [])
        (negative if is_negative else positive).update(vector.clauses)
    missing = []
    for clause in registry.registry.clauses:
        if clause.protocol != "apx" or clause.level != "MUST" or clause.untestable:
            continue
        for side, found in (("positive", positive), ("negative", negative)):
            if clause.id not in found:
                missing.append(f"{clause.id}: no {side} vector")
    assert missing == []


def test_vectors_cite_sections_of_the_specification() -> None:
    registry = load_clause_registry()
    apx = [c for c in registry.registry.clauses if c.protocol == "apx"]
    assert len(apx) >= 50
    assert all(c.cites and c.cites.startswith("APx 0.1 §") for c in apx)


def test_vectors_are_small_enough_for_the_loader() -> None:
    for path in ROOT.rglob("*.json"):
        assert path.stat().st_size < 200_000, path
        json.loads(path.read_text(encoding="utf-8"))
