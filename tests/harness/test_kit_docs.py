"""The kit's documentation says what the code does: examples, limits, members, paths."""

from __future__ import annotations

import json
import re

from apconform.conformance.protocol import MESSAGE_LIMITS
from apconform.core.jsonpath import format_path
from apconform.core.schemas import json_schema_validator

from .conftest import REPO

INDEX = (REPO / "docs/kit/index.md").read_text(encoding="utf-8")
PROTOCOL = (REPO / "docs/kit/adapter-protocol.md").read_text(encoding="utf-8")


def _json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)


def test_the_example_vector_is_a_committed_vector_verbatim() -> None:
    vectors = [block for block in _json_blocks(INDEX) if "apconform-vector/1" in block]
    assert len(vectors) == 1
    document = json.loads(vectors[0])
    committed = REPO / "vectors/kit/canonical" / f"{document['id']}.json"
    assert vectors[0] == committed.read_text(encoding="utf-8")
    assert document["expected"]["document"].keys() == {"canonical", "sha256"}


def test_the_started_example_is_valid_and_the_member_table_matches_the_schema() -> None:
    started = json.loads(next(b for b in _json_blocks(PROTOCOL) if '"implementation"' in b))
    assert list(json_schema_validator("adapter-started").iter_errors(started)) == []
    schema = json.loads((REPO / "schemas/jsonschema/adapter-started.schema.json").read_text())
    implementation = schema["$defs"]["Implementation"]
    rows = re.findall(r"^\| (`[^|]+`) \| (yes|no) \|", PROTOCOL, flags=re.MULTILINE)
    documented = {
        name.strip("`"): required == "yes" for names, required in rows for name in names.split(", ")
    }
    assert documented == {
        name: name in implementation["required"] for name in implementation["properties"]
    }


def test_the_limits_of_a_reply_are_the_harness_limits() -> None:
    assert f"| bytes in the line | {MESSAGE_LIMITS.max_bytes:,} " in PROTOCOL
    assert f"| nesting depth below the root | {MESSAGE_LIMITS.max_depth} |" in PROTOCOL
    assert f"| {MESSAGE_LIMITS.max_nodes:,} |" in PROTOCOL
    assert f"| characters in one number literal | {MESSAGE_LIMITS.max_number_chars} |" in PROTOCOL


def test_the_documented_paths_are_the_paths_errors_carry() -> None:
    for segments, shown in (
        (["suite", "slots", 3, "id"], "$.suite.slots[3].id"),
        (["a", "odd key", 0], "$.a['odd key'][0]"),
        ([""], "$['']"),
        (["it's"], "$['it\\'s']"),
    ):
        assert format_path(segments) == shown
        assert f"`{shown}`" in INDEX


def test_every_equivalent_mutant_row_names_a_mutated_function() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_mutation", REPO / "tests/benchmarks/bench_mutation.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    listed = bench.equivalents()
    assert len(listed) > 100
    mutated = {
        path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        for paths in bench.MODULES.values()
        for path in paths
    }
    for name in listed:
        function = name.rsplit("__mutmut_", 1)[0]
        module, _, mangled = function.rpartition(".")
        assert module in mutated, name
        source = importlib.import_module(module)
        if "ǁ" in mangled:  # xǁClassǁmethod
            _, class_name, method = mangled.split("ǁ")
            assert hasattr(getattr(source, class_name), method), name
        else:  # x_function
            assert hasattr(source, mangled.removeprefix("x_")), name
