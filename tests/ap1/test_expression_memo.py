"""Expression analysis is memoised by tokens: white space never changes a result or a message."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.ap1.calculator.grammar import CalcSyntaxError
from apconform.ap1.scoring.measures.expression import Analysed, Operand, _analyse, analyse

_MODE = "ROUND_HALF_UP"


def _as_written(expression: str) -> tuple[str, object]:
    """The analysis of the text exactly as written, with no memo keyed by another text."""
    try:
        return ("value", _analyse.__wrapped__(expression, _MODE))  # type: ignore[attr-defined]
    except CalcSyntaxError as exc:
        return ("error", str(exc))


def _memoised(expression: str) -> tuple[str, object]:
    try:
        return ("value", analyse(expression, _MODE))
    except CalcSyntaxError as exc:
        return ("error", str(exc))


def test_texts_that_differ_in_white_space_share_one_analysis() -> None:
    plain = analyse("(2860.75 * 21.9) / 100 / 12", _MODE)
    spaced = analyse("   (2860.75\t*\n21.9)\t/  100 /\r\n12 ", _MODE)
    assert spaced is plain
    other = analyse("(2860.75*21.9)/100/12", _MODE)  # other tokens' spacing: its own entry
    assert other == plain
    assert plain == Analysed(
        operands=(
            Operand(Decimal("2860.75"), "2860.75"),
            Operand(Decimal("21.9"), "21.9"),
            Operand(Decimal("100"), "100"),
            Operand(Decimal("12"), "12"),
        ),
        precision_arguments=(),
        value=Decimal("52.2086875"),
        failure=None,
    )
    rounded = analyse("  round( 2.345 ,\t2 ) ", _MODE)
    assert (rounded.value, rounded.precision_arguments) == (Decimal("2.35"), ("2",))


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 2", "unexpected '2' at position 2"),  # white space separates tokens: not 12
        ("2 * * 3", "unexpected '*' at position 4"),  # two operators, not the power 2**3
        ("1 + %", "'%' at position 4 is not supported"),
        ("  1+%", "'%' at position 4 is not supported"),
        ("1\u00a0+2", "unexpected character 'U+00A0' at position 1"),  # not the grammar's blank
        (" 1 +", "the expression ends too early"),
    ],
)
def test_a_text_that_cannot_be_parsed_keeps_its_own_message(expression: str, message: str) -> None:
    with pytest.raises(CalcSyntaxError) as caught:
        analyse(expression, _MODE)
    assert str(caught.value).startswith(message)


def test_a_text_too_long_is_refused_though_its_tokens_are_known() -> None:
    assert analyse("1", _MODE).value == Decimal("1")
    with pytest.raises(CalcSyntaxError, match="has 501 characters; the limit is 500"):
        analyse("1" + " " * 500, _MODE)
    assert analyse("1" + " " * 499, _MODE) is analyse("1", _MODE)


def test_the_power_written_without_a_space_is_still_a_power() -> None:
    assert analyse("2**3", _MODE).value == Decimal("8")
    assert analyse(" 2 ** 3 ", _MODE).value == Decimal("8")


_PIECES = ["1", "12", "2.5", ".5", "7.", "1e3", "+", "-", "*", "/", "^", "**", "(", ")", ","]
_PIECES += ["round", "min", "abs", "pi", "x", "%", "\u2212", "\u00d7"]
_BLANKS = ["", "", " ", "  ", "\t", "\n", "\r\n", " \t", "\u00a0", "\x0b"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_BLANKS), st.sampled_from(_PIECES)), max_size=30))
def test_fuzz_the_memo_agrees_with_parsing_each_text_as_written(
    parts: list[tuple[str, str]],
) -> None:
    text = "".join(blank + piece for blank, piece in parts)
    respaced = "".join((blank + " " if blank else "") + piece for blank, piece in parts) + "\t"
    for expression in (text, respaced):
        assert repr(_memoised(expression)) == repr(_as_written(expression))
