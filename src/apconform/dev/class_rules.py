"""A class's ``rules`` as the models state them: JSON Schema keywords and a generated check.

gen-json-schema writes a class's rules into the document and operation
schemas; gen-pydantic drops them. The models carry them twice over, both from
the same schema rules: in their JSON Schema (the keywords gen-json-schema
writes for the class, so the OpenAPI document built from the models says the
same as the schema files), and as a generated ``rule_breaches`` method with a
model validator that refuses a breach, so the models accept exactly what the
schema files accept (``tests/test_parity.py``).

Each rule names, in its annotations, the error ``code`` a breach is refused
with, the ``member`` the refusal points at (the object itself when absent) and
the ``message`` (``{slot}`` is replaced by that slot's value). The kernel
defers the check while it loads a document and asks ``rule_breaches`` itself,
so it reports each breach with that code, at that path, in its own order and
beside its other findings.

Only the forms the schemas use are translated; any other form of rule stops
the generation, naming the class, so a rule is never silently left out.
"""

from __future__ import annotations

from typing import Any

from linkml.generators.jsonschemagen import JsonSchemaGenerator
from linkml_runtime.linkml_model.meta import AnonymousClassExpression, ClassRule
from linkml_runtime.utils.schemaview import SchemaView

from apconform.dev.schema_sharing import on_view

__all__ = ["class_rule_keywords", "class_rule_method", "strict_rule_keywords"]

RULE_KEYWORDS = ("if", "then", "else", "allOf", "anyOf", "oneOf", "not")
"""The class-level keywords gen-json-schema writes for rules and boolean class expressions."""

_RULE_ANNOTATIONS = {"code", "member", "message"}


def _rules(sv: SchemaView, name: str) -> list[ClassRule]:
    cls = sv.get_class(name)
    if cls.any_of or cls.all_of or cls.exactly_one_of or cls.none_of:
        raise SystemExit(f"class {name}: boolean class expressions are not translated to models")
    return [rule for rule in cls.rules or [] if not rule.deactivated]


def class_rule_keywords(sv: SchemaView, name: str) -> dict[str, Any]:
    """The keywords gen-json-schema writes for class ``name``'s rules, in the form
    :func:`strict_rule_keywords` gives them; empty when it has none."""
    if not _rules(sv, name):
        return {}
    generator = on_view(JsonSchemaGenerator(sv.schema, include_null=False), sv)
    generator.start_schema()
    generator.handle_class(sv.get_class(name))
    definition: dict[str, Any] = generator.top_level_schema["$defs"][name]
    return strict_rule_keywords(
        {key: definition[key] for key in RULE_KEYWORDS if key in definition}
    )


