"""The run's inputs as one checked bundle, and the ordered plan of cells they imply.

A cell is one (condition, item, repeat). Derivable items get every repeat
under both conditions; an underivable item gets one VOID cell per condition
and no request. The plan's hash is sealed, so a resumed run can prove it is
completing the same plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apconform.ap1.inputs.config import RunConfig, load_config
from apconform.ap1.inputs.derivations.checks import derivation_violations
from apconform.ap1.inputs.items import (
    load_fixture,
    load_questions,
    minimum_n_violations,
    question_violations,
)
from apconform.ap1.inputs.sealed import SealedInputs
from apconform.ap1.refusal import Ap1Refused, violation
from apconform.core.canonical import sha256_hex, sha256_text
from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.validation import validate_document
from apconform.models.ap1 import (
    Ap1DerivationSet,
    Ap1Fixture,
    Ap1QuestionSet,
    ItemDerivation,
    QuestionItem,
)

__all__ = [
    "CONDITIONS",
    "Cell",
    "RunInputs",
    "load_run_inputs",
    "load_sealed_inputs",
    "plan_cells",
    "plan_digest",
    "plan_groups",
]

CONDITIONS = ("base", "instruction-removed")

TEXT_MISMATCH = define_code(
    "AP1-SEAL-TEXT-MISMATCH",
    "The AP-1 text does not have the hash the configuration declares",
    "Seal against the text whose hash is in ap1.textSha256 (apconform hash --text FILE), "
    "or correct the declared hash; there is no placeholder that skips this check.",
    exit_status=1,
)


@dataclass(frozen=True)
class Cell:
    """One planned record of the transcript."""

    condition: str
    item_id: str
    repeat: int
    void: bool = False

    @property
    def key(self) -> str:
        return f"{self.condition}/{self.item_id}/{self.repeat}"


@dataclass(frozen=True)
class RunInputs:
    """Every sealed input, validated and cross-checked."""

    config: RunConfig
    fixture: Ap1Fixture
    questions: Ap1QuestionSet
    derivations: Ap1DerivationSet
    documents: dict[str, object]
    """The four sealed JSON documents as read, by name."""
    ap1_text: str
    items: dict[str, QuestionItem] = field(default_factory=dict)
    derivation_of: dict[str, ItemDerivation] = field(default_factory=dict)


def _derivation_set(document: object) -> Ap1DerivationSet:
    try:
        return validate_document(Ap1DerivationSet, document, what="derivation set")
    except DocumentRefused as refused:
        raise Ap1Refused(refused.violations, what="derivation set") from None


def load_sealed_inputs(sealed: SealedInputs) -> RunInputs:
    """:func:`load_run_inputs` of a :class:`SealedInputs`."""
    return load_run_inputs(**sealed.documents(), ap1_text=sealed.ap1_text)


def load_run_inputs(
    *,
    config: object,
    fixture: object,
    questions: object,
    derivations: object,
    ap1_text: str | None,
) -> RunInputs:
    """Validate each document, then every rule across them; raise Ap1Refused listing all faults.

    ``ap1_text`` None skips only the AP-1 text check (for scoring, which reads no text).
    """
    run_config = load_config(config)
    fixture_model = load_fixture(fixture)
    question_set = load_questions(questions)
    derivation_set = _derivation_set(derivations)
    problems: list[Violation] = []
    problems.extend(question_violations(question_set, fixture_model, run_config))
    problems.extend(minimum_n_violations(question_set, run_config))
    if not problems:
        problems.extend(
            derivation_violations(derivation_set, question_set, fixture_model, run_config)
        )
    declared = run_config.model.ap1.textSha256
    actual = declared if ap1_text is None else sha256_text(ap1_text)
    if actual != declared:
        problems.append(
            violation(
                TEXT_MISMATCH,
                "$.ap1.textSha256",
                f"the AP-1 text hashes to {actual} (sha256-utf8-lf) but the configuration "
                f"declares {declared}",
            )
        )
    if problems:
        raise Ap1Refused(problems, what="run inputs")
    return RunInputs(
        config=run_config,
        fixture=fixture_model,
        questions=question_set,
        derivations=derivation_set,
        documents=SealedInputs(config, fixture, questions, derivations).documents(),
        ap1_text=ap1_text or "",
        items={item.id: item for item in question_set.items},
        derivation_of={d.itemId: d for d in derivation_set.derivations},
    )


def plan_groups(inputs: RunInputs) -> list[tuple[str, str, int, bool]]:
    """The plan in runs of one condition and item: (condition, item id, repeats, void).

    ``plan_cells`` is these runs spelled out, repeat 1 to ``repeats`` each; a
    large plan can be indexed from them without a million cell objects.
    """
    groups: list[tuple[str, str, int, bool]] = []
    for condition in CONDITIONS:
        for item in inputs.questions.items:
            if item.derivable:
                groups.append((condition, item.id, inputs.config.repeats, False))
            else:
                groups.append((condition, item.id, 1, True))
    return groups


def plan_cells(inputs: RunInputs) -> list[Cell]:
    """Every cell in execution order: condition, then item, then repeat."""
    return [
        Cell(condition, item_id, r, void=True) if void else Cell(condition, item_id, r)
        for condition, item_id, repeats, void in plan_groups(inputs)
        for r in range(1, repeats + 1)
    ]


def plan_digest(cells: list[Cell]) -> str:
    """SHA-256 of the RFC 8785 bytes of the ordered list of cell keys."""
    return sha256_hex([cell.key for cell in cells])
