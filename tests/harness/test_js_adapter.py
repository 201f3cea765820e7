"""The JavaScript example adapter, written from the docs alone, passes every kit vector."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from apconform.cli import main

from .conftest import ADAPTERS, VECTORS

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the JavaScript example adapter cannot run"
)
ADAPTER = ADAPTERS / "kit_adapter.js"


def test_every_kit_vector_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.jsonl"
    args = ["check", "--impl", f"exec:node {ADAPTER}", "--protocol", "kit", "--validate-protocol"]
    assert main([*args, "--format", "json", "--output", str(report)]) == 0
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    header, cases, footer = records[0], records[1:-1], records[-1]
    assert header["implementation"]["language"] == "javascript"
    kit = sorted(v.id for v in VECTORS.values() if v.vector.protocol == "kit")
    assert sorted(case["vector"] for case in cases) == kit
    assert {case["outcome"] for case in cases} == {"pass"}
    assert footer["verdict"] == "pass"
    assert footer["protocols"][0]["unexecutedBranches"] == []
    assert footer["stopCheck"]["exitedCleanly"] is True


def test_a_wrong_javascript_answer_is_caught(tmp_path: Path) -> None:
    """The same adapter with member names left unsorted: the harness notices."""
    broken = tmp_path / "broken_adapter.js"
    source = ADAPTER.read_text(encoding="utf-8")
    sorting = "const keys = Object.keys(value).sort();"
    assert sorting in source
    broken.write_text(
        source.replace(sorting, "const keys = Object.keys(value);").replace(
            'path.join(__dirname, "..", "..", "spec", "clauses.json")',
            json.dumps(str(ADAPTERS.parents[1] / "spec" / "clauses.json")),
        ),
        encoding="utf-8",
    )
    report = tmp_path / "report.jsonl"
    args = ["check", "--impl", f"exec:node {broken}", "--protocol", "kit"]
    assert main([*args, "--format", "json", "--output", str(report)]) == 1
    cases = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()][1:-1]
    assert [case["vector"] for case in cases if case["outcome"] != "pass"] == [
        "kit-hash-object-canonical",
        "kit-jcs-key-order-utf16",
        "kit-jcs-non-ascii-only",
        "kit-jcs-whitespace-and-order",
        "kit-sig-member-order-irrelevant",
        "kit-sig-trust-default-test-key",
        "kit-sig-trust-named-replaces-default",
        "kit-sig-trust-named-signer",
        "kit-sig-trust-named-test-key",
        "kit-sig-trust-unnamed-signer",
        "kit-sig-valid",
    ]
