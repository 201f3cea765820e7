"""Examples for the OpenAPI document: real vector inputs and the reference implementation's answers.

Every request example is an input some vector sends (or a document some vector
or example file carries), and every response example is what this server
answers to that very request, computed by running the reference
implementation when the document is built. So an example can never drift from
the behaviour it shows: a test posts each request example to a live server and
compares the status and body.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from apconform.api.problems import problem_document
from apconform.core.errors import ApconformError

if TYPE_CHECKING:
    from apconform.conformance.vectors import LoadedVector
    from apconform.models.conformance import Vector

__all__ = [
    "EXAMPLE_REQUEST_ID",
    "VOLATILE_OPERATIONS",
    "XFAIL_EXAMPLE",
    "RouteExamples",
    "answer_examples",
    "document_example",
    "operation_examples",
    "shipped_vectors",
    "vector_document",
    "vector_input",
]

EXAMPLE_REQUEST_ID = "example"
"""The request id shown in example problem documents (a real answer carries the request's own)."""


@dataclass(frozen=True)
class RouteExamples:
    """A route's named request examples and, per status, the answers to them."""

    requests: dict[str, Any] = field(default_factory=dict)
    responses: dict[int, dict[str, Any]] = field(default_factory=dict)


def answer_examples(requests: dict[str, Any], answer: Callable[[Any], Any]) -> RouteExamples:
    """Run ``answer`` on each request example: its answer under 200, a refusal under its status."""
    responses: dict[int, dict[str, Any]] = {}
    for name, value in requests.items():
        try:
            status, body = 200, answer(value)
        except ApconformError as error:
            body = problem_document(error, EXAMPLE_REQUEST_ID)
            status = int(body["status"])
        responses.setdefault(status, {})[name] = body
    return RouteExamples(requests=dict(requests), responses=responses)


@cache
def _loaded() -> tuple[LoadedVector, ...]:
    from apconform.conformance.vectors import load_vectors

    return tuple(load_vectors())


def shipped_vectors() -> tuple[LoadedVector, ...]:
    """Every vector the kit ships, loaded once (not verified: the data may be mid-edit)."""
    return _loaded()


@cache
def _vectors() -> dict[str, Any]:
    return {item.id: item.vector for item in _loaded()}


def loaded_vector(vector_id: str) -> LoadedVector:
    """The loaded vector with this id, with its message rule (a KeyError names an unknown id)."""
    return _by_id()[vector_id]


@cache
def _by_id() -> dict[str, LoadedVector]:
    return {item.id: item for item in _loaded()}


def vector_document(vector_id: str) -> Vector:
    """The vector with this id, as the kit ships it (a KeyError names an id no vector has)."""
    vector: Vector = _vectors()[vector_id]
    return vector


def vector_input(vector_id: str) -> Any:
    """The input of the vector with this id (a KeyError names an id no vector has)."""
    return _vectors()[vector_id].input


@cache
def _chosen_vectors() -> dict[str, str]:
    """Per operation, the id of its smallest acceptance vector (a refusal vector if it has none).

    Smallest by the size of the canonical input, ties broken by id, so the choice is stable.
    """
    from apconform.core.canonical import canonical_text

    found: dict[str, tuple[bool, int, str]] = {}
    for vid, vector in _vectors().items():
        key = (vector.expected.kind == "refusal", len(canonical_text(vector.input)), vid)
        known = found.get(vector.operation)
        if known is None or key < known:
            found[vector.operation] = key
    return {name: key[2] for name, key in found.items()}


VOLATILE_OPERATIONS: frozenset[str] = frozenset()
"""Operations whose answer names the digest of the instrument's own source code (``ap1/**`` and
``core/**``), which changes with every change to it: their request examples are documented, not
the answers to them (the committed document would otherwise change with every edit of the AP-1
or core code). None today: ``ap1.seal_record`` records the instrument its input names, and
``ap1.rescore`` names only the scorer's digest, over the scoring code alone, as the score report
examples do."""

_BORROWED = {"ap1.classify_operation": "ap1.score_calls"}
"""Operations without vectors of their own, and the operation whose vector input they take
(ap1.classify_operation is the D7.2(b) part of ap1.score_calls, on the same input)."""


def operation_examples(name: str) -> RouteExamples:
    """The request example of operation ``name`` (a vector's input) and the answer to it."""
    from apconform.conformance.operations import get_operation

    vid = _chosen_vectors().get(_BORROWED.get(name, name))
    if vid is None:
        return RouteExamples()
    requests = {vid: _vectors()[vid].input}
    if name in VOLATILE_OPERATIONS:
        return RouteExamples(requests=requests)
    return answer_examples(requests, get_operation(name))


def _pointer(value: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


_FROM_VECTOR: dict[str, tuple[str, str]] = {
    "ap1-config": ("ap1-config-platform-omission-with-detail", "/config"),
    "ap1-derivations": ("ap1-derivation-constant-final", "/derivations"),
    "ap1-fixture": ("ap1-adj-nothing-routed", "/fixture"),
    "ap1-questions": ("ap1-questions-operation-not-the-tool", "/questions"),
    "ap1-reference-verdict": ("ap1-imp-compare-documented-defect", "/verdict"),
    "ap1-seal": ("ap1-rpt-drop-ratio-undefined", "/seal"),
    "ap1-transcript-head": ("ap1-transcript-unfinished-tail", "/head"),
    "ap1-transcript-record": ("ap1-adj-nothing-routed", "/records/5"),
    "apx-comparison": ("apx-promote-four-pairs", "/comparison"),
    "apx-evaluation-request": ("apx-eval-cost-per-hour-below-one-hour", ""),
    "apx-ext-population": ("apx-ext-population-document-valid", "/document"),
    "apx-ext-population-request": ("apx-ext-population-seed-20261130", ""),
    "apx-ext-power": ("apx-ext-power-document-valid", "/document"),
    "apx-ext-power-request": ("apx-ext-power-plan", ""),
    "apx-ext-preregistration": ("apx-ext-prereg-check", "/preregistration"),
    "apx-manifest": ("apx-eval-cost-per-hour-below-one-hour", "/manifest"),
    "apx-promotion": ("apx-claim-promotion-valid", "/document"),
    "apx-promotion-request": ("apx-promote-four-pairs", ""),
    "apx-result": ("apx-claim-result-valid", "/document"),
    "apx-run": ("apx-eval-cost-per-hour-below-one-hour", "/run"),
    "vector": ("kit-vec-id-differs", "/vector"),
}
"""Document type -> (vector id, JSON pointer into the vector's input) of a valid instance."""

_FROM_ANSWER: dict[str, tuple[str, str]] = {
    "ap1-adjudication": ("ap1.merge_adjudication", ""),
    "ap1-execution-score": ("ap1.score_execution", ""),
}
"""Document type -> (operation, JSON pointer into the answer to its example) of a valid instance."""


def _adapter_messages() -> dict[str, tuple[str, Any]]:
    """The adapter protocol's messages for the check example's vector, and the reference's
    replies (what ``apconform check`` sends to and reads from an implementation)."""
    from apconform.conformance.protocol import run_message, start_message, stop_message
    from apconform.conformance.reference import describe, run_case

    vid = "kit-jcs-negative-zero"
    vector = _vectors()[vid]
    return {
        "adapter-start": ("start", start_message()),
        "adapter-started": ("reference-started", describe()),
        "adapter-run": (f"run-{vid}", run_message(1, vector.operation, vector.input)),
        "adapter-answer": (
            f"reference-answer-{vid}",
            run_case(1, vector.operation, vector.input),
        ),
        "adapter-stop": ("stop", stop_message()),
    }


def _shipped(document: str) -> tuple[str, Any] | None:
    """The kit's own clause registry, vector manifest and release history, cut to their first
    entries."""
    from apconform.core.files import load_path
    from apconform.resources import data_path

    if document == "clause-registry":
        registry = load_path(data_path("spec", "clauses.json"))
        registry["clauses"] = registry["clauses"][:2]
        return "spec-clauses-first-two", registry
    if document == "vector-manifest":
        manifest = load_path(data_path("vectors", "MANIFEST.json"))
        manifest["files"] = manifest["files"][:2]
        manifest["schemas"] = manifest["schemas"][:2]
        manifest["expectations"]["vectors"] = manifest["expectations"]["vectors"][:2]
        manifest["expectations"]["clauses"] = manifest["expectations"]["clauses"][:2]
        # the signature stays as shipped: it signs the whole manifest, so it does not verify
        # for this cut, which the validation route (the schema alone) does not check
        return "vectors-manifest-first-entries", manifest
    if document == "vector-releases":
        releases = load_path(data_path("vectors", "RELEASES.json"))
        releases["state"]["vectors"] = releases["state"]["vectors"][:2]
        releases["state"]["clauses"] = releases["state"]["clauses"][:2]
        return "vectors-releases-first-state-entries", releases
    return None


_BADGE_VECTORS = ("kit-jcs-negative-zero", "kit-vec-id-differs")
"""The kit vectors whose check of the reference implementation gives the badge example."""


@cache
def _reference_badge() -> dict[str, Any]:
    """The kit badge of the reference implementation checked on ``_BADGE_VECTORS``.

    The cases are run and summarised as ``apconform check --only`` does, but without verifying
    the vector manifest: the document is generated while vectors or schemas may be mid-edit,
    before the manifest is signed again. A badge holds counts and the verdict only, so it is
    the same on every run (the report records around it carry times and are not examples).
    """
    from apconform.conformance.adapters.targets import open_adapter
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.reports.junit import render_badges
    from apconform.conformance.runner import CheckOptions, case_record
    from apconform.conformance.summary import summarize
    from apconform.conformance.xfail import ExpectedFailures
    from apconform.resources import data_path

    options = CheckOptions(impl="direct:apconform.conformance.reference:adapter", only=[])
    clauses = load_clause_registry()
    chosen = [item for item in _loaded() if item.id in _BADGE_VECTORS]
    target = open_adapter(options.impl)
    implementation = target.start(options.timeout, sorted({v.vector.operation for v in chosen}))
    try:
        cases = [
            case_record(
                seq,
                vector,
                data_path("vectors"),
                clauses,
                options,
                ExpectedFailures({}),
                target.run(seq, vector.vector.operation, vector.vector.input, options.timeout),
                0.0,  # the cases are only summarised: their durations reach no example
            )
            for seq, vector in enumerate(chosen, start=1)
        ]
    finally:
        stop = target.stop()
    footer = summarize(
        cases, ["kit"], clauses, complete=False, supported=implementation.operations, stop=stop
    )
    header = {"record": "header", "selection": {"protocols": ["kit"], "complete": False}}
    return render_badges([header, footer])["kit"]  # a partial run: orange, never green


XFAIL_EXAMPLE = {
    "schemaVersion": "apconform-xfail/1",
    "entries": [
        {
            "id": "kit-jcs-negative-zero",
            "reason": "example entry: the vector (or clause) the implementation fails today, "
            "and why",
        }
    ],
}
"""The smallest useful expected-failures list: one entry, naming a real vector."""


def _produced(document: str) -> tuple[str, Any] | None:
    """Instances the kit's own code produces from its data when the document is built."""
    if document == "badge":
        return f"reference-kit-badge-{len(_BADGE_VECTORS)}-vectors", _reference_badge()
    if document == "xfail-list":
        return "one-entry", XFAIL_EXAMPLE
    return None


def document_example(document: str) -> tuple[str, Any] | None:
    """A real instance of a document type, named after where it comes from; None if none is known.

    Instances are taken from a vector's input, from the reference implementation's answer to an
    operation's example, from the adapter messages of a vector's case, from the kit's own
    clause registry and vector manifest (cut to their first entries), or produced by the kit's
    code from its data (a badge of the reference implementation, a ledger submission of a
    vector's APx result, a one-entry expected-failures list). Documents that carry a time or a
    signature come from :func:`apconform.api.example_runs.run_example` instead.
    """
    if document in _FROM_VECTOR:
        vid, pointer = _FROM_VECTOR[document]
        return f"{vid}{pointer.replace('/', '.')}", _pointer(_vectors()[vid].input, pointer)
    if document in _FROM_ANSWER:
        name, pointer = _FROM_ANSWER[document]
        examples = operation_examples(name)
        (vid, answer), *_ = examples.responses[200].items()
        return f"answer-to-{vid}{pointer.replace('/', '.')}", _pointer(answer, pointer)
    adapter = _adapter_messages()
    if document in adapter:
        return adapter[document]
    return _shipped(document) or _produced(document)
