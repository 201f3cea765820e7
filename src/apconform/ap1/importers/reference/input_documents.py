"""The kit's input documents (parts of them), as the import converts the reference's into.

Schema classes Ap1Fixture (with FixtureEntity and EntityField), Ap1QuestionSet
(with QuestionItem) and the configuration's settings (DecimalSetting and its
siblings): plain dicts at run time, built key by key in the order the import
has always written them; the run inputs' loader validates them against the
schema when the run is sealed.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

__all__ = [
    "EntityFieldDocument",
    "FixtureDocument",
    "FixtureEntityDocument",
    "QuestionItemDocument",
    "QuestionSetDocument",
    "SettingDocument",
]


class EntityFieldDocument(TypedDict):
    """One field of an entity: exactly one of amount (a magnitude) or label."""

    name: str
    amount: NotRequired[str]
    label: NotRequired[str]


class FixtureEntityDocument(TypedDict):
    """One entity (an account) with its fields in delivery order."""

    id: str
    name: str
    fields: list[EntityFieldDocument]


class FixtureDocument(TypedDict):
    """A fixture: the entities the model is given."""

    schemaVersion: str
    fixtureId: str
    domain: str
    description: str
    amountConvention: str
    entities: list[FixtureEntityDocument]


class QuestionItemDocument(TypedDict):
    """One question item (the import never writes the adversarial or conflict classes)."""

    id: str
    category: str
    text: str
    requiredOperation: str
    sourceEntities: list[str]
    steps: str
    expectedValue: NotRequired[str]
    derivable: bool
    adversarialClass: NotRequired[str]
    conflictClass: NotRequired[str]


class QuestionSetDocument(TypedDict):
    """A question set."""

    schemaVersion: str
    questionSetId: str
    items: list[QuestionItemDocument]


class SettingDocument(TypedDict, total=False):
    """A configuration setting (a sampling parameter, the tool choice): sent, or omitted with
    the reason and perhaps a detail."""

    omit: str
    detail: str
    send: str
