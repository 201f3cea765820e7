"""Every generated JSON Schema is draft 2020-12 with its own $id, and all load into one registry.

A third party who loads the whole folder into one validator (ajv, or
python-jsonschema with a ``referencing`` registry) must be able to: no two
files may claim the same ``$id``, and every ``$ref`` must resolve offline.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from apconform.dev.json_schema import DIALECT, schema_id

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "schemas" / "jsonschema"
CORPUS = REPO / "tests" / "corpus"
SCHEMAS = {
    path.name.removesuffix(".schema.json"): json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(FOLDER.glob("*.schema.json"))
}


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def _registry() -> Registry:
    # No retrieve function: a reference the registry does not hold fails instead of fetching.
    return Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
        for schema in SCHEMAS.values()
    )


def test_every_file_is_draft_2020_12_with_its_own_id() -> None:
    assert len(SCHEMAS) >= 25
    ids = [schema["$id"] for schema in SCHEMAS.values()]
    assert len(set(ids)) == len(ids)
    for name, schema in SCHEMAS.items():
        assert schema["$schema"] == DIALECT == "https://json-schema.org/draft/2020-12/schema"
        assert (
            schema["$id"]
            == schema_id(name)
            == f"https://w3id.org/apconform/schemas/{name}.schema.json"
        )
        Draft202012Validator.check_schema(schema)


def test_all_schemas_load_into_one_registry_and_every_ref_resolves_offline() -> None:
    registry = _registry()
    resolved = 0
    for schema in SCHEMAS.values():
        resolver = registry.resolver(base_uri=schema["$id"])
        for ref in set(_refs(schema)):
            assert ref.startswith("#/$defs/"), ref
            assert resolver.lookup(ref).contents is not None
            resolved += 1
    assert resolved > 500


def test_documents_validate_through_the_registry_by_id() -> None:
    registry = _registry()
    checked = 0
    for folder in sorted(CORPUS.iterdir()):
        if folder.name not in SCHEMAS:
            continue
        validator = Draft202012Validator({"$ref": schema_id(folder.name)}, registry=registry)
        for label, expected in (("valid", True), ("invalid", False)):
            for path in sorted((folder / label).glob("*.json")):
                document = json.loads(path.read_text(encoding="utf-8"))
                if validator.is_valid(document) == expected:
                    checked += 1
                elif expected:  # the corpus may hold documents only the model refuses
                    pytest.fail(f"{path}: valid by the model, refused through the registry")
    assert checked > 150


def _ajv_dir() -> Path | None:
    """A node_modules folder holding ajv: $APCONFORM_AJV_DIR, else none (the test skips)."""
    named = os.environ.get("APCONFORM_AJV_DIR")
    if named and (Path(named) / "node_modules" / "ajv" / "dist" / "2020.js").is_file():
        return Path(named)
    return None


OPERATION_FOLDER = REPO / "schemas" / "operations"

AJV_SCRIPT = """
const fs = require("fs");
const path = require("path");
const Ajv2020 = require("ajv/dist/2020");
// Strict mode: every strict check refuses (strictTypes, strictRequired, unknown keywords, ...)
// and anything Ajv would only log is collected, so a warning fails the check too.
const warnings = [];
const logger = {
  log: () => {},
  warn: (...parts) => warnings.push(parts.join(" ")),
  error: (...parts) => warnings.push(parts.join(" ")),
};
const ajv = new Ajv2020({strict: true, allErrors: true, validateFormats: false, logger});
const ids = [];
const refused = [];
for (const folder of process.argv.slice(2)) {
  for (const name of fs.readdirSync(folder).sort()) {
    if (!name.endsWith(".schema.json")) continue;
    const schema = JSON.parse(fs.readFileSync(path.join(folder, name), "utf8"));
    ajv.addSchema(schema);
    ids.push([name, schema.$id]);
  }
}
for (const [name, id] of ids) {
  try { ajv.getSchema(id); }  // compiles, resolving every $ref
  catch (error) { refused.push(name + ": " + error.message); }
}
console.log(JSON.stringify({compiled: ids.length - refused.length, refused, warnings}));
"""


@pytest.mark.skipif(
    shutil.which("node") is None or _ajv_dir() is None,
    reason="optional: needs node and ajv (npm install --prefix DIR ajv@8, then "
    "APCONFORM_AJV_DIR=DIR)",
)
def test_ajv_strict_compiles_every_schema_in_one_instance_without_a_warning(
    tmp_path: Path,
) -> None:
    script = tmp_path / "ajv-check.js"
    script.write_text(AJV_SCRIPT, encoding="utf-8")
    folder = _ajv_dir()
    assert folder is not None
    result = subprocess.run(
        ["node", str(script), str(FOLDER), str(OPERATION_FOLDER)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NODE_PATH": str(folder / "node_modules")},
    )
    assert result.returncode == 0, result.stderr
    operations = len(list(OPERATION_FOLDER.glob("*.schema.json")))
    assert operations > 100
    assert json.loads(result.stdout) == {
        "compiled": len(SCHEMAS) + operations,
        "refused": [],
        "warnings": [],
    }


def test_rules_are_written_in_the_form_strict_validators_accept() -> None:
    """The two forms Ajv's strict mode refused (a pattern without a type; a required member
    undefined beside it, inside ``not``), checked without node."""
    from apconform.dev.class_rules import strict_rule_keywords

    def walk(node: Any, where: str) -> list[str]:
        found = []
        if isinstance(node, dict):
            if "pattern" in node and "type" not in node:
                found.append(f"{where}: pattern without type")
            for member in (
                node.get("required", []) if isinstance(node.get("required"), list) else []
            ):
                if member not in node.get("properties", {}):
                    found.append(f"{where}: required {member} undefined beside it")
            for key, value in node.items():
                found += walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found += walk(value, f"{where}/{index}")
        return found

    problems = []
    for path in [*FOLDER.glob("*.schema.json"), *OPERATION_FOLDER.glob("*.schema.json")]:
        problems += walk(json.loads(path.read_text(encoding="utf-8")), path.name)
    assert problems == []
    assert strict_rule_keywords(
        {"then": {"not": {"required": ["omit"]}, "properties": {"repeats": {"pattern": "^1$"}}}}
    ) == {
        "then": {
            "not": {"required": ["omit"], "properties": {"omit": {}}},
            "properties": {"repeats": {"pattern": "^1$", "type": "string"}},
        }
    }


def test_the_utf16_limit_the_schema_cannot_express_is_stated_and_covered_by_a_vector() -> None:
    from apconform.conformance.operations import get_operation
    from apconform.conformance.vectors import load_vectors
    from apconform.core.errors import ApconformError

    run_id = SCHEMAS["apx-run"]["properties"]["id"]
    assert "at most 256 UTF-16 code units" in run_id["description"]
    assert "valid here and still refused by the kernel" in run_id["description"]
    vector = next(v for v in load_vectors() if v.id == "apx-refuse-run-id-astral-257")
    run = vector.vector.input["run"]
    assert len(run["id"]) == 129 and len(run["id"].encode("utf-16-le")) // 2 == 258
    validator = Draft202012Validator({"$ref": schema_id("apx-run")}, registry=_registry())
    assert validator.is_valid(run)  # the schema counts 129 code points
    with pytest.raises(ApconformError) as refused:
        get_operation("apx.evaluate")(vector.vector.input)
    assert refused.value.code == vector.vector.expected.errorCode == "APX-VAL-STRING"
