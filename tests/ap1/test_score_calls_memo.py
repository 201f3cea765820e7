"""Scored calls are memoised by what scoring reads: each invocation keeps its own text."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest

from apconform.ap1.inputs.files import example_paths
from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.scoring.context import ScoringInputs, scoring_inputs
from apconform.ap1.scoring.execution import _score_calls, score_calls
from apconform.ap1.scoring.record import ToolCallView
from apconform.core.files import load_path


@pytest.fixture(scope="module")
def inputs() -> ScoringInputs:
    paths = example_paths()
    return scoring_inputs(
        load_run_inputs(
            config=copy.deepcopy(load_path(paths.config)),
            fixture=load_path(paths.fixture),
            questions=load_path(paths.questions),
            derivations=load_path(paths.derivations),
            ap1_text=None,
        )
    )


def _call(number: int, expression: str, returned: str | None) -> ToolCallView:
    arguments = '{"expression": "' + expression + '"}'
    return ToolCallView(number, str(number), "calculator", arguments, returned, "result")


def _scored(inputs: ScoringInputs, calls: list[ToolCallView]) -> Any:
    item = inputs.items["Q29"]  # one month's interest on the card: 2860.75 at 21.9 %
    memoised = score_calls(calls, item, inputs.rules, "calculator", "expression")
    fresh = _score_calls(calls, item, inputs.rules, "calculator", "expression")
    assert repr(memoised) == repr(fresh)  # the same values as scoring the calls afresh
    return memoised


def test_texts_with_the_same_tokens_share_the_scoring_but_not_the_text(
    inputs: ScoringInputs,
) -> None:
    plain = [_call(1, "((2860.75 * 21.9) / 100) / 12", '{"result":"52.2086875"}')]
    spaced = [_call(1, "  ((2860.75 *\\t21.9) /  100) / 12 ", '{ "result": "52.2086875" }')]
    first, second = _scored(inputs, plain), _scored(inputs, spaced)
    assert first[0][0].expression == "((2860.75 * 21.9) / 100) / 12"
    assert second[0][0].expression == "  ((2860.75 *\t21.9) /  100) / 12 "
    assert second[0][0].operands is first[0][0].operands  # shared: scored once
    assert [o.to_json() for o in second[1]] == [o.to_json() for o in first[1]]
    assert second[2] == first[2] == [(1, Decimal("52.2086875"))]
    assert first[0][0].outcome == "OPERANDS-GROUNDED"
    assert [o.literal for o in (r.operand for r in first[0][0].operands)] == [
        "2860.75",
        "21.9",
        "100",
        "12",
    ]


def test_a_return_written_with_another_exponent_is_another_call(inputs: ScoringInputs) -> None:
    expression = "(2860.75 * 21.9) / 100"
    short = _scored(inputs, [_call(1, expression, '{"result":"626.50425"}')])
    long = _scored(inputs, [_call(1, expression, '{"result":"626.504250"}')])
    assert str(short[2][0][1]) == "626.50425"
    assert str(long[2][0][1]) == "626.504250"


def test_an_expression_that_cannot_be_parsed_keeps_its_positions(inputs: ScoringInputs) -> None:
    near = _scored(inputs, [_call(1, "2860.75 +% 2", None)])
    far = _scored(inputs, [_call(1, "  2860.75 +% 2", None)])
    assert near[0][0].reason.startswith("the expression cannot be parsed: '%' at position 9")
    assert far[0][0].reason.startswith("the expression cannot be parsed: '%' at position 11")
    assert near[0][0].expression == "2860.75 +% 2"
    assert far[0][0].expression == "  2860.75 +% 2"


def test_a_later_call_reads_the_earlier_return_in_each_text(inputs: ScoringInputs) -> None:
    calls = [
        _call(1, "2860.75 * 2", '{"result":"5721.50"}'),
        _call(2, "5721.50 / 12", '{"result":"476.7916666666666666666666666666667"}'),
    ]
    respaced = [
        _call(1, "2860.75 * 2 ", '{"result":"5721.50"}'),
        _call(2, "5721.50 /\\n12", '{"result":"476.7916666666666666666666666666667"}'),
    ]
    first, second = _scored(inputs, calls), _scored(inputs, respaced)
    assert [p.expression for p in second[0]] == ["2860.75 * 2 ", "5721.50 /\n12"]
    assert second[0][1].operands[0].resolution == "UNGROUNDED-EARLIER-RETURN"  # "2" is not
    assert [p.outcome for p in second[0]] == [p.outcome for p in first[0]]
