"""The operation catalogue pages of the documentation, generated from the contracts and the vectors.

``docs/operations/index.md`` lists every operation; one page per protocol
holds an entry per operation: what it does, its route, the clauses its
vectors serve, its input and answer (members, links to the generated
reference pages and the JSON Schema files), its refusal codes and worked
examples taken from real vectors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["build_catalogue_pages"]

FOLDER = "docs/operations"
_PROTOCOLS = (
    ("kit", "The kit's own operations"),
    ("apx", "APx 0.1 operations"),
    ("ap1", "AP-1 operations"),
)
_ELIDE = 500
"""A top-level input member longer than this (canonical characters) is elided in an example."""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _type_of(schema: dict[str, Any], definitions: dict[str, Any]) -> str:
    """A short, linked description of a member's type."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[1]
        folder = "enums" if "enum" in definitions.get(name, {}) else "classes"
        return f"[{name}](../reference/{folder}/{name}.md)"
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o.get("type") != "null"]
        nullable = len(kept) != len(options)
        if any(not o for o in kept):
            return "any JSON value"
        inner = " or ".join(_type_of(o, definitions) for o in kept)
        return f"{inner} or null" if nullable else inner
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items", {})
        return f"list of {_type_of(items, definitions)}" if items else "list of any JSON values"
    if kind == "object":
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and values:
            return f"object of {_type_of(values, definitions)}"
        return "object"
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    if isinstance(kind, str):
        return {"number": "number", "integer": "integer", "string": "string"}.get(kind, kind)
    return "any JSON value"


def _members(model: type[BaseModel]) -> list[str]:
    schema = model.model_json_schema(mode="validation")
    definitions = schema.get("$defs", {})
    required = set(schema.get("required", ()))
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        open_note = "any members" if schema.get("additionalProperties") is not False else "none"
        return [f"Members: {open_note}.", ""]
    lines = ["| Member | Required | Type | Description |", "|---|---|---|---|"]
    for name, prop in properties.items():
        described = prop.get("description", "")
        lines.append(
            f"| `{name}` | {'yes' if name in required else 'no'} | "
            f"{_cell(_type_of(prop, definitions))} | {_cell(described)} |"
        )
    if schema.get("additionalProperties") is not False:
        lines.append("| *(others)* | no | any JSON value | Allowed and ignored. |")
    return [*lines, ""]


def _elided(value: Any, vector_id: str) -> Any:
    from apconform.core.canonical import canonical_text

    if not isinstance(value, dict):
        return value
    out = {}
    for key, member in value.items():
        size = len(canonical_text(member))
        if size > _ELIDE:
            out[key] = f"... {size:,} characters: apconform vectors show {vector_id}"
        else:
            out[key] = member
    return out


def _json_block(value: Any) -> list[str]:
    return ["```json", json.dumps(value, indent=2, ensure_ascii=False), "```", ""]


def _example(item: Any, heading: str) -> list[str]:
    vector = item.vector
    expected = item.document["expected"]
    lines = [
        f"**{heading}**: vector `{vector.id}` ({vector.description.rstrip('.')}.)",
        "",
        "Input:",
        "",
        *_json_block(_elided(item.document["input"], vector.id)),
    ]
    if expected["kind"] == "exact":
        lines += ["Answer (exactly):", "", *_json_block(expected["document"])]
    elif expected["kind"] == "partial":
        lines += ["The answer must hold at these places (JSON Pointers):", ""]
        for matcher in expected["matchers"]:
            if matcher.get("absent") is True:
                lines.append(f"- `{matcher['path'] or '(the whole answer)'}` is absent")
            elif matcher.get("present") is True:
                lines.append(f"- `{matcher['path'] or '(the whole answer)'}` is present")
            else:
                shown = json.dumps(matcher["equals"], ensure_ascii=False)
                lines.append(f"- `{matcher['path'] or '(the whole answer)'}` equals `{shown}`")
        lines.append("")
    else:  # as the wire carries it: the adapter protocol's refusal member, with `code`
        refusal = {
            "code": expected["errorCode"],
            "message": expected.get("message", "(your own words: this vector does not check them)"),
        }
        if "path" in expected:
            refusal["path"] = expected["path"]
        lines += [
            "Refusal (what the implementation answers; the `code`, and the `message` and `path` "
            "when the vector fixes them, must match):",
            "",
            *_json_block({"refusal": refusal}),
        ]
    return lines


def _clause_links(clauses: list[str], registry: dict[str, dict[str, Any]]) -> str:
    links = []
    for clause_id in clauses:
        entry = registry.get(clause_id)
        if entry is None:
            links.append(clause_id)
            continue
        page = str(entry["file"]).removeprefix("spec/")
        links.append(f"[{clause_id}](../spec/{page}#{entry['anchor']})")
    return ", ".join(links) if links else "none yet"


