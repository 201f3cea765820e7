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

import functools
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from apconform.ap1.scoring.accuracy import score_accuracy
from apconform.ap1.scoring.answers import compose_answer
from apconform.ap1.scoring.context import ItemContext, Rules, build_item
from apconform.ap1.scoring.execution import score_calls
from apconform.ap1.scoring.expression import Operand
from apconform.ap1.scoring.figures import FigureResult, identify_figure
from apconform.ap1.scoring.invocation import classify_invocation
from apconform.ap1.scoring.operation import classify_session
from apconform.ap1.scoring.provenance import EarlierReturn, execution_outcome, resolve_operand
from apconform.ap1.scoring.record import (
    ExecutionView,
    RecordUnreadable,
    ToolCallView,
    read_execution,
)
from apconform.ap1.scoring.reproducibility import mechanism_class, parameter_echo
from apconform.ap1.scoring.tokens import TokenAmbiguity, extract_tokens
from apconform.ap1.scoring.transcription import check_coverage, check_transcription
from apconform.conformance.operations import BAD_OPERATION_INPUT, Operation, operation
from apconform.core.canonical import canonical_text
from apconform.core.errors import ApconformError, define_code

__all__: list[str] = []

STAT_INPUT = define_code(
    "AP1-STAT-INPUT",
    "A rate or an agreement has no meaningful denominator",
    "Report a rate only for n >= 1 and 0 <= k <= n, and agreement only over rows both "
    "scorers marked.",
)
_RUN = {
    "/config": "ap1-config",
    "/fixture": "ap1-fixture",
    "/questions": "ap1-questions",
    "/derivations": "ap1-derivations",
}


_MAX_DECIMAL_CHARS = 100


def _guarded(
    name: str, *, inputs: dict[str, str] | None = None
) -> Callable[[Operation], Operation]:
    """Register an operation whose malformed input is refused with APC-OP-INPUT, never a crash."""

    def wrap(function: Operation) -> Operation:
        @functools.wraps(function)
        def run(value: Any) -> Any:
            try:
                return function(value)
            except ApconformError:
                raise
            except (KeyError, IndexError, TypeError, ValueError, ArithmeticError, AttributeError):
                raise ApconformError(
                    BAD_OPERATION_INPUT,
                    f"the input of {name} does not have the shape the operation needs",
                    path="$",
                ) from None

        return operation(name, inputs=inputs)(run)

    return wrap


def _get(value: Any, name: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, dict) or name not in value or not isinstance(value[name], kind):
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"the input needs a member {name!r} of the right type",
            path=f"$.{name}",
        )
    return value[name]


def _decimal(text: Any, where: str) -> Decimal:
    if not isinstance(text, str) or len(text) > _MAX_DECIMAL_CHARS:
        raise ApconformError(
            BAD_OPERATION_INPUT, f"{where} must be a short decimal string", path=where
        )
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ApconformError(BAD_OPERATION_INPUT, f"{where} is not a decimal", path=where) from None
    if not value.is_finite() or (not value.is_zero() and abs(value.adjusted()) > 100):
        raise ApconformError(BAD_OPERATION_INPUT, f"{where} is out of range", path=where)
    return value


def _rules(value: Any) -> Rules:
    rules = _get(value, "rules", dict)
    separator = rules.get("groupingSeparator")
    places = int(_get(rules, "places", str))
    if not 0 <= places <= 20:
        raise ApconformError(BAD_OPERATION_INPUT, "places must be 0 to 20", path="$.rules.places")
    return Rules(
        places=places,
        rounding=_get(rules, "rounding", str),
        tolerance=_decimal(_get(rules, "tolerance", str), "$.rules.tolerance"),
        transformations=tuple(_get(rules, "transformations", list)),
        decimal_separator=_get(rules, "decimalSeparator", str),
        grouping_separator=separator if isinstance(separator, str) else None,
        currency_symbols=tuple(_get(rules, "currencySymbols", list)),
        decline_markers=tuple(_get(rules, "declineMarkers", list)),
        structured_field=rules.get("structuredAnswerField"),
    )


def _item(value: Any, rules: Rules) -> ItemContext:
    item = _get(value, "item", dict)
    final = item.get("final")
    return build_item(
        item_id=str(item.get("id", "item")),
        rules=rules,
        sources=[
            (k, _decimal(v, f"$.item.sources.{k}")) for k, v in _get(item, "sources", dict).items()
        ],
        constants=[
            (k, _decimal(v, f"$.item.constants.{k}"))
            for k, v in _get(item, "constants", dict).items()
        ],
        intermediates=[
            (str(i["label"]), _decimal(i["value"], "$.item.intermediates"))
            for i in _get(item, "intermediates", list)
        ],
        final=None if final is None else _decimal(final, "$.item.final"),
        required_operation=str(item.get("requiredOperation", "calculator")),
    )


@_guarded("ap1.parse_figures")
def parse_figures_op(value: Any) -> dict[str, Any]:
    """Input {"text", "decimalSeparator", "groupingSeparator", "currencySymbols"}; the tokens."""
    separator = value.get("groupingSeparator") if isinstance(value, dict) else None
    try:
        tokens = extract_tokens(
            _get(value, "text", str),
            decimal_sep=_get(value, "decimalSeparator", str),
            grouping_sep=separator if isinstance(separator, str) else None,
            currencies=tuple(_get(value, "currencySymbols", list)),
        )
    except TokenAmbiguity as exc:
        return {"ambiguous": str(exc)}
    return {"tokens": [t.to_json() for t in tokens]}


