"""The typed AP-1 routes: validate an input document, validate derivations, verify a seal.

The validation routes run the instrument's own loaders (the checks ``apconform
ap1 seal`` applies before it writes a seal), so a refused document lists every
violation with the AP-1 rule's code and path, status 422. Their answer names
the document type and the digest a seal records for the document.

Verifying a seal takes the seal record and the sealed inputs as they are now
and answers, as ``apconform ap1 verify-seal --json`` does, every mismatch;
a broken seal is an answer (``valid: false``), not an error.

Scoring a single execution record and re-scoring a transcript are in
:mod:`apconform.api.routes.ap1_scoring`; they refuse their inputs with the
same checks (:func:`check_ap1_inputs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from apconform.ap1.inputs.config import load_config
from apconform.ap1.inputs.derivations.checks import derivation_violations
from apconform.ap1.inputs.items import (
    load_fixture,
    load_questions,
    minimum_n_violations,
    question_violations,
)
from apconform.ap1.inputs.sealed import SEALED_NAMES, SealedInputs
from apconform.ap1.refusal import Ap1Refused
from apconform.ap1.seal.verify import verify_seal_documents
from apconform.api.typed import TypedRoute
from apconform.core.canonical import sha256_hex
from apconform.core.errors import DocumentRefused, Violation
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1DerivationSet, Ap1Fixture, Ap1QuestionSet, Ap1RunConfig
from apconform.models.api import (
    Ap1InputsReport,
    Ap1InputsRequest,
    Ap1SealVerification,
    Ap1SealVerificationRequest,
    ValidationReport,
)
from apconform.resources import data_path

__all__ = [
    "AP1_ROUTES",
    "check_ap1_inputs",
    "require_members",
    "small_ap1_inputs",
    "within_member",
]

_DOCUMENT = {name: f"ap1-{name}" for name in SEALED_NAMES}
"""Each sealed input's document type, as the answer names it."""


def _report(document: str, value: Any) -> dict[str, str]:
    return {"document": document, "sha256": sha256_hex(value)}


def _one(document: str, load: Callable[[Any], Any]) -> Callable[[Any], dict[str, str]]:
    def run(value: Any) -> dict[str, str]:
        load(value)
        return _report(document, value)

    return run


def _load_derivations(document: Any) -> Ap1DerivationSet:
    try:
        return validate_document(Ap1DerivationSet, document, what="derivation set")
    except DocumentRefused as refused:
        raise Ap1Refused(refused.violations, what="derivation set") from None


def within_member(member: str, violations: list[Violation]) -> list[Violation]:
    """Violations of one member document, with paths from the root of the request body."""
    return [replace(v, path=f"$.{member}{v.path[1:]}") for v in violations]


def require_members(value: Any, model: type[Any], what: str, members: tuple[str, ...]) -> None:
    """Refuse a body that lacks a member the route cannot do without, as its schema would."""
    if type(value) is not dict or any(name not in value for name in members):
        validate_document(model, value, what=what)


def check_ap1_inputs(value: Any) -> dict[str, Any]:
    """Every seal-time rule of the four input documents except the AP-1 text's hash."""
    require_members(value, Ap1InputsRequest, "AP-1 inputs", SEALED_NAMES)
    checks = (load_config, load_fixture, load_questions, _load_derivations)
    loaders: dict[str, Callable[[Any], Any]] = dict(zip(SEALED_NAMES, checks, strict=True))
    loaded: dict[str, Any] = {}
    problems: list[Violation] = []
    for name in SEALED_NAMES:
        try:
            loaded[name] = loaders[name](value[name])
        except DocumentRefused as refused:
            problems.extend(within_member(name, refused.violations))
    if not problems:
        config, fixture, questions = loaded["config"], loaded["fixture"], loaded["questions"]
        problems.extend(
            within_member("questions", list(question_violations(questions, fixture, config)))
        )
        problems.extend(within_member("config", list(minimum_n_violations(questions, config))))
        if not problems:
            found = derivation_violations(loaded["derivations"], questions, fixture, config)
            problems.extend(within_member("derivations", found))
    if problems:
        raise Ap1Refused(problems, what="AP-1 inputs")
    return {"documents": [_report(_DOCUMENT[name], value[name]) for name in SEALED_NAMES]}


def _verify_seal(value: dict[str, Any]) -> dict[str, Any]:
    findings = verify_seal_documents(value["seal"], value, trusted_keys=value.get("trustedKeys"))
    # without trustedKeys only the kit's published TEST key is trusted (a note says so)
    return {
        "valid": not any(f.fatal for f in findings),
        "findings": [f.to_dict() for f in findings],
    }


def _example(name: str) -> Any:
    from apconform.core.files import load_path

    return load_path(data_path("examples", "ap1", name))


