"""The operation catalogue in the docs, and `apconform vectors list|show` over the same data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from shipped_vectors import shipped_vectors

from apconform.cli import main
from apconform.conformance.catalogue import operation_entries, select_vectors
from apconform.conformance.contracts import BAD_OPERATION_INPUT, CATALOGUE_PAGE
from apconform.conformance.operations import operation_names
from apconform.models.ap1_operations import ScoredExecution

REPO = Path(__file__).resolve().parents[2]
PAGES = {p: REPO / "docs" / "operations" / f"{p}.md" for p in ("kit", "apx", "ap1")}
VECTORS = list(shipped_vectors())
BY_ID = {item.id: item for item in VECTORS}
_HEADING = re.compile(r"^## `([a-z0-9_.]+)` \{ #([a-z0-9_.]+) \}$", re.MULTILINE)
_EXAMPLE = re.compile(r"^\*\*(?:Worked|Refused) example\*\*: vector `([^`]+)`", re.MULTILINE)


def _entries_in_docs() -> dict[str, str]:
    """Operation name -> the text of its entry, from the committed catalogue pages."""
    found: dict[str, str] = {}
    for protocol, page in PAGES.items():
        text = page.read_text(encoding="utf-8")
        parts = _HEADING.split(text)
        for name, anchor, body in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
            assert name == anchor
            assert name.startswith(protocol + "."), f"{name} is listed on the {protocol} page"
            assert name not in found, f"{name} has two entries"
            found[name] = body
    return found


def test_the_catalogue_has_an_entry_for_every_operation_and_no_other() -> None:
    entries = _entries_in_docs()
    assert sorted(entries) == operation_names()
    index = (REPO / CATALOGUE_PAGE).read_text(encoding="utf-8")
    for name in operation_names():
        protocol = name.split(".", 1)[0]
        assert f"[`{name}`]({protocol}.md#{name})" in index


def test_each_entry_states_its_contract_and_a_real_example() -> None:
    entries = _entries_in_docs()
    for entry in operation_entries(VECTORS):
        text = entries[entry.name]
        assert entry.summary in text
        assert f"../reference/classes/{entry.input_class}.md" in text
        assert f"../reference/classes/{entry.answer_class}.md" in text
        assert f"`schemas/operations/{entry.name}.input.schema.json`" in text
        for code in entry.refusals:
            assert f"`{code}`" in text
        for clause in entry.clauses:
            assert f"[{clause}](../spec/" in text
        examples = _EXAMPLE.findall(text)
        assert len(examples) == (entry.example is not None) + (entry.refusal_example is not None)
        for vector_id in examples:
            assert BY_ID[vector_id].vector.operation == entry.name
            assert (REPO / "docs" / "reference" / "classes" / f"{entry.input_class}.md").is_file()


def test_the_operations_without_vectors_are_known() -> None:
    entries = {entry.name: entry for entry in operation_entries(VECTORS)}
    without = sorted(name for name, entry in entries.items() if entry.vectors == 0)
    assert without == ["apx.validate_run"]
    assert entries["apx.power_metrics"].clauses == ["APX-QTY-3", "APX-QTY-4"]
    assert entries["apx.power_metrics"].refused_codes == ["APX-METRIC-INPUT", "APX-METRIC-OVERFLOW"]
    assert entries["kit.parse"].example is not None
    assert entries["kit.parse"].example.vector.expected.kind == "exact"


def test_the_input_error_code_points_to_the_catalogue() -> None:
    assert CATALOGUE_PAGE in BAD_OPERATION_INPUT.hint
    assert (REPO / CATALOGUE_PAGE).is_file()
    assert BAD_OPERATION_INPUT.http_status == 422
    table = (REPO / "docs" / "kit" / "error-codes.md").read_text(encoding="utf-8")
    assert f"operation catalogue ({CATALOGUE_PAGE}" in table


def test_a_whole_execution_record_meets_the_scored_execution_class() -> None:
    records = [
        record["execution"]
        for item in VECTORS
        if item.vector.operation == "ap1.rescore"
        for record in item.vector.input["records"]
        if isinstance(record, dict) and record.get("kind") == "execution"
    ]
    assert len(records) > 10
    for record in records:
        ScoredExecution.model_validate(record)


def test_vectors_list_filters_by_operation_and_clause(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "list", "--operation", "apx.power_metrics"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "16 vector(s)"
    assert out[0].split()[:3] == ["apx-power-doubling-10", "apx.power_metrics", "exact"]
    assert main(["vectors", "list", "--clause", "KIT-LOAD-2", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    ids = [v["id"] for v in listed["vectors"]]
    assert listed["count"] == len(ids) == 8
    assert ids == [item.id for item in select_vectors(VECTORS, clause="KIT-LOAD-2")]
    assert "kit-load-depth-33" in ids
    assert listed["vectors"][0]["operation"] == "kit.parse"
    assert main(["vectors", "list", "--operation", "kit.parse", "--clause", "KIT-LOAD-2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "8 vector(s)"


def test_vectors_list_refuses_unknown_filters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "list", "--operation", "apx.nope"]) == 2
    assert "APC-OP-UNKNOWN" in capsys.readouterr().err
    assert main(["vectors", "list", "--clause", "KIT-NOPE-9"]) == 2
    assert "no clause KIT-NOPE-9 in the clause registry" in capsys.readouterr().err


def test_vectors_show_prints_the_vector_with_its_clauses_quoted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["vectors", "show", "apx-power-refuses-text-wall"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("apx-power-refuses-text-wall (apx.power_metrics, expects refusal)\n")
    assert "  APX-QTY-4 (MUST): The arithmetic of AP refuses work that is negative" in out
    assert '"wallHours": "8"' in out
    assert main(["vectors", "show", "kit-load-depth-33", "--format", "json"]) == 0
    detail = json.loads(capsys.readouterr().out)
    assert detail["vector"] == BY_ID["kit-load-depth-33"].document
    assert [c["id"] for c in detail["clauses"]] == ["KIT-LOAD-2"]
    assert detail["clauses"][0]["level"] == "MUST"
    assert detail["clauses"][0]["quote"].startswith("A document is refused when any value")
    assert main(["vectors", "show", "no-such-vector"]) == 2
    assert "no vector has the id 'no-such-vector'" in capsys.readouterr().err


_REFUSAL_BLOCK = re.compile(r"^Refusal \(.*?\):\n\n```json\n(.*?)\n```", re.MULTILINE | re.DOTALL)


def test_refusal_examples_are_what_the_wire_carries() -> None:
    """Each refused example is the adapter answer's `refusal` member, with the wire's `code`."""
    from jsonschema import Draft202012Validator

    schema = json.loads(
        (REPO / "schemas" / "jsonschema" / "adapter-answer.schema.json").read_text("utf-8")
    )
    validator = Draft202012Validator(schema)
    checked = 0
    for page in PAGES.values():
        text = page.read_text(encoding="utf-8")
        assert '"errorCode"' not in text, page.name
        for block in _REFUSAL_BLOCK.findall(text):
            example = json.loads(block)
            assert list(example) == ["refusal"] and "code" in example["refusal"], block
            errors = [e.message for e in validator.iter_errors({"seq": 1, **example})]
            assert errors == [], block
            checked += 1
    assert checked >= 10


def test_vectors_list_never_prints_pythons_none(capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON null reads "null" in a description; "None" is Python leaking into the text."""
    assert main(["vectors", "list"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == len(VECTORS) + 1
    assert re.findall(r"\bNone\b", out) == []
    assert "APx null (log2 of 0 has no value)" in out
