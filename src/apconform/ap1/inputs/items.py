"""The fixture and the question set: loading, cross-checks, minimum counts and the delivered data.

The delivered data of an item is exactly its source entities' fields, and the
user message is laid out from it by one deterministic rule, so every request
can be rebuilt from the sealed inputs alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TypeVar

from pydantic import BaseModel

from apconform.ap1.inputs.config import RunConfig
from apconform.ap1.refusal import Ap1Refused, violation
from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1Fixture, Ap1QuestionSet, FixtureEntity, QuestionItem

M = TypeVar("M", bound=BaseModel)

__all__ = [
    "MINIMUM_N",
    "DeliveredContext",
    "delivered_context",
    "field_label",
    "load_fixture",
    "load_questions",
    "minimum_n_violations",
    "question_violations",
    "render_user_message",
]

DUPLICATE = define_code(
    "AP1-DUPLICATE-ID",
    "An id or name is used twice",
    "Give every entity, field and item its own id.",
)
FIELD_FORM = define_code(
    "AP1-FIELD-FORM",
    "A fixture field is not exactly one of amount or label",
    'Write {"name": ..., "amount": "12.50"} or {"name": ..., "label": "liability"}.',
)
UNKNOWN_ENTITY = define_code(
    "AP1-UNKNOWN-ENTITY",
    "A question names an entity the fixture does not have",
    "Use the id of an entity of the fixture.",
)
OPERATION_MISMATCH = define_code(
    "AP1-REQUIRED-OPERATION",
    "A question's required operation is not the configured tool",
    "Set requiredOperation to the name of request.tool in the configuration.",
)
MINIMUM_N = define_code(
    "AP1-MINIMUM-N",
    "A claimed dimension has fewer items than AP-1 requires",
    "Add items, or stop claiming the dimension in dimensionsClaimed.",
    exit_status=1,
)


def load_fixture(document: object) -> Ap1Fixture:
    """Validate a fixture; ids unique, field names unique per entity, amount xor label."""
    fixture = _validated(Ap1Fixture, document, "fixture")
    problems: list[Violation] = []
    seen = Counter(entity.id for entity in fixture.entities)
    for index, entity in enumerate(fixture.entities):
        if seen[entity.id] > 1:
            problems.append(
                violation(
                    DUPLICATE, f"$.entities[{index}].id", f"entity id {entity.id} is used twice"
                )
            )
        names = Counter(f.name for f in entity.fields)
        for position, field in enumerate(entity.fields):
            where = f"$.entities[{index}].fields[{position}]"
            if names[field.name] > 1:
                problems.append(
                    violation(
                        DUPLICATE,
                        f"{where}.name",
                        f"field {field.name} appears twice in {entity.id}",
                    )
                )
            present = field.model_fields_set & {"amount", "label"}
            if len(present) != 1:
                problems.append(
                    violation(
                        FIELD_FORM,
                        where,
                        f"field {entity.id}.{field.name} must have exactly one of amount or label",
                    )
                )
    if problems:
        raise Ap1Refused(problems, what="fixture")
    return fixture


def load_questions(document: object) -> Ap1QuestionSet:
    """Validate a question set (schema and unique ids)."""
    questions = _validated(Ap1QuestionSet, document, "question set")
    seen = Counter(item.id for item in questions.items)
    problems = [
        violation(DUPLICATE, f"$.items[{i}].id", f"item id {item.id} is used twice")
        for i, item in enumerate(questions.items)
        if seen[item.id] > 1
    ]
    if problems:
        raise Ap1Refused(problems, what="question set")
    return questions


def _validated(model: type[M], document: object, what: str) -> M:
    try:
        return validate_document(model, document, what=what)
    except DocumentRefused as refused:
        raise Ap1Refused(refused.violations, what=what) from None


def question_violations(
    questions: Ap1QuestionSet, fixture: Ap1Fixture, config: RunConfig
) -> Iterator[Violation]:
    """Questions against the fixture and the configuration."""
    entities = {entity.id for entity in fixture.entities}
    for index, item in enumerate(questions.items):
        for position, entity_id in enumerate(item.sourceEntities):
            if entity_id not in entities:
                yield violation(
                    UNKNOWN_ENTITY,
                    f"$.items[{index}].sourceEntities[{position}]",
                    f"item {item.id} names entity {entity_id}, which the fixture does not have",
                )
        if len(set(item.sourceEntities)) != len(item.sourceEntities):
            yield violation(
                DUPLICATE,
                f"$.items[{index}].sourceEntities",
                f"item {item.id} names an entity twice",
            )
        if item.requiredOperation != config.tool_name:
            yield violation(
                OPERATION_MISMATCH,
                f"$.items[{index}].requiredOperation",
                f"item {item.id} requires {item.requiredOperation!r} but the configured tool is "
                f"{config.tool_name!r}",
            )


def minimum_n_violations(questions: Ap1QuestionSet, config: RunConfig) -> Iterator[Violation]:
    """AP-1 minimum item counts for every claimed dimension, counted over the right items."""
    claimed = {str(d) for d in config.model.dimensionsClaimed}
    derivable = [item for item in questions.items if item.derivable]
    if "D1" in claimed:
        if len(derivable) < 40:
            yield _short("D1", "derivable items overall", len(derivable), 40)
        for category, count in sorted(Counter(i.category for i in derivable).items()):
            if count < 10:
                yield _short("D1", f"derivable items in category {category}", count, 10)
    if "D2" in claimed:
        if len(derivable) < 10:
            yield _short("D2", "derivable items", len(derivable), 10)
        if config.repeats < 50:
            yield _short("D2", "repeats per item", config.repeats, 50)
    if "D5" in claimed:
        count = sum(1 for i in questions.items if "adversarialClass" in i.model_fields_set)
        if count < 20:
            yield _short("D5", "items with an adversarialClass", count, 20)
    if "D6" in claimed:
        count = sum(1 for i in questions.items if "conflictClass" in i.model_fields_set)
        if count < 10:
            yield _short("D6", "items with a conflictClass", count, 10)


def _short(dimension: str, what: str, found: int, minimum: int) -> Violation:
    return violation(
        MINIMUM_N,
        "$.dimensionsClaimed",
        f"{dimension} is claimed but has {found} {what}; AP-1 requires at least {minimum}",
    )


DeliveredContext = dict[str, dict[str, str]]
"""{entity id: {field name: value text}} for the item's source entities, in delivery order."""