def small_ap1_inputs() -> dict[str, Any]:
    """The worked example cut down to its first question (and claiming D7 only)."""
    config = _example("config-mock.json")
    config["dimensionsClaimed"] = ["D7"]
    questions = _example("questions.json")
    derivations = _example("derivations.json")
    first = questions["items"][0]["id"]
    questions["items"] = questions["items"][:1]
    derivations["derivations"] = [d for d in derivations["derivations"] if d["itemId"] == first]
    documents = SealedInputs(config, _example("fixture.json"), questions, derivations).documents()
    return dict(reversed(documents.items()))  # the members in the order the examples publish


_SEALED = "ap1-rpt-drop-ratio-undefined"
"""A vector whose input holds a seal and the inputs it sealed (the verify-seal example)."""


def _sealed_inputs() -> dict[str, Any]:
    from apconform.api.examples import vector_input

    document = vector_input(_SEALED)
    members = ("seal", *SEALED_NAMES, "ap1Text")
    return {name: document[name] for name in members}


_LOADER = (
    " The instrument's loader checks the body first; a refusal is a 422 problem listing every "
    "violation with its AP-1 rule code and path."
)

AP1_ROUTES = (
    TypedRoute(
        path="/v1/ap1/validate-config",
        operation_id="ap1_validate_config",
        tag="ap1",
        summary="Validate an AP-1 run configuration",
        description="Every check sealing applies to a configuration (quoted decimals, settings "
        "sent or declared omitted, no credentials, conditions differing in one quantity)."
        + _LOADER,
        body=Ap1RunConfig,
        answer=ValidationReport,
        run=_one("ap1-config", load_config),
        what="configuration",
        answer_description="The configuration passed; the digest a seal records for it.",
        examples=(("worked-example", lambda: _example("config-mock.json")),),
    ),
    TypedRoute(
        path="/v1/ap1/validate-fixture",
        operation_id="ap1_validate_fixture",
        tag="ap1",
        summary="Validate an AP-1 fixture",
        description="The schema, unique entity ids, unique field names per entity, and exactly "
        "one of amount or label per field." + _LOADER,
        body=Ap1Fixture,
        answer=ValidationReport,
        run=_one("ap1-fixture", load_fixture),
        what="fixture",
        answer_description="The fixture passed; the digest a seal records for it.",
        examples=(("worked-example", lambda: _example("fixture.json")),),
    ),
    TypedRoute(
        path="/v1/ap1/validate-questions",
        operation_id="ap1_validate_questions",
        tag="ap1",
        summary="Validate an AP-1 question set",
        description="The schema and unique item ids; the rules relating questions to a fixture "
        "and a configuration are checked by validate-derivations." + _LOADER,
        body=Ap1QuestionSet,
        answer=ValidationReport,
        run=_one("ap1-questions", load_questions),
        what="question set",
        answer_description="The question set passed; the digest a seal records for it.",
        examples=(("worked-example-first-item", lambda: small_ap1_inputs()["questions"]),),
    ),
    TypedRoute(
        path="/v1/ap1/validate-derivations",
        operation_id="ap1_validate_derivations",
        tag="ap1",
        summary="Validate AP-1 derivations against their questions, fixture and configuration",
        description="Every seal-time rule of the four input documents except the hash of the "
        "AP-1 text: each document on its own, the questions against the fixture and the "
        "configuration, the minimum item counts of the claimed dimensions, then every "
        "derivation (coverage, structure, evaluation to the expected value, and that every "
        "operand and constant matters). Violation paths start at the member they are in, "
        "e.g. $.derivations.derivations[0].final." + _LOADER,
        body=Ap1InputsRequest,
        answer=Ap1InputsReport,
        run=check_ap1_inputs,
        what="AP-1 inputs",
        answer_description="The inputs passed; the digest a seal records for each document.",
        examples=(("worked-example-first-item", small_ap1_inputs),),
    ),
    TypedRoute(
        path="/v1/ap1/verify-seal",
        operation_id="ap1_verify_seal",
        tag="ap1",
        summary="Verify a seal against the sealed inputs: name each mismatch",
        description="The HTTP form of `apconform ap1 verify-seal --json`: the seal record's own "
        "hash and signature, each input's digest, the AP-1 text's hash, the inputs against "
        "the seal's checks, the recorded rules and plan, and the instrument that sealed it. A "
        "seal that does not hold is answered 200 with valid false and every mismatch; 422 "
        "means the request itself breaks its schema (a seal record is required to meet its own).",
        body=Ap1SealVerificationRequest,
        answer=Ap1SealVerification,
        run=_verify_seal,
        what="seal verification request",
        check_first=True,
        volatile=True,
        answer_description="Whether the seal holds, with every finding.",
        examples=((f"{_SEALED}.sealed-inputs", _sealed_inputs),),
    ),
)
"""Every typed AP-1 route."""
