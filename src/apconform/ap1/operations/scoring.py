"""The scoring operations vectors exercise, each a thin call into :mod:`apconform.ap1.scoring`.

Most take a compact item and the answer rules instead of whole documents, so
a case states exactly the values a rule compares:

    "item":  {"sources": {"savings.balance": "15200.00"}, "constants": {"months": "12"},
              "intermediates": [{"label": "monthly_interest", "value": "15.2"}], "final": "15.2"}
    "rules": {"places": "2", "rounding": "ROUND_HALF_UP", "tolerance": "0.01",
              "transformations": ["percent_to_fraction"], "decimalSeparator": ".",
              "groupingSeparator": ",", "currencySymbols": ["$"], "declineMarkers": ["I cannot"],
              "structuredAnswerField": null}

Operations over whole documents and the statistics are in ``scoring_operations_documents``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from apconform.ap1.operations.vector_inputs import (
    decimal_member,
    guarded,
    item_of,
    member,
    optional,
    rules_of,
)
from apconform.ap1.scoring.execution import score_calls
from apconform.ap1.scoring.measures.accuracy import score_accuracy
from apconform.ap1.scoring.measures.answers import compose_answer
from apconform.ap1.scoring.measures.expression import Operand
from apconform.ap1.scoring.measures.figures import FigureResult, identify_figure
from apconform.ap1.scoring.measures.invocation import classify_invocation
from apconform.ap1.scoring.measures.operation import classify_session
from apconform.ap1.scoring.measures.provenance import (
    EarlierReturn,
    execution_outcome,
    resolve_operand,
)
from apconform.ap1.scoring.measures.reproducibility import mechanism_class, parameter_echo
from apconform.ap1.scoring.measures.tokens import TokenAmbiguity, extract_tokens
from apconform.ap1.scoring.measures.transcription import check_coverage, check_transcription
from apconform.ap1.scoring.record import (
    ExecutionView,
    RecordUnreadable,
    ToolCallView,
    read_execution,
)
from apconform.ap1.scoring.results import (
    AccuracyResult,
    AnswerResult,
    CoverageResult,
    EchoResult,
    FigureJson,
    InvocationResult,
    OperandJson,
    OperationsJson,
    ProvenanceJson,
    TokenJson,
    TranscriptionResult,
)
from apconform.conformance.operations import BAD_OPERATION_INPUT
from apconform.core.canonical import canonical_text
from apconform.core.errors import ApconformError

__all__: list[str] = []


class _Tokens(TypedDict):
    tokens: list[TokenJson]


class _Ambiguous(TypedDict):
    ambiguous: str


class _FigureWithAccuracy(FigureJson):
    accuracy: AccuracyResult


class _CallsScore(TypedDict):
    provenance: ProvenanceJson
    operation: OperationsJson


class _Transcribed(TypedDict):
    figure: str
    transcription: TranscriptionResult


class _Mechanism(TypedDict):
    mechanismClass: str
    reason: str


@guarded("ap1.parse_figures")
def parse_figures_op(value: object) -> _Tokens | _Ambiguous:
    """Input {"text", "decimalSeparator", "groupingSeparator", "currencySymbols"}; the tokens."""
    separator = value.get("groupingSeparator") if isinstance(value, dict) else None
    try:
        tokens = extract_tokens(
            member(value, "text", str),
            decimal_sep=member(value, "decimalSeparator", str),
            grouping_sep=separator if isinstance(separator, str) else None,
            currencies=tuple(member(value, "currencySymbols", list)),
        )
    except TokenAmbiguity as exc:
        return {"ambiguous": str(exc)}
    return {"tokens": [t.to_json() for t in tokens]}


@guarded("ap1.identify_figure")
def identify_figure_op(value: object) -> _FigureWithAccuracy:
    """Input {item, rules, "finalText", "responseBody"?}; the figure outcome and the D1 outcome."""
    rules = rules_of(value)
    item = item_of(value, rules)
    text = optional(value, "finalText")
    body = optional(value, "responseBody")
    figure = identify_figure(
        text if isinstance(text, str) else None,
        item,
        rules,
        last_body=body if isinstance(body, str) else None,
    )
    return {**figure.to_json(), "accuracy": score_accuracy(figure, item, rules)}


@guarded("ap1.resolve_operand")
def resolve_operand_op(value: object) -> OperandJson:
    """Input {item, rules, "operand" (its literal), "earlierReturns": [{call, value, grounded}]}."""
    rules = rules_of(value)
    literal = member(value, "operand", str)
    earlier = [
        EarlierReturn(
            int(r["call"]), decimal_member(r["value"], "$.earlierReturns"), bool(r["grounded"])
        )
        for r in member(value, "earlierReturns", list)
    ]
    operand = Operand(decimal_member(literal, "$.operand"), literal)
    return resolve_operand(operand, item_of(value, rules), rules, earlier).to_json()


def _call_views(calls: list[object]) -> list[ToolCallView]:
    views = []
    for number, call in enumerate(calls, start=1):
        if not isinstance(call, dict):
            raise ApconformError(BAD_OPERATION_INPUT, "each call is an object", path="$.calls")
        arguments = call.get("arguments")
        if not isinstance(arguments, str):
            arguments = canonical_text({"expression": call.get("expression")})
        returned = call.get("return")
        views.append(
            ToolCallView(
                number=number,
                round=str(number),
                name=str(call.get("name", "calculator")),
                arguments_raw=arguments,
                return_raw=None if returned is None else canonical_text({"result": returned}),
                outcome="result" if returned is not None else "tool-error",
            )
        )
    return views


@guarded("ap1.score_calls")
def score_calls_op(value: object) -> _CallsScore:
    """Input {item, rules, "calls": [{"expression" or "arguments", "return"?, "name"?}]}."""
    rules = rules_of(value)
    item = item_of(value, rules)
    provenance, operations, _ = score_calls(
        _call_views(member(value, "calls", list)), item, rules, "calculator", "expression"
    )
    session, moved = classify_session(operations)
    return {
        "provenance": {
            "outcome": execution_outcome(provenance),
            "invocations": [p.to_json() for p in provenance],
        },
        "operation": {"calls": [o.to_json() for o in session], "reclassified": str(moved)},
    }


def _returns(value: object) -> list[tuple[int, Decimal]]:
    return [
        (n, decimal_member(r, "$.returns"))
        for n, r in enumerate(member(value, "returns", list), start=1)
    ]


@guarded("ap1.check_transcription")
def check_transcription_op(value: object) -> _Transcribed:
    """Input {item, rules, "finalText", "returns": [value, ...]}; figure and transcription."""
    rules = rules_of(value)
    item = item_of(value, rules)
    figure = identify_figure(member(value, "finalText", str), item, rules)
    return {
        "figure": figure.outcome,
        "transcription": check_transcription(figure, _returns(value), rules),
    }


@guarded("ap1.release_coverage")
def release_coverage_op(value: object) -> CoverageResult:
    """Input {item, rules, "finalText", "returns": [value, ...]}; the release coverage outcome."""
    rules = rules_of(value)
    tokens = extract_tokens(
        member(value, "finalText", str),
        decimal_sep=rules.decimal_separator,
        grouping_sep=rules.grouping_separator,
        currencies=rules.currency_symbols,
    )
    returns = [v for _, v in _returns(value)]
    return check_coverage(tokens, returns, item_of(value, rules), rules)


def _view(value: object) -> ExecutionView:
    try:
        return read_execution(member(value, "record", dict))
    except RecordUnreadable as exc:
        raise ApconformError(BAD_OPERATION_INPUT, str(exc), path="$.record") from None


@guarded("ap1.classify_invocation")
def classify_invocation_op(value: object) -> InvocationResult:
    """Input {"record" (an execution record), "requiredOperation"}; evidence class and outcome."""
    return classify_invocation(_view(value), member(value, "requiredOperation", str))


@guarded("ap1.parameter_echo")
def parameter_echo_op(value: object) -> EchoResult:
    """Input {"record"}; the parameter echo status and findings."""
    return parameter_echo(_view(value))


@guarded("ap1.mechanism_class")
def mechanism_class_op(value: object) -> _Mechanism:
    """Input {"successfulRuns", "distinctValues", "pinned", "echoVerified", "capped"}."""
    klass, reason = mechanism_class(
        int(member(value, "successfulRuns", str)),
        int(member(value, "distinctValues", str)),
        pinned=member(value, "pinned", bool),
        echo_verified=member(value, "echoVerified", bool),
        capped=member(value, "capped", bool),
    )
    return {"mechanismClass": klass, "reason": reason}


@guarded("ap1.compose_answer")
def compose_answer_op(value: object) -> AnswerResult:
    """Input: the per-execution outcomes (status, figure, accuracy, invocation, provenance, ...)."""
    if not isinstance(value, dict):
        raise TypeError("the input is not an object")  # the guard refuses it, as it always did
    figure = value.get("figure")
    if value.get("status") == "EXECUTED":
        for name in ("figure", "accuracy", "transcription"):
            if not isinstance(value.get(name), dict):
                raise ApconformError(
                    BAD_OPERATION_INPUT,
                    f"an EXECUTED execution needs its {name} outcome to be composed",
                    path=f"$.{name}",
                )
    # Read in the order the scorer's arguments are: the first unreadable member is refused.
    status = member(value, "status", str)
    status_reason = value.get("statusReason")
    figure_result = (
        None if not isinstance(figure, dict) else FigureResult(figure["outcome"], figure["reason"])
    )
    accuracy = value.get("accuracy") if isinstance(value.get("accuracy"), dict) else None
    member(value, "invocation", dict)  # an object; the scorer reads its members
    invocation: InvocationResult = value["invocation"]
    return compose_answer(
        status,
        status_reason,
        figure_result,
        accuracy,
        invocation,
        value.get("provenance"),
        list(value.get("originKinds", [])),
        value.get("transcription") if isinstance(value.get("transcription"), dict) else None,
    )


@guarded("ap1.classify_operation")
def classify_operation_op(value: object) -> OperationsJson:
    """Input {item, rules, "calls": [{"expression"}, ...]}; D7.2(b) per call and for the session."""
    scored: _CallsScore = score_calls_op(value)  # through its guard: its errors name it
    return scored["operation"].copy()
