"""A class's own rules (``rules``, ``exactly_one_of``, ...) as the JSON Schema keywords that state them.

gen-json-schema writes a class's rules into the document schemas; gen-pydantic
drops them, so the OpenAPI document and the operation schemas, which are built
from the models, would describe a setting with both ``send`` and ``omit`` as
valid although the kernel refuses it. The models carry the keywords
gen-json-schema writes for the class (one translation, not two), in their JSON
Schema only: the kernel still enforces each rule and refuses with its own code.
"""

from __future__ import annotations

from typing import Any

from linkml.generators.jsonschemagen import JsonSchemaGenerator
from linkml_runtime.utils.schemaview import SchemaView

__all__ = ["class_rule_keywords"]

RULE_KEYWORDS = ("if", "then", "else", "allOf", "anyOf", "oneOf", "not")
"""The class-level keywords gen-json-schema writes for rules and boolean class expressions."""


def _has_rules(sv: SchemaView, name: str) -> bool:
    cls = sv.get_class(name)
    own = cls.any_of or cls.all_of or cls.exactly_one_of or cls.none_of
    return bool(own) or any(sv.get_class(a).rules for a in sv.class_ancestors(name))


def class_rule_keywords(sv: SchemaView, name: str) -> dict[str, Any]:
    """The keywords gen-json-schema writes for class ``name``'s rules; empty when it has none."""
    if not _has_rules(sv, name):
        return {}
    generator = JsonSchemaGenerator(sv.schema, include_null=False)
    generator.schemaview = sv  # the caller's view: its imports and induced slots are already built
    generator.start_schema()
    generator.handle_class(sv.get_class(name))
    definition: dict[str, Any] = generator.top_level_schema["$defs"][name]
    return {key: definition[key] for key in RULE_KEYWORDS if key in definition}
