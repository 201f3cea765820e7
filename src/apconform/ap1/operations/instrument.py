"""The AP-1 operations vectors exercise, each a thin call into the instrument's library.

Each takes the vector's input and returns a JSON answer, or raises an
:class:`~apconform.core.errors.ApconformError` whose code is the refusal.
Inputs that carry whole run inputs use the members ``config``, ``fixture``,
``questions``, ``derivations`` and ``ap1Text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TypeVar, overload

from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.inputs.conditions import condition_differences
from apconform.ap1.inputs.config import load_config
from apconform.ap1.inputs.derivations.checks import derivation_violations
from apconform.ap1.inputs.derivations.evaluation import evaluate
from apconform.ap1.inputs.items import (
    UNKNOWN_ENTITY,
    delivered_context,
    load_fixture,
    question_violations,
    render_user_message,
)
from apconform.ap1.inputs.plan import RunInputs, load_sealed_inputs, plan_cells, plan_digest
from apconform.ap1.inputs.sealed import SEALED_NAMES, SealedInputs
from apconform.ap1.masking import mask_text
from apconform.ap1.operations.answers import (
    AnchorAnswer,
    CellPlan,
    ConfigAnswer,
    Deferral,
    Evaluation,
    Findings,
    KeyTransport,
    MaskedText,
    RenderedRequest,
    ResponseShape,
    SealHashCheck,
    TextDigest,
    ToolOutcome,
    TranscriptAnswer,
)
from apconform.ap1.operations.vector_inputs import RUN_DOCUMENTS
from apconform.ap1.run.credentials import credential_transport
from apconform.ap1.run.request import build_body
from apconform.ap1.run.retry import RetryPolicy, simulate
from apconform.ap1.run.scripted import run_scripted
from apconform.ap1.run.shapes import classify_shape, echoed_sampling
from apconform.ap1.run.toolcall import run_tool_call
from apconform.ap1.run.wire import parse_body
from apconform.ap1.seal.build import build_seal, composite_hash
from apconform.ap1.seal.reference import reference_seal_hashes
from apconform.ap1.transcript.deferral import endpoint_failure
from apconform.ap1.transcript.verdict import verify_run
from apconform.ap1.transcript.verify import verify_transcript_bytes
from apconform.conformance.operations import BAD_OPERATION_INPUT, operation
from apconform.core.canonical import TEXT_HASH_METHOD, sha256_bytes, sha256_text
from apconform.core.errors import ApconformError
from apconform.core.validation import validate_document
from apconform.models.ap1 import (
    Ap1DerivationSet,
    Ap1QuestionSet,
    Ap1TranscriptHead,
    TransportPolicy,
)

__all__: list[str] = []

_RUN = RUN_DOCUMENTS
T = TypeVar("T")


@overload
def _member(value: object, name: str) -> object: ...
@overload
def _member(value: object, name: str, kind: type[T]) -> T: ...
def _member(value: object, name: str, kind: type[T] | None = None) -> T | object:
    """The input's member ``name`` (checked to be a ``kind`` when one is given), or a refusal."""
    if not isinstance(value, dict) or name not in value:
        raise ApconformError(
            BAD_OPERATION_INPUT, f"the input needs a member {name!r}", path=f"$.{name}"
        )
    found: object = value[name]
    if kind is None:
        return found
    if not isinstance(found, kind):
        raise ApconformError(
            BAD_OPERATION_INPUT, f"{name} must be a JSON {kind.__name__}", path=f"$.{name}"
        )
    return found


def _item_id(value: object, inputs: RunInputs) -> str:
    """The input's "itemId", refused (not a KeyError) when the question set has no such item."""
    item_id = _member(value, "itemId", str)
    if item_id not in inputs.items or item_id not in inputs.derivation_of:
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"the question set has no item {item_id!r}",
            path="$.itemId",
            hint="Name an item of the questions document: " + ", ".join(sorted(inputs.items)),
        )
    return item_id


def _inputs(value: object) -> RunInputs:
    documents = {name: _member(value, name) for name in SEALED_NAMES}
    text = _member(value, "ap1Text", str)
    return load_sealed_inputs(SealedInputs.from_documents(documents, text))


@operation("ap1.reference_seal_hashes")
def reference_seal_hashes_op(value: object) -> Mapping[str, object]:
    """Input {"config", "sealRecord"} as printed in a reference report; answer both hashes."""
    return reference_seal_hashes(_member(value, "config"), _member(value, "sealRecord"))


