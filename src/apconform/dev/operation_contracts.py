"""The contract of every vector operation, read from the LinkML schemas and turned into artefacts.

An operation's input class carries the annotations ``operation`` (its name),
``answer`` (the class of its answer), ``refusals`` (the error codes it answers
with, separated by white space) and ``summary`` (what it does). An attribute
annotated ``informative`` is a message written for people (a reason, a claim,
the message of a listed fault): the index lists where such members sit in each
answer, so the harness compares them only where a clause quotes them
(KIT-VEC-3). From them this module builds the index the runtime looks contracts up in
(``src/apconform/models/operation_index.py``) and one self-contained JSON
Schema per input and per answer (``schemas/operations/``), holding only the
definitions the root reaches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linkml_runtime.utils.schemaview import SchemaView

__all__ = [
    "SCHEMA_FOLDER",
    "OperationSpec",
    "build_operation_index",
    "build_operation_schemas",
    "operation_specs",
    "schema_file",
]

SCHEMA_FOLDER = "schemas/operations"
_ID_BASE = "https://w3id.org/apconform/schemas/operations/"


@dataclass(frozen=True)
class OperationSpec:
    """One operation's contract as the schemas declare it."""

    name: str
    input_class: str
    input_module: str
    answer_class: str
    answer_module: str
    refusals: tuple[str, ...]
    summary: str
    informative: tuple[str, ...] = ()
    """JSON pointers of the answer's message members; ``*`` stands for any member or index."""


def _annotation(element: Any, tag: str) -> str | None:
    annotations = getattr(element, "annotations", None) or {}
    entry = annotations[tag] if tag in annotations else None  # noqa: SIM401 (JsonObj)
    if entry is None:
        return None
    return " ".join(str(getattr(entry, "value", entry)).split())


def _informative(sv: SchemaView, class_name: str, seen: frozenset[str] = frozenset()) -> set[str]:
    """Pointers below an instance of the class to every attribute annotated informative."""
    found: set[str] = set()
    classes = sv.all_classes()
    for slot in sv.class_induced_slots(class_name):
        step = "/" + slot.name.replace("~", "~0").replace("/", "~1")
        if slot.multivalued or _annotation(slot, "keyed") is not None:
            step += "/*"
        if _annotation(slot, "informative") is not None:
            found.add(step)
        elif slot.range in classes and slot.range not in seen:
            below = _informative(sv, str(slot.range), seen | {class_name})
            found |= {step + pointer for pointer in below}
    return found


def _module_of(sv: SchemaView, class_name: str, modules: dict[str, str]) -> str:
    return modules[str(sv.get_class(class_name).from_schema)]


def operation_specs(
    schema_files: list[Path],
    modules: dict[str, str],
    view: Callable[[str], SchemaView] = SchemaView,
) -> dict[str, OperationSpec]:
    """Every operation declared by an input class of these schema files, by name.

    ``modules`` maps schema ids to the generated module names; ``view`` gives the
    SchemaView of a schema file (a generation run passes the views it shares). Run
    inside the repository root (LinkML resolves imports relative to it).
    """
    found: dict[str, OperationSpec] = {}
    for path in schema_files:
        rel = f"schemas/{path.name}"
        sv = view(rel)
        for name, cls in sv.all_classes(imports=False).items():
            operation = _annotation(cls, "operation")
            if operation is None:
                continue
            answer = _annotation(cls, "answer")
            summary = _annotation(cls, "summary")
            refusals = _annotation(cls, "refusals")
            if answer is None or summary is None or refusals is None:
                raise SystemExit(
                    f"{rel}: class {name} declares operation {operation} but lacks one of the "
                    "annotations answer, refusals, summary"
                )
            if operation in found:
                raise SystemExit(f"{rel}: operation {operation} is declared twice")
            if answer not in sv.all_classes():
                raise SystemExit(f"{rel}: the answer class {answer} of {operation} is unknown")
            found[operation] = OperationSpec(
                name=operation,
                input_class=str(name),
                input_module=_module_of(sv, str(name), modules),
                answer_class=answer,
                answer_module=_module_of(sv, answer, modules),
                refusals=tuple(refusals.split()),
                summary=summary,
                informative=tuple(sorted(_informative(sv, answer))),
            )
    return dict(sorted(found.items()))


def build_operation_index(specs: dict[str, OperationSpec]) -> dict[str, str]:
    """The generated module the runtime reads contracts from (no LinkML needed at run time)."""
    lines = [
        '"""Generated by `apconform-dev gen` from the LinkML schemas. Do not edit by hand.',
        "",
        "OPERATIONS maps each vector operation to its contract: the (module, class) of its",
        "input and of its answer, the refusal codes it answers with, what it does, and where",
        "its answer holds messages for people (JSON pointers, * for any member or index), which",
        "the harness compares only where a clause the vector cites quotes them (KIT-VEC-3).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any",
        "",
        "__all__ = ['OPERATIONS']",
        "",
        "OPERATIONS: dict[str, dict[str, Any]] = {",
    ]
    for spec in specs.values():
        lines += [
            f"    {spec.name!r}: {{",
            f"        'input': ({spec.input_module!r}, {spec.input_class!r}),",
            f"        'answer': ({spec.answer_module!r}, {spec.answer_class!r}),",
            f"        'refusals': {spec.refusals!r},",
            f"        'summary': {spec.summary!r},",
            f"        'informative': {spec.informative!r},",
            "    },",
        ]
    lines += ["}", ""]
    return {"src/apconform/models/operation_index.py": "\n".join(lines)}


def schema_file(operation: str, side: str) -> str:
    """Where the JSON Schema of one side ("input" or "answer") of an operation is written."""
    return f"{SCHEMA_FOLDER}/{operation}.{side}.schema.json"


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found


def _pruned(schema: dict[str, Any], schema_id: str) -> dict[str, Any]:
    """The schema with only the definitions its root reaches, and its own ``$id``."""
    definitions: dict[str, Any] = schema.pop("$defs", {})
    reached: set[str] = set()
    pending = _refs(schema)
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        pending |= _refs(definitions[name]) - reached
    if reached:
        schema["$defs"] = {name: definitions[name] for name in sorted(reached)}
    schema["$id"] = schema_id
    return schema


def build_operation_schemas(
    specs: dict[str, OperationSpec],
    files: dict[str, str],
    definitions: Callable[[str], dict[str, Any]] | None = None,
) -> dict[str, str]:
    """One JSON Schema per operation input and answer, generated like the document schemas.

    ``files`` maps a generated module name to its schema file (relative to the
    root); both sides of an operation are generated from the file declaring
    its input, which imports the answer's. ``definitions`` gives a schema file's
    patched definitions (a generation run passes the ones the document schemas
    were cut from). Run inside the repository root.
    """
    from apconform.dev.json_schema import document_definitions, document_schema, schema_text

    if definitions is None:
        definitions = lambda rel: document_definitions(rel)[0]  # noqa: E731

    wanted: dict[str, dict[str, str]] = {}
    for spec in specs.values():
        for side, cls in (("input", spec.input_class), ("answer", spec.answer_class)):
            wanted.setdefault(files[spec.input_module], {})[schema_file(spec.name, side)] = cls
    out: dict[str, str] = {}
    for rel, classes in sorted(wanted.items()):
        defs = definitions(rel)
        for path, class_name in classes.items():
            schema_id = _ID_BASE + path.removeprefix(SCHEMA_FOLDER + "/")
            # Pruned before it is written: the definitions are shared, never changed here.
            out[path] = schema_text(_pruned(document_schema(defs, class_name, ""), schema_id))
    return out