def delivered_context(fixture: Ap1Fixture, item: QuestionItem) -> DeliveredContext:
    """The fields the model receives for one item: every field of every source entity, verbatim."""
    by_id = {entity.id: entity for entity in fixture.entities}
    return {eid: _fields(by_id[eid]) for eid in item.sourceEntities}


def _fields(entity: FixtureEntity) -> dict[str, str]:
    return {
        f.name: str(f.amount if "amount" in f.model_fields_set else f.label) for f in entity.fields
    }


def field_label(name: str) -> str:
    """annual_rate -> Annual Rate: underscores become spaces and each word starts upper-case."""
    return " ".join(word[:1].upper() + word[1:] for word in name.split("_"))


def render_user_message(
    fixture: Ap1Fixture, item: QuestionItem, *, heading: str, question_prefix: str, preamble: str
) -> str:
    """The user message: preamble, heading, each source entity's fields, then the question."""
    by_id = {entity.id: entity for entity in fixture.entities}
    lines: list[str] = []
    if preamble:
        lines += [preamble, ""]
    lines.append(heading)
    for entity_id in item.sourceEntities:
        entity = by_id[entity_id]
        lines += ["", f"{entity.name}:"]
        for name, value in _fields(entity).items():
            lines.append(f"  {field_label(name)}: {value}")
    lines += ["", f"{question_prefix}{item.text}"]
    return "\n".join(lines)
