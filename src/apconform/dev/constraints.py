"""What a slot accepts, resolved once from LinkML for every generator.

The stock generators disagree about type-level constraints (gen-json-schema
copies a type's pattern onto its slots, gen-pydantic drops it) and LinkML has
no words for string length or for "present but null". This module resolves a
slot's effective constraints from the slot itself and its type chain, plus the
project annotations ``max_length``/``min_length`` (with ``length_unit: utf16``
when the kernel counts UTF-16 code units, as APx does), ``nullable``,
``equals_boolean`` (a boolean fixed to one value, such as ``certified: false``),
``keyed`` (a JSON object whose member names are free and whose member
values have the slot's range) and ``nested`` (a multivalued slot whose items
are themselves arrays of values of the range; with ``nested_length`` of
exactly that many, such as pairs), so the JSON Schema post-processing and
the Pydantic models are built from one answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from linkml_runtime.linkml_model.meta import SlotDefinition, TypeDefinition
from linkml_runtime.utils.schemaview import SchemaView

__all__ = ["SlotConstraints", "nonportable_patterns", "resolve", "scalar_base"]

# LinkML built-in type name -> the JSON value kind it stands for.
_BASES = {
    "string": "str",
    "str": "str",
    "uri": "str",
    "uriorcurie": "str",
    "curie": "str",
    "ncname": "str",
    "objectidentifier": "str",
    "nodeidentifier": "str",
    "integer": "int",
    "int": "int",
    "float": "float",
    "double": "float",
    "decimal": "float",
    "boolean": "bool",
    "bool": "bool",
    "datetime": "datetime",
}


@dataclass
class SlotConstraints:
    """The effective constraints of one slot of one class."""

    kind: str  # "str" | "int" | "float" | "bool" | "datetime" | "enum" | "class" | "any"
    range_name: str
    required: bool
    multivalued: bool
    nullable: bool
    keyed: bool = False
    nested: bool = False
    nested_length: int | None = None
    pattern: str | None = None
    equals_string: str | None = None
    equals_boolean: bool | None = None
    forbidden: tuple[str, ...] = ()
    minimum_value: int | float | None = None
    maximum_value: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    length_unit: str = "codepoint"  # "utf16": the kernel counts UTF-16 code units
    checked: bool = False  # "checked_by: operation": the operation checks the document itself
    min_items: int | None = None
    max_items: int | None = None


def _annotation(element: Any, tag: str) -> Any:
    annotations = getattr(element, "annotations", None) or {}
    # A dict for top-level slots, a JsonObj for class attributes: both support `in` and [].
    entry = annotations[tag] if tag in annotations else None  # noqa: SIM401 (JsonObj has no get)
    if entry is None:
        return None
    return getattr(entry, "value", entry)


def _forbidden(element: Any) -> tuple[str, ...]:
    values = []
    for expr in getattr(element, "none_of", None) or []:
        if getattr(expr, "equals_string", None) is not None:
            values.append(str(expr.equals_string))
    return tuple(values)


def scalar_base(sv: SchemaView, type_name: str) -> str:
    """The JSON kind ("str", "int", ...) a LinkML type finally stands for."""
    for ancestor in sv.type_ancestors(type_name):
        base = _BASES.get(str(ancestor))
        if base is not None:
            return base
    raise ValueError(f"type {type_name} does not derive from a supported built-in type")


def _type_chain(sv: SchemaView, type_name: str) -> list[TypeDefinition]:
    return [sv.get_type(name) for name in sv.type_ancestors(type_name)]


def _as_int(value: Any) -> int | None:
    return None if value is None else int(value)


def resolve(sv: SchemaView, slot: SlotDefinition) -> SlotConstraints:
    """Resolve an induced slot: its own settings win over those of its type chain."""
    range_name = str(slot.range)
    min_items = _as_int(slot.minimum_cardinality)
    max_items = _as_int(slot.maximum_cardinality)
    if slot.exact_cardinality is not None:
        min_items = max_items = int(slot.exact_cardinality)

    def make(kind: str) -> SlotConstraints:
        return SlotConstraints(
            kind=kind,
            range_name=range_name,
            required=bool(slot.required),
            multivalued=bool(slot.multivalued),
            nullable=bool(_annotation(slot, "nullable")),
            keyed=bool(_annotation(slot, "keyed")),
            nested=str(_annotation(slot, "nested")).lower() == "true"
            or _annotation(slot, "nested_length") is not None,
            nested_length=_as_int(_annotation(slot, "nested_length")),
            min_items=min_items,
            max_items=max_items,
        )

    checked_by = _annotation(slot, "checked_by")
    if range_name in sv.all_classes():
        cls = sv.get_class(range_name)
        kind = "any" if cls.class_uri == "linkml:Any" else "class"
        result = make(kind)
        if checked_by is not None:
            if str(checked_by) != "operation" or kind != "class" or slot.multivalued:
                raise ValueError(
                    f"slot {slot.name}: checked_by must be 'operation', on a single member "
                    f"whose range is a document class, not {checked_by!r} on {range_name}"
                )
            result.checked = True
        return result
    if checked_by is not None:
        raise ValueError(f"slot {slot.name}: checked_by needs a class range, not {range_name}")
    if range_name in sv.all_enums():
        return make("enum")

    chain = _type_chain(sv, range_name)
    result = make(scalar_base(sv, range_name))
    result.pattern = slot.pattern
    result.equals_string = slot.equals_string
    fixed = _annotation(slot, "equals_boolean")
    if fixed is not None:
        result.equals_boolean = fixed if isinstance(fixed, bool) else str(fixed).lower() == "true"
    result.forbidden = _forbidden(slot)
    result.minimum_value = slot.minimum_value
    result.maximum_value = slot.maximum_value
    result.min_length = _as_int(_annotation(slot, "min_length"))
    result.max_length = _as_int(_annotation(slot, "max_length"))
    for type_def in chain:
        result.pattern = result.pattern or type_def.pattern
        result.forbidden = result.forbidden or _forbidden(type_def)
        if result.minimum_value is None:
            result.minimum_value = type_def.minimum_value
        if result.maximum_value is None:
            result.maximum_value = type_def.maximum_value
        if result.min_length is None:
            result.min_length = _as_int(_annotation(type_def, "min_length"))
        if result.max_length is None:
            result.max_length = _as_int(_annotation(type_def, "max_length"))
    unit = _annotation(slot, "length_unit") or next(
        (found for t in chain if (found := _annotation(t, "length_unit")) is not None), None
    )
    if unit is not None:
        if str(unit) not in ("utf16", "codepoint"):
            raise ValueError(f"length_unit must be utf16 or codepoint, not {unit!r}")
        result.length_unit = str(unit)
    return result


# Shorthand classes mean different things in ECMA-262 (JSON Schema), Rust regex
# (Pydantic) and Python re: \d and \w are Unicode-wide outside ECMA, and \s
# disagrees about U+0085 and U+001C-U+001F. Patterns spell their classes out.
_SHORTHAND = re.compile(r"(?<!\\)(?:\\\\)*\\[sSdDwWbB]")


def nonportable_patterns(sv: SchemaView) -> list[str]:
    """Every pattern that uses a shorthand class, as 'element: pattern' lines."""
    found = []
    for name, type_def in sv.all_types().items():
        if type_def.pattern and _SHORTHAND.search(type_def.pattern):
            found.append(f"type {name}: {type_def.pattern}")
    for class_name in sv.all_classes():
        for slot_name in sv.class_slots(class_name):
            pattern = sv.induced_slot(slot_name, class_name).pattern
            if pattern and _SHORTHAND.search(pattern):
                found.append(f"slot {class_name}.{slot_name}: {pattern}")
    return sorted(set(found))