def strict_rule_keywords(keywords: dict[str, Any]) -> dict[str, Any]:
    """The same rules, written so that a validator in strict mode (Ajv's) accepts them.

    gen-json-schema writes a postcondition's ``pattern`` without a ``type`` and a member's
    absence as ``not: {required: [m]}`` with ``m`` undefined beside it; strict validators
    refuse both as likely mistakes. Here a pattern gets ``type: string`` (rules test
    patterns only on text members, which the class already types as strings, so no document
    changes verdict) and each ``required`` member gets an empty ``properties`` entry beside
    it (which constrains nothing).
    """

    def fix(node: Any) -> Any:
        if isinstance(node, list):
            return [fix(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: fix(value) for key, value in node.items()}
        if "pattern" in out and "type" not in out:
            out["type"] = "string"
        if isinstance(out.get("required"), list):
            defined = dict(out.get("properties", {}))
            for member in out["required"]:
                defined.setdefault(member, {})
            out["properties"] = defined
        return out

    fixed: dict[str, Any] = fix(keywords)
    return fixed


def _annotation(rule: ClassRule, key: str) -> str | None:
    entry = (rule.annotations or {}).get(key)
    return None if entry is None else str(getattr(entry, "value", entry))


def _fail(name: str, rule: ClassRule, why: str) -> SystemExit:
    return SystemExit(
        f"class {name}, rule {rule.title!r}: {why}. Rules are translated to models only as "
        "slot conditions with value_presence, required or equals_string (or any_of of "
        "equals_string), or a pattern in a postcondition, annotated with code, message and "
        "optionally member."
    )


def _slot_test(name: str, rule: ClassRule, slot: str, condition: Any, *, given: bool) -> str:
    """Python for one slot condition, as gen-json-schema's keywords read it.

    In a precondition (``given``) a value test also asks for the member (gen-json-schema
    adds it to ``required`` there); a postcondition tests presence, or asks for the member
    and that its text matches a ``pattern`` (gen-json-schema requires it there too).
    """
    present = f"{slot!r} in present"
    absent = f"{slot!r} not in present"
    values: list[str] = []
    if condition.equals_string is not None:
        values.append(condition.equals_string)
    for option in condition.any_of or []:
        if option.equals_string is None or _other_constraints(option, {"equals_string"}):
            raise _fail(name, rule, f"slot {slot}: any_of holds only equals_string")
        values.append(option.equals_string)
    allowed = {"equals_string", "any_of", "value_presence", "required", "pattern"}
    if _other_constraints(condition, allowed):
        raise _fail(name, rule, f"slot {slot} has a condition that is not translated")
    if condition.pattern is not None:
        if given or values or condition.value_presence is not None:
            raise _fail(name, rule, f"slot {slot}: a pattern stands alone, in a postcondition")
        python = _python_pattern(name, rule, condition.pattern)
        return f"({present} and matches({python!r}, self.{slot}))"
    presence = str(condition.value_presence) if condition.value_presence is not None else None
    if condition.required:
        presence = "PRESENT"
    if values:
        if not given or presence == "ABSENT":
            raise _fail(name, rule, f"slot {slot}: a value is tested only in a precondition")
        return f"({present} and self.{slot} in {tuple(values)!r})"
    if presence == "PRESENT":
        return f"({present})"
    if presence == "ABSENT":
        return f"({absent})"
    raise _fail(name, rule, f"slot {slot} tests nothing")


def _python_pattern(name: str, rule: ClassRule, pattern: str) -> str:
    """The rule's ECMA-262 pattern as Python ``re`` reads it alike.

    Only patterns without escapes, with ``$`` at most at the very end, are translated: there
    the two dialects differ only in that Python's ``$`` also matches before a final newline,
    so the end anchor becomes ``\\Z`` (as the kit's JSON Schema validator reads patterns).
    """
    body = pattern[:-1] if pattern.endswith("$") else pattern
    if "\\" in pattern or "$" in body:
        raise _fail(name, rule, f"pattern {pattern!r} has an escape or an inner $")
    return body + ("\\Z" if pattern.endswith("$") else "")


def _other_constraints(condition: Any, allowed: set[str]) -> bool:
    from dataclasses import fields

    skipped = allowed | {"name"}
    for item in fields(condition):
        if item.name in skipped:
            continue
        value = getattr(condition, item.name)
        if value not in (None, [], {}, False):
            return True
    return False


def _expression(
    name: str, rule: ClassRule, expr: AnonymousClassExpression | None, *, given: bool
) -> str:
    if expr is None or not expr.slot_conditions:
        raise _fail(name, rule, "each side needs slot conditions")
    if expr.any_of or expr.all_of or expr.exactly_one_of or expr.none_of or expr.is_a:
        raise _fail(name, rule, "boolean expressions over slot conditions are not translated")
    tests = [
        _slot_test(name, rule, str(slot), condition, given=given)
        for slot, condition in expr.slot_conditions.items()
    ]
    return " and ".join(tests)


def class_rule_method(sv: SchemaView, name: str) -> str:
    """The source of class ``name``'s ``rule_breaches`` and its validator; empty without rules."""
    rules = _rules(sv, name)
    if not rules:
        return ""
    lines = [
        "def rule_breaches(self) -> list[RuleBreach]:",
        '    """The rules of this class (its schema\'s ``rules``) that this value breaks."""',
        "    present = self.model_fields_set",
        "    breaches: list[RuleBreach] = []",
    ]
    for rule in rules:
        extra = set(rule.annotations or {}) - _RULE_ANNOTATIONS
        code, message = _annotation(rule, "code"), _annotation(rule, "message")
        if code is None or message is None or extra:
            raise _fail(name, rule, "annotations are code, message and member")
        if rule.elseconditions is not None or rule.bidirectional or rule.open_world:
            raise _fail(name, rule, "else conditions and bidirectional rules are not translated")
        member = _annotation(rule, "member")
        at = "()" if member is None else f"({member!r},)"
        given = _expression(name, rule, rule.preconditions, given=True)
        then = _expression(name, rule, rule.postconditions, given=False)
        lines += [
            f"    # {rule.title}",
            f"    if {given} and not ({then}):",
            f"        breaches.append(RuleBreach({code!r}, {at}, rule_text({message!r}, self)))",
        ]
    lines += [
        "    return breaches",
        "",
        '@model_validator(mode="after")',
        f"def _rules(self, info: ValidationInfo) -> {name}:",
        "    return refuse_breaches(self, info)",
    ]
    return "\n".join(lines)
