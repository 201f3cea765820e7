"""The suite quotes the specification exactly: one test per clause, its docstring the quote.

Runs without --impl. When the specification text changes, this test fails
until `apconform-dev gen` has regenerated conformance/clauses/.
"""

from __future__ import annotations

from pathlib import Path

from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.suite import clause_test_name, suite_quotes

SUITE = Path(__file__).with_name("clauses")


def test_every_quote_matches_the_clause_registry() -> None:
    registry = load_clause_registry()
    quotes = suite_quotes(SUITE)
    stale = []
    for clause_id, (name, doc) in sorted(quotes.items()):
        clause = registry.get(clause_id)
        if clause is None or clause.status != "active":
            stale.append(f"{name}: {clause_id} is not an active clause of spec/clauses.json")
        elif doc != clause.quote:
            stale.append(f"{name}: its docstring differs from the quote of {clause_id}")
        elif name != clause_test_name(clause_id):
            wanted = clause_test_name(clause_id)
            stale.append(f"{name}: a test of {clause_id} must be named {wanted}")
    assert stale == []


def test_every_active_clause_has_a_test() -> None:
    registry = load_clause_registry()
    active = {c.id for c in registry.registry.clauses if c.status == "active"}
    assert sorted(active - set(suite_quotes(SUITE))) == []
