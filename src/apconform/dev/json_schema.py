"""JSON Schema from LinkML: gen-json-schema, then the fixes that make it the normative contract.

gen-json-schema already closes objects, keeps patterns and (with
``include_null=False``) refuses null for optional fields. It does not know the
project annotations (string length, nullable) or type-level ``none_of``, and
its rendering of ``linkml:Any`` leaves out arrays. The post-processing here
adds exactly those (and the ``equals_boolean`` and ``keyed`` annotations),
from the same :mod:`apconform.dev.constraints` answers the Pydantic models
are built from.

Every file is a JSON Schema draft 2020-12 document with its own ``$id``
(``https://w3id.org/apconform/schemas/<document>.schema.json``) and every
``$ref`` pointing into its own ``$defs``, so all the files load together into
one registry (ajv, python-jsonschema's ``referencing``) and resolve offline.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from linkml.generators.jsonschemagen import JsonSchemaGenerator
from linkml_runtime.utils.schemaview import SchemaView

from apconform.dev.class_rules import RULE_KEYWORDS, strict_rule_keywords
from apconform.dev.constraints import SlotConstraints, resolve
from apconform.dev.schema_sharing import on_view

__all__ = [
    "DIALECT",
    "document_classes",
    "document_definitions",
    "document_schema",
    "document_schemas",
    "generate_document_schemas",
    "schema_id",
    "schema_text",
]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema dialect of every generated file."""
_ID_BASE = "https://w3id.org/apconform/schemas/"


def schema_id(document: str) -> str:
    """The ``$id`` of a document's schema file: unique per file, and where it is published."""
    return f"{_ID_BASE}{document}.schema.json"


def document_classes(sv: SchemaView) -> dict[str, str]:
    """Classes of this schema that are documents: document name -> class name."""
    found: dict[str, str] = {}
    for name, cls in sv.all_classes(imports=False).items():
        entry = (cls.annotations or {}).get("document")
        if entry is not None:
            found[str(getattr(entry, "value", entry))] = str(name)
    return dict(sorted(found.items()))


def _patch_scalar(schema: dict[str, Any], c: SlotConstraints) -> None:
    if c.kind == "str":
        if c.min_length is not None:
            schema["minLength"] = c.min_length
        if c.max_length is not None:
            schema["maxLength"] = c.max_length
    if c.forbidden:
        schema["not"] = {"enum": list(c.forbidden)}
    if c.equals_boolean is not None:
        schema["const"] = c.equals_boolean
    if c.kind in ("int", "float"):
        for key, value in (("minimum", c.minimum_value), ("maximum", c.maximum_value)):
            if value is not None:
                schema[key] = _json_number(value)


def _json_number(value: Any) -> int | float:
    if isinstance(value, str):
        value = float(value) if any(ch in value for ch in ".eE") else int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value  # type: ignore[no-any-return]


def _utf16_note(limit: int) -> str:
    return (
        f"The kernel allows at most {limit} UTF-16 code units, counted as ECMAScript counts "
        "a string's length; JSON Schema's maxLength counts code points, so this schema "
        f"bounds the text at {limit} code points only: a text of more than {limit // 2} "
        "characters outside the Basic Multilingual Plane (emoji, for example) is valid here "
        "and still refused by the kernel."
    )


def _patch_property(prop: dict[str, Any], c: SlotConstraints) -> dict[str, Any]:
    if c.checked:
        # The operation checks the document itself (see CheckedBy in the generated models):
        # the document's schema, or any other value, which the operation refuses.
        document = {key: value for key, value in prop.items() if key != "description"}
        checked: dict[str, Any] = {"anyOf": [document, {"not": copy.deepcopy(document)}]}
        if "description" in prop:
            checked["description"] = prop["description"]
        return checked
    target = prop["items"] if c.multivalued and "items" in prop else prop
    _patch_scalar(target, c)
    if c.length_unit == "utf16" and c.max_length is not None:
        note = _utf16_note(c.max_length)
        prop["description"] = (
            f"{prop['description'].rstrip()} {note}" if prop.get("description") else note
        )
    if c.nested and "items" in prop:
        inner: dict[str, Any] = {"type": "array", "items": prop["items"]}
        if c.nested_length is not None:
            inner["minItems"] = inner["maxItems"] = c.nested_length
        prop["items"] = inner
    if c.keyed:
        description = prop.pop("description", None)
        prop = {"type": "object", "additionalProperties": prop}
        if description is not None:
            prop["description"] = description
    if not c.nullable:
        return prop
    description = prop.pop("description", None)
    wrapped: dict[str, Any] = {"anyOf": [prop, {"type": "null"}]}
    if description is not None:
        wrapped["description"] = description
    return wrapped


def _patch_class(sv: SchemaView, class_name: str, schema: dict[str, Any]) -> None:
    properties = schema.get("properties", {})
    for slot_name in sv.class_slots(class_name):
        slot = sv.induced_slot(slot_name, class_name)
        key = str(slot.alias or slot.name)
        if key in properties:
            properties[key] = _patch_property(properties[key], resolve(sv, slot))


def document_definitions(
    schema_path: str, view: SchemaView | None = None
) -> tuple[dict[str, Any], SchemaView]:
    """The patched ``$defs`` of every class a schema file reaches, and the generator's view.

    One generator run serves every document of a schema file (and every operation
    schema cut from it): the definitions do not depend on which classes are roots.
    Callers must not change the returned definitions; :func:`document_schemas` copies.
    The generator reads ``view`` when given.
    """
    if view is None:
        generator = JsonSchemaGenerator(schema_path, include_null=False)
    else:
        generator = on_view(JsonSchemaGenerator(view.schema, include_null=False), view)
    base: dict[str, Any] = json.loads(generator.serialize())
    sv = generator.schemaview
    defs: dict[str, Any] = base.get("$defs", {})
    for name, definition in defs.items():
        if name in sv.all_classes():
            cls = sv.get_class(name)
            if cls.class_uri == "linkml:Any":
                defs[name] = {"title": name, "description": cls.description}
            else:
                _patch_class(sv, name, definition)
                definition.update(
                    strict_rule_keywords(
                        {k: definition[k] for k in RULE_KEYWORDS if k in definition}
                    )
                )
    return defs, sv


def document_schema(defs: dict[str, Any], class_name: str, schema_id: str) -> dict[str, Any]:
    """One document's schema rooted at ``class_name``, sharing (not copying) ``defs``."""
    schema: dict[str, Any] = copy.deepcopy(defs[class_name])
    schema["$defs"] = defs
    schema["$id"] = schema_id
    schema["$schema"] = DIALECT
    return schema


def schema_text(schema: dict[str, Any]) -> str:
    """The deterministic text every generated JSON Schema file is written as."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def document_schemas(defs: dict[str, Any], classes: dict[str, str]) -> dict[str, str]:
    """Each document's (name -> class) schema as deterministic text, rooted at its class."""
    return {
        document: schema_text(document_schema(defs, class_name, schema_id(document)))
        for document, class_name in classes.items()
    }


def generate_document_schemas(schema_path: str, classes: dict[str, str]) -> dict[str, str]:
    """The normative JSON Schema of each document class (name -> class), as deterministic text."""
    return document_schemas(document_definitions(schema_path)[0], classes)