@operation("ap1.load_config", inputs={"/config": "ap1-config"})
def load_config_op(value: object) -> ConfigAnswer:
    """Input {"config"}; answer the settings as sent under each condition and their differences."""
    config = load_config(_member(value, "config"))
    base, removed = config.condition("base"), config.condition("instruction-removed")
    model = config.model.endpoint.model
    return {
        "valid": True,
        "conditionDifferences": condition_differences(base, removed),
        "samplingAsSent": build_body(model, [], base)[1],
        "quantisation": {"places": str(config.places), "rounding": config.rounding},
    }


@operation("ap1.check_inputs", inputs=_RUN)
def check_inputs_op(value: object) -> CellPlan:
    """Input: the run inputs; answer every cell key and the plan hash once all checks pass."""
    inputs = _inputs(value)
    cells = plan_cells(inputs)
    return {
        "valid": True,
        "cells": [c.key + (" VOID" if c.void else "") for c in cells],
        "planSha256": plan_digest(cells),
    }


@operation("ap1.derivation_findings", inputs=_RUN)
def derivation_findings_op(value: object) -> Findings:
    """Input: the run inputs; answer every seal-time derivation finding (code and message)."""
    config = load_config(_member(value, "config"))
    fixture = load_fixture(_member(value, "fixture"))
    questions = Ap1QuestionSet.model_validate(_member(value, "questions"))
    derivations = Ap1DerivationSet.model_validate(_member(value, "derivations"))
    # Derivations are read against the entities their questions name: a question naming
    # an entity the fixture lacks is the finding then, not a crash further on.
    unknown = [
        v for v in question_violations(questions, fixture, config) if v.code == UNKNOWN_ENTITY.code
    ]
    found = unknown or derivation_violations(derivations, questions, fixture, config)
    return {"violations": [{"code": v.code, "message": v.message} for v in found]}


@operation("ap1.evaluate_derivation", inputs=_RUN)
def evaluate_derivation_op(value: object) -> Evaluation:
    """Input: the run inputs and "itemId"; answer the intermediates, the final, the reads."""
    inputs = _inputs(value)
    item_id = _item_id(value, inputs)
    result = evaluate(
        inputs.derivation_of[item_id], delivered_context(inputs.fixture, inputs.items[item_id])
    )
    return {
        "intermediates": [{"label": label, "value": str(v)} for label, v in result.intermediates],
        "final": str(result.final),
        "reads": sorted(result.reads),
    }


@operation("ap1.seal_record", inputs=_RUN)
def seal_record_op(value: object) -> Mapping[str, object]:
    """Input: run inputs, "instrument" {version, sourceSha256}, "sealedAt"; answer the record."""
    record = build_seal(_inputs(value), sealed_at=_member(value, "sealedAt", str))
    instrument = _member(value, "instrument", dict)
    record["instrument"].update(
        version=instrument["version"], sourceSha256=instrument["sourceSha256"]
    )
    record["sealHash"] = composite_hash(record)
    return record


@operation("ap1.seal_hash", inputs={"/record": "ap1-seal"})
def seal_hash_op(value: object) -> SealHashCheck:
    """Input {"record"}; answer the recomputed composite hash and whether the record's matches."""
    record = _member(value, "record", dict)
    recomputed = composite_hash(record)
    return {"sealHash": recomputed, "matches": recomputed == record.get("sealHash")}


@operation("ap1.hash_text")
def hash_text_op(value: object) -> TextDigest:
    """Input {"text"}; answer the sha256-utf8-lf digest."""
    return {"sha256": sha256_text(_member(value, "text", str)), "method": TEXT_HASH_METHOD}


@operation("ap1.calculate")
def calculate_op(value: object) -> object:
    """Input {"expression", "rounding"}; answer the tool message the model receives, parsed."""
    calculator = Calculator(_member(value, "rounding", str))
    return parse_body(calculator(_member(value, "expression", str)).tool_content.encode())


@operation("ap1.tool_call")
def tool_call_op(value: object) -> ToolOutcome:
    """Input {"name", "arguments", "toolName", "argumentName", "rounding"}; answer the outcome."""
    outcome = run_tool_call(
        _member(value, "name", str),
        _member(value, "arguments", str),
        tool_name=_member(value, "toolName", str),
        argument_name=_member(value, "argumentName", str),
        calculator=Calculator(_member(value, "rounding", str)),
    )
    return {"outcome": outcome.outcome, "content": outcome.content}


