"""The vector loader: every committed vector loads; each kind of fault is refused and named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.vectors import load_vector, load_vectors
from apconform.core.errors import DocumentRefused

GOOD: dict[str, Any] = {
    "schemaVersion": "apconform-vector/1",
    "id": "kit-sample",
    "protocol": "kit",
    "protocolVersion": "1",
    "clauses": ["KIT-JCS-1"],
    "operation": "kit.canonicalize",
    "description": "A sample.",
    "input": {"value": [1.0]},
    "expected": {"kind": "exact", "document": {"canonical": "[1]", "sha256": "0" * 64}},
}


def _write(root: Path, rel: str, document: Any) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _refusal(root: Path, rel: str, document: Any) -> list[tuple[str, str]]:
    path = _write(root, rel, document)
    with pytest.raises(DocumentRefused) as info:
        load_vector(path, load_clause_registry(), vectors_root=root)
    return [(v.code, v.path) for v in info.value.violations]


def test_committed_vectors_load(repo: Path) -> None:
    vectors = load_vectors(repo / "vectors")
    ids = [v.id for v in vectors]
    assert ids == sorted(ids)
    assert "kit-jcs-number-exponent" in ids
    assert "kit-load-depth-33" in ids
    assert all(v.path.stem == v.id for v in vectors)


def test_sample_vector_round_trips(tmp_path: Path) -> None:
    path = _write(tmp_path, "kit/canonical/kit-sample.json", GOOD)
    loaded = load_vector(path, load_clause_registry(), vectors_root=tmp_path)
    assert loaded.id == "kit-sample"
    assert loaded.vector.expected.kind == "exact"
    assert loaded.vector.expected.document == {"canonical": "[1]", "sha256": "0" * 64}
    assert loaded.document == GOOD


def test_unknown_clause_is_refused_with_its_index(tmp_path: Path) -> None:
    doc = {**GOOD, "clauses": ["KIT-JCS-1", "KIT-NOPE-9"]}
    assert _refusal(tmp_path, "kit/canonical/kit-sample.json", doc) == [
        ("APC-VEC-CLAUSE-UNKNOWN", "$.clauses[1]")
    ]


def test_message_names_the_clause(tmp_path: Path) -> None:
    path = _write(tmp_path, "kit/a/kit-sample.json", {**GOOD, "clauses": ["KIT-NOPE-9"]})
    with pytest.raises(DocumentRefused) as info:
        load_vector(path, load_clause_registry(), vectors_root=tmp_path)
    assert "clause KIT-NOPE-9 is not in the clause registry" in str(info.value)
    assert info.value.exit_status == 1


def test_id_must_equal_file_name(tmp_path: Path) -> None:
    assert _refusal(tmp_path, "kit/a/other-name.json", GOOD) == [("APC-VEC-ID", "$.id")]


def test_protocol_folder_is_checked(tmp_path: Path) -> None:
    assert _refusal(tmp_path, "apx/a/kit-sample.json", GOOD) == [("APC-VEC-LOCATION", "$.protocol")]


def test_operation_must_belong_to_protocol(tmp_path: Path) -> None:
    doc = {**GOOD, "operation": "apx.evaluate"}
    assert _refusal(tmp_path, "kit/a/kit-sample.json", doc) == [
        ("APC-VEC-OPERATION", "$.operation")
    ]


@pytest.mark.parametrize(
    "expected,faults",
    [
        ({"kind": "exact"}, [("APC-VEC-EXPECTED", "$.expected.document")]),
        (
            {"kind": "refusal", "document": {}},
            [
                ("APC-VEC-EXPECTED", "$.expected.errorCode"),
                ("APC-VEC-EXPECTED", "$.expected.document"),
            ],
        ),
        (
            {"kind": "exact", "document": 1, "message": "x"},
            [("APC-VEC-EXPECTED", "$.expected.message")],
        ),
        (
            {"kind": "partial", "matchers": [{"path": "/a"}]},
            [("APC-VEC-EXPECTED", "$.expected.matchers[0]")],
        ),
        (
            {"kind": "partial", "matchers": [{"path": "/a", "equals": 1, "absent": True}]},
            [("APC-VEC-EXPECTED", "$.expected.matchers[0]")],
        ),
    ],
)
def test_expectation_must_fit_its_kind(
    tmp_path: Path, expected: dict[str, Any], faults: list[tuple[str, str]]
) -> None:
    doc = {**GOOD, "expected": expected}
    assert _refusal(tmp_path, "kit/a/kit-sample.json", doc) == faults


def test_partial_equals_null_is_a_real_expectation(tmp_path: Path) -> None:
    doc = {**GOOD, "expected": {"kind": "partial", "matchers": [{"path": "/APx", "equals": None}]}}
    path = _write(tmp_path, "kit/a/kit-sample.json", doc)
    loaded = load_vector(path, load_clause_registry(), vectors_root=tmp_path)
    matcher = (loaded.vector.expected.matchers or [])[0]
    assert "equals" in matcher.model_fields_set
    assert matcher.equals is None


def test_schema_violations_are_all_listed(tmp_path: Path) -> None:
    doc = {**GOOD, "id": "Bad Id", "clauses": [], "extra": True}
    del doc["input"]
    assert sorted(_refusal(tmp_path, "kit/a/kit-sample.json", doc)) == [
        ("APC-SCHEMA-VIOLATION", "$.clauses"),
        ("APC-SCHEMA-VIOLATION", "$.extra"),
        ("APC-SCHEMA-VIOLATION", "$.id"),
        ("APC-SCHEMA-VIOLATION", "$.input"),
    ]


def test_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    doc = {**GOOD, "schemaVersion": "apconform-vector/9"}
    assert _refusal(tmp_path, "kit/a/kit-sample.json", doc) == [
        ("APC-SCHEMA-VIOLATION", "$.schemaVersion")
    ]


def test_duplicate_ids_across_files_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "kit/a/kit-sample.json", GOOD)
    _write(tmp_path, "kit/b/kit-sample.json", GOOD)
    with pytest.raises(DocumentRefused) as info:
        load_vectors(tmp_path)
    assert info.value.violations[0].code == "APC-VEC-ID"
    assert "is used by" in info.value.violations[0].message


def test_oversized_vector_file_is_refused_by_the_loader(tmp_path: Path) -> None:
    from apconform.core.errors import ApconformError

    doc = {**GOOD, "input": {"value": "x" * 1_100_000}}
    path = _write(tmp_path, "kit/a/kit-sample.json", doc)
    with pytest.raises(ApconformError) as info:
        load_vector(path, load_clause_registry(), vectors_root=tmp_path)
    assert info.value.code == "APC-JSON-SIZE"
