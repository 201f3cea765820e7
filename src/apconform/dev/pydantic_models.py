"""Strict Pydantic v2 models from LinkML: the stock generator, steered by our hooks and templates.

Why not the stock output as it is: it coerces (``true`` into a number, ``"0.5"``
into a float, ``0`` into a datetime), drops patterns declared on types,
accepts an explicit ``null`` for optional fields although the JSON Schema
refuses it, and merges every imported class into every module. The lifecycle
hooks below replace each field's annotation with one built from
:mod:`apconform.dev.constraints`, keep each schema's own classes in its own
module and import the shared ones from their home module; the templates in
``templates/pydantic`` hold the small JSON-typing helpers every module carries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linkml.generators.pydanticgen import PydanticGenerator
from linkml.generators.pydanticgen.build import ClassResult, SlotResult
from linkml.generators.pydanticgen.template import PydanticModule
from linkml_runtime.linkml_model.meta import ClassDefinition, EnumDefinition
from linkml_runtime.utils.schemaview import SchemaView

from apconform.dev.class_rules import class_rule_keywords, class_rule_method
from apconform.dev.constraints import SlotConstraints, resolve
from apconform.dev.schema_sharing import on_view

__all__ = ["generate_module"]

TEMPLATES = Path(__file__).parent / "templates" / "pydantic"

_KIND_TYPES = {
    "str": "JsonStr",
    "int": "JsonInt",
    "float": "JsonFloat",
    "bool": "JsonBool",
    "datetime": "JsonTimestamp",
    "any": "Any",
}


def _number(value: Any) -> str:
    """Render a numeric bound as Python source without changing its value."""
    if isinstance(value, str):
        value = float(value) if any(c in value for c in ".eE") else int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return repr(value)
    return repr(value)


def _field_args(c: SlotConstraints, *, items: bool) -> list[str]:
    args: list[str] = []
    if items:
        if c.pattern is not None:
            args.append(f"pattern={c.pattern!r}")
        if c.min_length is not None:
            args.append(f"min_length={c.min_length}")
        if c.max_length is not None:
            args.append(f"max_length={c.max_length}")
        if c.minimum_value is not None:
            args.append(f"ge={_number(c.minimum_value)}")
        if c.maximum_value is not None:
            args.append(f"le={_number(c.maximum_value)}")
    else:
        if c.min_items is not None:
            args.append(f"min_length={c.min_items}")
        if c.max_items is not None:
            args.append(f"max_length={c.max_items}")
    return args


def annotation(c: SlotConstraints, python_name: str) -> str:
    """The full type annotation of a field, constraints included."""
    if c.checked:
        # The operation checks the document itself: the raw value passes through.
        return f"Annotated[Any, CheckedBy({python_name})]"
    if c.equals_string is not None:
        core = f"Literal[{c.equals_string!r}]"
    elif c.equals_boolean is not None:
        core = "JsonBool"
    elif c.kind in ("class", "enum"):
        core = python_name
    else:
        core = _KIND_TYPES[c.kind]
    parts = [core]
    item_args = _field_args(c, items=True)
    if item_args:
        parts.append(f"Field({', '.join(item_args)})")
    # Validators are invisible to Pydantic's JSON Schema (and so to OpenAPI):
    # each one states its rule there too.
    if c.forbidden:
        values = ", ".join(repr(v) for v in c.forbidden)
        parts.append(f'Field(json_schema_extra={{"not": {{"enum": [{values}]}}}})')
        parts.append(f"AfterValidator(refuse_values({values}))")
    if c.equals_boolean is not None:
        parts.append(f'Field(json_schema_extra={{"const": {c.equals_boolean!r}}})')
        parts.append(f"AfterValidator(only_value({c.equals_boolean!r}))")
    item = core if len(parts) == 1 else f"Annotated[{', '.join(parts)}]"
    if c.nested:
        item = f"list[{item}]"
        if c.nested_length is not None:
            n = c.nested_length
            item = f"Annotated[{item}, Field(min_length={n}, max_length={n})]"
    if c.keyed:
        outer = f"dict[JsonStr, {item}]"
    elif c.multivalued:
        outer = f"list[{item}]"
        list_args = _field_args(c, items=False)
        if list_args:
            outer = f"Annotated[{outer}, Field({', '.join(list_args)})]"
    else:
        outer = item
    if c.nullable or (c.kind == "any" and not (c.multivalued or c.keyed)):
        # "any" means any JSON value, null included; callers tell absent from
        # null with model_fields_set. A list or map of any values is still a
        # list or map: its items may be null, never the member itself.
        return f"Optional[{outer}]"
    if not c.required:
        return f"Annotated[Optional[{outer}], BeforeValidator(refuse_null), NOT_NULL]"
    return outer


class ProjectPydanticGenerator(PydanticGenerator):  # type: ignore[misc]
    """gen-pydantic with the project's strict field annotations and one module per schema."""

    def __init__(self, schema_path: str, sibling_modules: dict[str, str], **kwargs: Any) -> None:
        self._sibling_modules = sibling_modules  # schema id -> python module name
        self._foreign: dict[str, set[str]] = {}
        super().__init__(
            schema_path,
            template_dir=str(TEMPLATES),
            metadata_mode="None",
            **kwargs,
        )

    def _own(self, element: ClassDefinition | EnumDefinition) -> bool:
        return str(element.from_schema) == str(self.schemaview.schema.id)

    def before_generate_classes(
        self, cls: list[ClassDefinition], sv: SchemaView
    ) -> list[ClassDefinition]:
        return [c for c in cls if self._own(c) and c.class_uri != "linkml:Any"]

    def after_generate_class(self, cls: ClassResult, sv: SchemaView) -> ClassResult:
        """A class whose schema allows extra slots keeps unknown members instead of refusing.

        A class that refines another (``is_a``) keeps its parent as its base and
        with it the parent's openness; a parent from another schema is imported.
        A class with rules states them in its JSON Schema and checks them (see
        :mod:`.class_rules`).
        """
        keywords = class_rule_keywords(sv, cls.source.name)
        if keywords:
            cls.cls.meta = {
                "json_schema_extra": keywords,
                "rule_method": class_rule_method(sv, cls.source.name),
            }
        extra = cls.source.extra_slots
        parent = cls.source.is_a
        if extra is not None and extra.allowed and not parent:
            cls.cls.bases = "OpenBaseModel"
        if parent:
            element = sv.get_class(parent)
            if not self._own(element):
                module = self._sibling_modules[str(element.from_schema)]
                self._foreign.setdefault(module, set()).add(self._get_class_python_name(parent))
        return cls

    def before_generate_enums(
        self, enums: list[EnumDefinition], sv: SchemaView
    ) -> list[EnumDefinition]:
        return [e for e in enums if self._own(e)]

    def after_generate_slot(self, slot: SlotResult, sv: SchemaView) -> SlotResult:
        source = slot.source
        constraints = resolve(sv, source)
        python_name = ""
        if constraints.kind in ("class", "enum"):
            element = sv.get_element(constraints.range_name)
            python_name = (
                self._get_class_python_name(constraints.range_name)
                if constraints.kind == "class"
                else str(constraints.range_name)
            )
            if not self._own(element):
                module = self._sibling_modules[str(element.from_schema)]
                self._foreign.setdefault(module, set()).add(python_name)
        attribute = slot.attribute
        attribute.range = annotation(constraints, python_name)
        for name in (
            "pattern",
            "minimum_value",
            "maximum_value",
            "minimum_cardinality",
            "maximum_cardinality",
            "exact_cardinality",
            "equals_number",
        ):
            setattr(attribute, name, None)
        return slot

    def before_render_template(self, template: PydanticModule, sv: SchemaView) -> PydanticModule:
        template.python_imports = "\n".join(
            f"from .{module} import {', '.join(sorted(names))}"
            for module, names in sorted(self._foreign.items())
        )
        return template


def generate_module(
    schema_path: str, sibling_modules: dict[str, str], view: SchemaView | None = None
) -> str:
    """Render the models module of one schema file (read through ``view`` when given)."""
    if view is None:
        generator = ProjectPydanticGenerator(schema_path, sibling_modules)
    else:
        generator = on_view(ProjectPydanticGenerator(view.schema, sibling_modules), view)
    return str(generator.serialize())
