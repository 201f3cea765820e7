"""Scoring one execution record against the sealed inputs: every automated measurement at once.

This is the function a service calls per record: it reads the record (never
trusting its shape), then runs invocation, figure identification, D1, operand
provenance and operation correctness per call (with the session
reclassification), transcription, release coverage, the parameter echo and the
answer-level composition. It writes nothing and keeps no state between calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from json.encoder import encode_basestring_ascii
from typing import Any

from apconform.ap1.calculator.grammar import CalcSyntaxError
from apconform.ap1.scoring.context import ItemContext, Rules, ScoringInputs
from apconform.ap1.scoring.measures.accuracy import score_accuracy
from apconform.ap1.scoring.measures.answers import compose_answer
from apconform.ap1.scoring.measures.expression import (
    Analysed,
    analyse,
    evaluate_reading_returns,
    token_text,
)
from apconform.ap1.scoring.measures.figures import UNMEASURABLE, FigureResult, identify_figure
from apconform.ap1.scoring.measures.invocation import classify_invocation
from apconform.ap1.scoring.measures.operation import (
    CallOperation,
    classify_call,
    classify_session,
    is_float_noise,
)
from apconform.ap1.scoring.measures.provenance import (
    EarlierReturn,
    InvocationProvenance,
    execution_outcome,
    resolve_invocation,
)
from apconform.ap1.scoring.measures.reproducibility import parameter_echo
from apconform.ap1.scoring.measures.tokens import Token, TokenAmbiguity, text_tokens
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
    ExecutionScoreJson,
    InvocationResult,
    TranscriptionResult,
)
from apconform.core.errors import ApconformError, define_code

__all__ = [
    "RECORD_UNSCORABLE",
    "ExecutionScore",
    "score_calls",
    "score_record",
    "score_view",
]

RECORD_UNSCORABLE = define_code(
    "AP1-SCORE-RECORD",
    "An execution record cannot be scored",
    "Score records exactly as the instrument wrote them, against the sealed inputs of their run.",
    exit_status=1,
    http_status=422,
)


@dataclass(frozen=True)
class ExecutionScore:
    """Every automated measurement of one execution."""

    view: ExecutionView
    item: ItemContext
    invocation: InvocationResult
    figure: FigureResult | None
    accuracy: AccuracyResult | None
    provenance: tuple[InvocationProvenance, ...]
    provenance_outcome: str | None
    operations: tuple[CallOperation, ...]
    reclassified: int
    transcription: TranscriptionResult | None
    coverage: CoverageResult | None
    answer: AnswerResult
    echo: EchoResult
    surfaces: dict[str, str] | None

    def to_json(self) -> dict[str, Any]:
        """:meth:`document` as a plain dict, for callers outside the scorer that take one."""
        return dict(self.document())

    def document(self) -> ExecutionScoreJson:
        """The per-execution score document (one line of executions.jsonl)."""
        view = self.view
        return {
            "cellKey": view.cell_key,
            "condition": view.condition,
            "itemId": view.item_id,
            "repeat": view.repeat,
            "status": view.status,
            "statusReason": view.status_reason,
            "invocation": self.invocation,
            "figure": None if self.figure is None else self.figure.to_json(),
            "accuracy": self.accuracy,
            "provenance": {
                "outcome": self.provenance_outcome,
                "invocations": [p.to_json() for p in self.provenance],
            },
            "operation": {
                "calls": [o.to_json() for o in self.operations],
                "reclassified": str(self.reclassified),
            },
            "transcription": self.transcription,
            "coverage": self.coverage,
            "answer": self.answer,
            "parameterEcho": self.echo,
        }


def _tokens(text: str | None, figure: FigureResult, inputs: ScoringInputs) -> tuple[Token, ...]:
    if figure.tokens or not text:
        return figure.tokens
    rules = inputs.rules
    try:
        return text_tokens(
            text, rules.decimal_separator, rules.grouping_separator, tuple(rules.currency_symbols)
        )
    except TokenAmbiguity:
        return ()


_Scored = tuple[list[InvocationProvenance], list[CallOperation], list[tuple[int, Decimal]]]
_CALLS_KEPT = 64
"""Scored calls kept per item (with the rules they were scored under; see ``score_calls``)."""


def score_calls(
    calls: Sequence[ToolCallView], item: ItemContext, rules: Rules, tool_name: str, argument: str
) -> _Scored:
    """D7.2(a) and per-call D7.2(b) of each call of the required tool, in order; the returns.

    Repeats of an item make the same calls, so the result is memoised by what
    scoring reads of each call: its number and name and, for a call of the
    required tool, its return as written and its expression's tokens (the text
    as written when it cannot be parsed, whose message names positions). Only
    the expression as written differs between texts with the same tokens; each
    invocation is given its own. The memo is kept on the item, so it lasts as
    long as the sealed inputs it was made from.
    """
    written: dict[int, str] = {}
    shape: list[tuple[Any, ...]] = []
    for call in calls:
        if call.name != item.required_operation or call.name != tool_name:
            shape.append((call.number, call.name))
            continue
        expression = call.argument(argument)
        result = call.result()
        returned = None if result is None else str(result)
        if expression is None:
            shape.append((call.number, call.name, None, returned))
            continue
        written[call.number] = expression
        try:
            analyse(expression, rules.rounding)
        except CalcSyntaxError:
            shape.append((call.number, call.name, "as written", expression, returned))
        else:
            shape.append((call.number, call.name, "tokens", token_text(expression), returned))
    key = (tool_name, argument, tuple(shape))
    memo = item.scored_calls
    found = memo.get(key)
    if found is not None and found[0] is rules:
        scored: _Scored = found[1]
    else:
        scored = _score_calls(calls, item, rules, tool_name, argument)
        if len(memo) < _CALLS_KEPT:
            memo[key] = (rules, scored)
    provenance, operations, returns = scored
    return (
        [
            p
            if p.expression is None or p.expression == written[p.call]
            else InvocationProvenance(
                p.call,
                written[p.call],
                p.outcome,
                p.reason,
                p.operands,
                p.precision_arguments,
            )
            for p in provenance
        ],
        list(operations),
        list(returns),
    )


def _score_calls(
    calls: Sequence[ToolCallView], item: ItemContext, rules: Rules, tool_name: str, argument: str
) -> _Scored:
    earlier: list[EarlierReturn] = []
    provenance: list[InvocationProvenance] = []
    operations: list[CallOperation] = []
    returns: list[tuple[int, Decimal]] = []
    noisy: dict[Decimal, tuple[Decimal, int]] = {}  # a float-noise return -> (its value, call)
    for call in calls:
        if call.name != item.required_operation or call.name != tool_name:
            continue
        expression = call.argument(argument)
        result = call.result()
        if expression is None:
            why = f'the arguments are not a JSON object with a string member "{argument}"'
            invocation = resolve_invocation(
                call.number, None, None, item, rules, earlier, unreadable=why
            )
            operation = classify_call(call.number, None, (), item, reason=why)
        else:
            try:
                analysed = analyse(expression, rules.rounding)
            except CalcSyntaxError as exc:
                why = f"the expression cannot be parsed: {exc}"
                invocation = resolve_invocation(
                    call.number, expression, None, item, rules, earlier, unreadable=why
                )
                operation = classify_call(call.number, None, (), item, reason=why)
            else:
                invocation = resolve_invocation(
                    call.number,
                    expression,
                    analysed.operands,
                    item,
                    rules,
                    earlier,
                    precision_arguments=analysed.precision_arguments,
                )
                value, operand_values, read = _read_returns(
                    expression, analysed, noisy, rules.rounding
                )
                operation = classify_call(
                    call.number,
                    value,
                    operand_values,
                    item,
                    reason=None if value is not None else analysed.failure,
                    tool_value=result,
                    read_returns=read,
                )
        provenance.append(invocation)
        operations.append(operation)
        if result is not None:
            earlier.append(
                EarlierReturn(call.number, result, invocation.outcome == "OPERANDS-GROUNDED")
            )
            returns.append((call.number, result))
            if operation.value is not None and is_float_noise(result, operation.value):
                noisy.setdefault(result, (operation.value, call.number))
    return provenance, operations, returns


def _read_returns(
    expression: str,
    analysed: Analysed,
    noisy: dict[Decimal, tuple[Decimal, int]],
    rounding: str,
) -> tuple[Decimal | None, list[Decimal], list[tuple[str, int, Decimal]]]:
    """The call's value and operand values with float-noise returns read as their calls (OPN-5)."""
    operand_values = [o.value for o in analysed.operands]
    if not noisy or not any(v in noisy for v in operand_values):
        return analysed.value, operand_values, []
    value, read = evaluate_reading_returns(
        expression, rounding, {text: exact for text, (exact, _) in noisy.items()}
    )
    readings = [(literal, noisy[written][1], noisy[written][0]) for literal, written in read]
    return value, [noisy[v][0] if v in noisy else v for v in operand_values], readings