@_guarded("ap1.identify_figure")
def identify_figure_op(value: Any) -> dict[str, Any]:
    """Input {item, rules, "finalText", "responseBody"?}; the figure outcome and the D1 outcome."""
    rules = _rules(value)
    item = _item(value, rules)
    text = value.get("finalText")
    body = value.get("responseBody")
    figure = identify_figure(
        text if isinstance(text, str) else None,
        item,
        rules,
        last_body=body if isinstance(body, str) else None,
    )
    return {**figure.to_json(), "accuracy": score_accuracy(figure, item, rules)}


@_guarded("ap1.resolve_operand")
def resolve_operand_op(value: Any) -> dict[str, Any]:
    """Input {item, rules, "operand" (its literal), "earlierReturns": [{call, value, grounded}]}."""
    rules = _rules(value)
    literal = _get(value, "operand", str)
    earlier = [
        EarlierReturn(int(r["call"]), _decimal(r["value"], "$.earlierReturns"), bool(r["grounded"]))
        for r in _get(value, "earlierReturns", list)
    ]
    operand = Operand(_decimal(literal, "$.operand"), literal)
    return resolve_operand(operand, _item(value, rules), rules, earlier).to_json()


def _call_views(calls: list[Any]) -> list[ToolCallView]:
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


@_guarded("ap1.score_calls")
def score_calls_op(value: Any) -> dict[str, Any]:
    """Input {item, rules, "calls": [{"expression" or "arguments", "return"?, "name"?}]}."""
    rules = _rules(value)
    item = _item(value, rules)
    provenance, operations, _ = score_calls(
        _call_views(_get(value, "calls", list)), item, rules, "calculator", "expression"
    )
    session, moved = classify_session(operations)
    return {
        "provenance": {
            "outcome": execution_outcome(provenance),
            "invocations": [p.to_json() for p in provenance],
        },
        "operation": {"calls": [o.to_json() for o in session], "reclassified": str(moved)},
    }


def _returns(value: Any) -> list[tuple[int, Decimal]]:
    return [
        (n, _decimal(r, "$.returns")) for n, r in enumerate(_get(value, "returns", list), start=1)
    ]


@_guarded("ap1.check_transcription")
def check_transcription_op(value: Any) -> dict[str, Any]:
    """Input {item, rules, "finalText", "returns": [value, ...]}; figure and transcription."""
    rules = _rules(value)
    item = _item(value, rules)
    figure = identify_figure(_get(value, "finalText", str), item, rules)
    return {
        "figure": figure.outcome,
        "transcription": check_transcription(figure, _returns(value), rules),
    }


@_guarded("ap1.release_coverage")
def release_coverage_op(value: Any) -> dict[str, Any]:
    """Input {item, rules, "finalText", "returns": [value, ...]}; the release coverage outcome."""
    rules = _rules(value)
    tokens = extract_tokens(
        _get(value, "finalText", str),
        decimal_sep=rules.decimal_separator,
        grouping_sep=rules.grouping_separator,
        currencies=rules.currency_symbols,
    )
    returns = [v for _, v in _returns(value)]
    return check_coverage(tokens, returns, _item(value, rules), rules)


def _view(value: Any) -> ExecutionView:
    try:
        return read_execution(_get(value, "record", dict))
    except RecordUnreadable as exc:
        raise ApconformError(BAD_OPERATION_INPUT, str(exc), path="$.record") from None


@_guarded("ap1.classify_invocation")
def classify_invocation_op(value: Any) -> dict[str, Any]:
    """Input {"record" (an execution record), "requiredOperation"}; evidence class and outcome."""
    return classify_invocation(_view(value), _get(value, "requiredOperation", str))


@_guarded("ap1.parameter_echo")
def parameter_echo_op(value: Any) -> dict[str, Any]:
    """Input {"record"}; the parameter echo status and findings."""
    return parameter_echo(_view(value))


@_guarded("ap1.mechanism_class")
def mechanism_class_op(value: Any) -> dict[str, str]:
    """Input {"successfulRuns", "distinctValues", "pinned", "echoVerified", "capped"}."""
    klass, reason = mechanism_class(
        int(_get(value, "successfulRuns", str)),
        int(_get(value, "distinctValues", str)),
        pinned=_get(value, "pinned", bool),
        echo_verified=_get(value, "echoVerified", bool),
        capped=_get(value, "capped", bool),
    )
    return {"mechanismClass": klass, "reason": reason}


@_guarded("ap1.compose_answer")
def compose_answer_op(value: Any) -> dict[str, Any]:
    """Input: the per-execution outcomes (status, figure, accuracy, invocation, provenance, ...)."""
    figure = value.get("figure")
    accuracy = value.get("accuracy")
    return compose_answer(
        _get(value, "status", str),
        value.get("statusReason"),
        None if not isinstance(figure, dict) else FigureResult(figure["outcome"], figure["reason"]),
        accuracy if isinstance(accuracy, dict) else None,
        _get(value, "invocation", dict),
        value.get("provenance"),
        list(value.get("originKinds", [])),
        value.get("transcription") if isinstance(value.get("transcription"), dict) else None,
    )


@_guarded("ap1.classify_operation")
def classify_operation_op(value: Any) -> dict[str, Any]:
    """Input {item, rules, "calls": [{"expression"}, ...]}; D7.2(b) per call and for the session."""
    return dict(score_calls_op(value)["operation"])