def _entry(entry: Any, registry: dict[str, dict[str, Any]]) -> list[str]:
    from apconform.api.routes.operations import operation_path
    from apconform.conformance.contracts import operation_contract
    from apconform.dev.operation_contracts import schema_file

    contract = operation_contract(entry.name)
    assert contract is not None
    answers = entry.vectors - entry.refusal_vectors
    codes = ", ".join(f"`{code}`" for code in entry.refusals)
    tested = ", ".join(f"`{code}`" for code in entry.refused_codes) or "none"
    messages = ", ".join(f"`{pointer}`" for pointer in contract.messages) or "none"
    lines = [
        f"## `{entry.name}` {{ #{entry.name} }}",
        "",
        entry.summary,
        "",
        "| | |",
        "|---|---|",
        f"| HTTP route | `POST {operation_path(entry.name)}` |",
        f"| Input | [{entry.input_class}](../reference/classes/{entry.input_class}.md), "
        f"`{schema_file(entry.name, 'input')}` |",
        f"| Answer | [{entry.answer_class}](../reference/classes/{entry.answer_class}.md), "
        f"`{schema_file(entry.name, 'answer')}` |",
        f"| Refusal codes | {codes} |",
        f"| Refusals the vectors test | {tested} |",
        f"| Messages in the answer (informative) | {messages} |",
        f"| Clauses | {_clause_links(entry.clauses, registry)} |",
        f"| Vectors | {entry.vectors} ({answers} answered, {entry.refusal_vectors} refused): "
        f"`apconform vectors list --operation {entry.name}` |",
        "",
        "### Input members",
        "",
        *_members(contract.input_model),
        "### Answer members",
        "",
        *_members(contract.answer_model),
    ]
    if entry.example is not None:
        lines += _example(entry.example, "Worked example")
    if entry.refusal_example is not None:
        lines += _example(entry.refusal_example, "Refused example")
    return lines


_INTRO = """\
# Operation catalogue

Every vector exercises one **operation**: the harness sends the vector's
input to the implementation under test with the operation's name (an adapter
`run` message, or `POST /v1/<protocol>/<name>` for an `http:` target) and
compares the answer or the refusal with the vector's expectation. This
catalogue is what an adapter is written from: for each operation what it
does, the clauses its vectors serve, the schema of its input and of its
answer, the error codes it refuses with, and worked examples taken from real
vectors. It is generated from the LinkML classes in
`schemas/*_operations.yaml` and the vectors (`apconform-dev gen`).

- **Inputs.** Every vector's input meets its operation's input schema (a
  test proves it for the whole suite), so an implementation never receives
  anything else from the harness. The reference refuses an input that
  breaks the schema with `APC-OP-INPUT` (HTTP 422) at the path of the first
  bad member, listing every violation. A member the schema leaves free says
  why, in a description with the words "Free-form on purpose": usually
  because the protocol itself checks that value and refuses it with its own
  code, which the vectors test. A test walks every operation's input and
  answer, here and in the OpenAPI document, and fails on a free member that
  does not say why.
- **Answers.** An answer must meet the operation's answer schema;
  `apconform check --validate-protocol` errors every case whose answer does
  not. The vector's expectation then decides pass or fail. Two answer
  members are free: an APx result's `baselineCohort.participantIds` and
  `calibrationProtocolId`, which the kernel copies unchecked from a
  synthetic baseline.
- **Refusals.** A refusal carries one of the listed codes (the
  [error code table](../kit/error-codes.md) says what each means).
- **Messages.** Codes, paths and values are the contract; messages are
  informative ([KIT-VEC-3](../spec/kit/vectors.md#KIT-VEC-3)): a refusal's
  message and the answer members listed as messages (JSON pointers, `*` for
  any member or index) may be worded freely, except where a clause the
  vector cites quotes the message verbatim.
- **Numbers.** AP-1 numbers are decimal strings (`"15.20"`), compared as
  text unless a vector says otherwise; APx numbers are JSON numbers.
- **Schemas.** Each input and answer has a self-contained JSON Schema under
  `schemas/operations/` (`<operation>.input.schema.json`,
  `<operation>.answer.schema.json`), and a page in the
  [schema reference](../reference/index.md).

Browse the vectors of an operation or a clause with
`apconform vectors list --operation NAME` or `--clause ID`, and print one
with the clauses it cites, quoted, with `apconform vectors show ID`.

"""


def build_catalogue_pages(root: Path) -> dict[str, str]:
    """docs/operations/: the index and one page per protocol."""
    from apconform.conformance.catalogue import operation_entries
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.vectors import load_vectors

    clauses = load_clause_registry(root / "spec" / "clauses.json")
    registry = {
        clause.id: {"file": clause.file, "anchor": clause.anchor}
        for clause in clauses.registry.clauses
    }
    entries = operation_entries(load_vectors(root / "vectors", clauses=clauses))
    index = [_INTRO]
    out: dict[str, str] = {}
    for protocol, title in _PROTOCOLS:
        mine = [e for e in entries if e.name.startswith(protocol + ".")]
        index += [
            f"## {title}",
            "",
            "| Operation | What it does | Vectors (refused) |",
            "|---|---|---|",
        ]
        for entry in mine:
            index.append(
                f"| [`{entry.name}`]({protocol}.md#{entry.name}) | {_cell(entry.summary)} | "
                f"{entry.vectors} ({entry.refusal_vectors}) |"
            )
        index.append("")
        page = [f"# {title}", "", "Back to the [operation catalogue](index.md).", ""]
        for entry in mine:
            page += _entry(entry, registry)
        out[f"{FOLDER}/{protocol}.md"] = "\n".join(page).rstrip("\n") + "\n"
    out[f"{FOLDER}/index.md"] = "\n".join(index).rstrip("\n") + "\n"
    return out