@operation("ap1.render_request", inputs=_RUN)
def render_request_op(value: object) -> RenderedRequest:
    """Input: the run inputs, "itemId" and "condition"; answer the first request of that cell."""
    inputs = _inputs(value)
    item = inputs.items[_item_id(value, inputs)]
    view = inputs.config.condition(_member(value, "condition", str))
    layout = inputs.config.model.request.message
    user = render_user_message(
        inputs.fixture,
        item,
        heading=layout.contextHeading,
        question_prefix=layout.questionPrefix,
        preamble=view.user_preamble,
    )
    from apconform.ap1.run.request import initial_messages

    body, sampling = build_body(
        inputs.config.model.endpoint.model, initial_messages(view, user), view
    )
    return {
        "userMessage": user,
        "bodyText": body,
        "bodySha256": sha256_bytes(body.encode("utf-8")),
        "bodyMembers": list(parse_body(body.encode())),
        "samplingAsSent": sampling,
    }


@operation("ap1.retry_schedule")
def retry_schedule_op(value: object) -> dict[str, object]:
    """Input {"transport", "attempts": [{"outcome", "retryAfter"?}]}; answer the course."""
    policy = RetryPolicy.from_model(
        TransportPolicy.model_validate(_member(value, "transport", dict))
    )
    attempts = [
        (a["outcome"], Decimal(a["retryAfter"]) if "retryAfter" in a else None)
        for a in _member(value, "attempts", list)
    ]
    return simulate(policy, attempts)


@operation("ap1.classify_response")
def classify_response_op(value: object) -> ResponseShape:
    """Input {"bodyText"}; answer the shape, its detail and the echoed sampling parameters."""
    body = parse_body(_member(value, "bodyText", str).encode("utf-8"))
    shape, detail = classify_shape(body)
    return {"shape": shape, "detail": detail, "samplingEchoed": echoed_sampling(body)}


@operation("ap1.mask")
def mask_op(value: object) -> MaskedText:
    """Input {"text", "secrets"}; answer the text as it may be stored or printed."""
    return {"text": mask_text(_member(value, "text", str), _member(value, "secrets", list))}


@operation("ap1.tool_loop", inputs=_RUN)
def tool_loop_op(value: object) -> Mapping[str, object]:
    """Input: the run inputs, "itemId", "condition" and "responses" (the endpoint's script)."""
    inputs = _inputs(value)
    return run_scripted(
        inputs,
        _item_id(value, inputs),
        _member(value, "condition", str),
        _member(value, "responses", list),
    )


@operation("ap1.verify_transcript")
def verify_transcript_op(value: object) -> TranscriptAnswer:
    """Input {"lines": [text], "sealHash", "head"?: head document or null}; answer validity,
    every problem, the cells; with ``head``, also whether the run finished, the cells still
    deferred and what the head says about the chain's end."""
    lines = _member(value, "lines", list)
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    seal_hash = _member(value, "sealHash", str)
    report = verify_transcript_bytes(data, seal_hash=seal_hash)
    answer: TranscriptAnswer = {
        "valid": report.ok,
        "problems": [p.to_dict() for p in report.problems],
        "cells": sorted(report.cells),
    }
    if not isinstance(value, dict) or "head" not in value:
        return answer
    head = value["head"]
    if head is not None:
        validate_document(Ap1TranscriptHead, head, what="head")
    verdict = verify_run(report, head, seal_hash=seal_hash)
    answer["valid"] = verdict.valid
    answer["finished"] = verdict.finished
    answer["deferred"] = verdict.deferred
    head_records = verdict.anchor.head_records
    anchor: AnchorAnswer = {
        "state": verdict.anchor.state,
        "records": str(len(report.records)),
        "headRecords": None if head_records is None else str(head_records),
    }
    answer["anchor"] = anchor
    return answer


@operation("ap1.credential_transport")
def credential_transport_op(value: object) -> KeyTransport:
    """Input {"url", "keySet": bool, "allowPlainHttp": bool}; answer how the key would travel,
    or refuse (AP1-KEY-PLAIN-HTTP)."""
    return {
        "transport": credential_transport(
            _member(value, "url", str),
            key_set=_member(value, "keySet", bool),
            allow_plain_http=_member(value, "allowPlainHttp", bool),
        )
    }


@operation("ap1.endpoint_failure")
def endpoint_failure_op(value: object) -> Deferral:
    """Input {"execution": an execution record, or its status, stopReason and rounds}; answer
    whether it failed at the endpoint (deferred, executed again) rather than yielding an
    outcome."""
    return {"deferred": endpoint_failure(_member(value, "execution", dict)) is not None}
