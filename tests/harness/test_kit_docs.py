"""The kit's documentation says what the code does: examples, limits, members, paths."""

from __future__ import annotations

import json
import re
from typing import Any

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


def _benchmark_module(name: str) -> Any:
    import importlib.util
    import sys

    folder = str(REPO / "tests" / "benchmarks")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, REPO / "tests/benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_mutation_waiver_names_one_mutant_its_change_and_why() -> None:
    import importlib
    import json

    document = json.loads((REPO / "tests/benchmarks/mutation_waivers.json").read_text())
    names = [entry["mutant"] for entry in document["waivers"]]
    assert len(names) == len(set(names))
    for entry in document["waivers"]:
        assert set(entry) == {"mutant", "change", "kind", "reason"}, entry
        assert entry["kind"] in ("equivalent", "unreachable", "accepted"), entry
        assert entry["change"].startswith(("- ", "+ ")) and len(entry["reason"]) > 20, entry
        assert "*" not in entry["mutant"] and "__mutmut_" in entry["mutant"], entry
        function = entry["mutant"].rsplit("__mutmut_", 1)[0]
        module, _, mangled = function.rpartition(".")
        source = importlib.import_module(module)
        if "ǁ" in mangled:  # xǁClassǁmethod
            _, class_name, method = mangled.split("ǁ")
            assert hasattr(getattr(source, class_name), method), entry["mutant"]
        else:  # x_function
            assert hasattr(source, mangled.removeprefix("x_")), entry["mutant"]


def test_the_static_reach_of_the_operations_keeps_their_callees_and_drops_generation() -> None:
    analysis = _benchmark_module("mutation_analysis")
    reach = analysis.static_reach(["src/apconform/conformance/clauses.py"])
    assert "apconform.apx.metrics.x_power_metrics" in reach  # apx.power_metrics
    assert "apconform.conformance.clauses.x_load_clause_registry" in reach  # kit.check_vector
    assert "apconform.conformance.clauses.xǁClauseIndexǁ__init__" in reach  # a special method
    assert "apconform.conformance.clauses.x_extract_clauses" not in reach  # gen only
    assert "apconform.dev.gen.x_main_gen" not in reach
    at_import = analysis.import_time_functions()
    assert "apconform.apx.errors.x__code" in at_import  # GUARD_LIMIT = _code(...)
    assert "apconform.apx.metrics.x_power_metrics" not in at_import
    assert analysis.protocol_of("src/apconform/core/canonical.py") == "kit"
    assert analysis.protocol_of("src/apconform/ap1/scoring/rates.py") == "ap1"


def test_the_mutation_page_is_rendered_from_the_result_file() -> None:
    import json

    from apconform.dev.mutation_page import render_mutation_page

    result = json.loads((REPO / "docs/kit/mutation-result.json").read_text())
    page = render_mutation_page(result)
    assert page == (REPO / "docs/kit/mutation.md").read_text(encoding="utf-8")
    for protocol, figures in result["protocols"].items():
        assert f"| {protocol} | {figures['modules']} | " in page
        # A protocol's strict score is claimed only when every one of its mutants ran.
        unfinished = figures["pending"] > 0 or not figures["run"] or figures["notGenerated"] > 0
        assert (figures["strictScore"] is None) == unfinished
    assert set(result["protocols"]) == {"kit", "apx", "ap1"}
    for module in result["modules"]:
        assert module["status"] in (
            "complete",
            "partly run",
            "not run yet",
            "no mutants",
            "not generated yet",
        )
        assert module["run"] + module["pending"] == module["mutants"], module["module"]
        if module["pending"]:
            assert module["strictScore"] is None, module["module"]
        assert (module["status"] == "not run yet") == (
            module["mutants"] > 0 and module["pending"] == module["mutants"]
        )
        # Every exclusion is one mutant, with its change and a reason; never a whole function.
        for entry in module["exclusions"]:
            assert entry["kind"] in ("informative", "unreachable", "equivalent"), entry
            assert "__mutmut_" in entry["mutant"] and entry["change"] and entry["reason"], entry
        assert module["excluded"] == len(module["exclusions"])


def test_the_mutation_result_covers_every_module_a_vector_reaches() -> None:
    """Measured again here: a module that a vector's operation newly reaches, or no longer
    reaches, makes the committed result stale until the benchmark is run again."""
    import subprocess
    import sys

    analysis = _benchmark_module("mutation_analysis")
    result = json.loads((REPO / "docs/kit/mutation-result.json").read_text())
    # In a fresh process, as the benchmark measures it: what this one already imported (a
    # lazily loaded module) would not be called again.
    measured = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, mutation_analysis as m; print(json.dumps(m.reached_modules()))",
        ],
        cwd=REPO / "tests" / "benchmarks",
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    reached = json.loads(measured.stdout)
    assert len(reached) > 90
    assert [module["module"] for module in result["modules"]] == reached
    for module in result["modules"]:
        assert module["protocol"] == analysis.protocol_of(module["module"])
    # a module newly reached (after a merge) may not have had its mutants generated yet: then
    # the file says so, and its protocol claims no strict score until the benchmark ran it
    for protocol, figures in result["protocols"].items():
        waiting = [
            m["module"]
            for m in result["modules"]
            if m["protocol"] == protocol and m["status"] == "not generated yet"
        ]
        assert figures["notGenerated"] == len(waiting), protocol
        if waiting:
            assert figures["strictScore"] is None, (protocol, waiting)


def test_a_survivor_is_informative_only_when_nothing_but_messages_changed() -> None:
    """The benchmark's judgement of a reply the contract lets pass: wording alone is a
    message change (KIT-VEC-3 leaves it free); a code, a number or any other member is not."""
    import copy

    bench = _benchmark_module("mutation_vectors")
    vectors = {vector.id: vector for vector in bench.VECTORS}
    refused = vectors["apx-power-refuses-zero-wall"]
    reply = bench._run(refused)
    assert reply["refusal"]["code"] == "APX-METRIC-INPUT"
    reworded = copy.deepcopy(reply)
    reworded["refusal"]["message"] = "wall time must be positive"
    kind, found = bench._changes(refused, reworded, reply)
    assert kind == "message"
    assert found == [
        {
            "path": "/refusal/message",
            "before": "Finite nonnegative work and positive wall time required",
            "after": "wall time must be positive",
        }
    ]
    recoded = copy.deepcopy(reworded)
    recoded["refusal"]["code"] = "APX-METRIC-RANGE"
    assert bench._changes(refused, recoded, reply)[0] == "unpinned"

    answered = vectors["apx-eval-ineligible-exact"]
    reply = bench._run(answered)
    assert "/claim" in answered.messages.members
    reclaimed = copy.deepcopy(reply)
    reclaimed["answer"]["claim"] = "no official AP: in other words, ineligible"
    kind, found = bench._changes(answered, reclaimed, reply)
    assert kind == "message" and [d["path"] for d in found] == ["/answer/claim"]
    renamed = copy.deepcopy(reclaimed)
    renamed["answer"]["runId"] = "demo-2"
    assert bench._changes(answered, renamed, reply)[0] == "unpinned"
    assert bench._changes(answered, {"seq": 1, "refusal": {"code": "X"}}, reply)[0] == "unpinned"