def _json_strings(values: list[str]) -> str:
    """``json.dumps(values)`` for a list of strings: each string's ASCII JSON, ", " between."""
    return "[" + ", ".join(map(encode_basestring_ascii, values)) + "]"


def _surfaces(view: ExecutionView, tokens: tuple[Token, ...]) -> dict[str, str]:
    figures = [format(t.value.normalize(), "f") for t in tokens]
    return {
        "figures": _json_strings(figures),
        "toolArguments": _json_strings([c.arguments_raw for c in view.tool_calls]),
        "prose": view.final_text or "",
    }


def score_view(view: ExecutionView, inputs: ScoringInputs) -> ExecutionScore:
    """Score an execution already read with :func:`read_execution`."""
    item = inputs.items.get(view.item_id)
    if item is None:
        raise ApconformError(
            RECORD_UNSCORABLE,
            f"item {view.item_id} is not in the sealed question set",
            path="$.itemId",
        )
    rules = inputs.rules
    invocation = classify_invocation(view, item.required_operation)
    tool_name, argument = inputs.tools[view.condition]
    provenance, operations, returns = score_calls(view.tool_calls, item, rules, tool_name, argument)
    session, moved = classify_session(operations)
    originated = execution_outcome(provenance)
    origin_kinds = sorted({o.resolution for p in provenance for o in p.operands if not o.grounded})
    figure = accuracy = transcription = coverage = None
    surfaces = None
    if view.status == "EXECUTED":
        figure = identify_figure(view.final_text, item, rules, last_body=view.last_body())
        tokens = _tokens(view.final_text, figure, inputs)
        accuracy = score_accuracy(figure, item, rules)
        transcription = check_transcription(figure, returns, rules)
        coverage = check_coverage(tokens, [v for _, v in returns], item, rules)
        if figure.outcome != UNMEASURABLE:
            surfaces = _surfaces(view, tokens)
    elif view.status == "UNOBSERVABLE":
        figure = FigureResult(UNMEASURABLE, view.status_reason or "the response cannot be read")
        accuracy = score_accuracy(figure, item, rules)
        # AP1-TRN-1: without an automatically matched figure, transcription is UNOBSERVABLE
        transcription = {
            "outcome": "UNOBSERVABLE",
            "reason": f"the response cannot be read automatically ({figure.reason})",
        }
    answer = compose_answer(
        view.status,
        view.status_reason,
        figure,
        accuracy,
        invocation,
        originated,
        origin_kinds,
        transcription,
    )
    return ExecutionScore(
        view=view,
        item=item,
        invocation=invocation,
        figure=figure,
        accuracy=accuracy,
        provenance=tuple(provenance),
        provenance_outcome=originated,
        operations=tuple(session),
        reclassified=moved,
        transcription=transcription,
        coverage=coverage,
        answer=answer,
        echo=parameter_echo(view),
        surfaces=surfaces,
    )


def score_record(record: Mapping[str, Any], inputs: ScoringInputs) -> ExecutionScore:
    """Read and score one record; an unreadable record is refused with AP1-SCORE-RECORD."""
    try:
        view = read_execution(record)
    except RecordUnreadable as exc:
        raise ApconformError(RECORD_UNSCORABLE, str(exc), path="$") from None
    return score_view(view, inputs)
