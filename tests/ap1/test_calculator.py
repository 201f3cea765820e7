"""The calculator: exact values, correct precedence, bounds, and never raising (fuzzed)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.ap1.calculator.evaluator import CalcResult, Calculator, calculate
from apconform.ap1.run.toolcall import run_tool_call


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("15200.00*1.2/100/12", "15.200"),
        ("0.1+0.2", "0.3"),
        ("-2^2", "-4"),
        ("-2**2", "-4"),
        ("2^3^2", "512"),
        ("(2^3)^2", "64"),
        ("2^-1", "0.5"),
        ("(1+0.078/12)^3-1", "0.019627024625"),
        ("42175.00*(0.078/4)-(15.00*3)", "777.412500"),
        ("1/3", "0.3333333333333333333333333333333333"),
        ("2 * 3 + 4 * 5", "26"),
        ("10 - 4 - 3", "3"),
        ("64 / 4 / 2", "8"),
        ("15200.00 \u00d7 1.2 \u00f7 100", "182.400"),
        ("3 \u2212 1", "2"),
        ("min(3, 1.5, 2) + max(4, 5)", "6.5"),
        ("abs(-7.25)", "7.25"),
        ("floor(-2.5) + ceil(2.1)", "0"),
        ("sqrt(2.25)", "1.5"),
        ("1.5e3", "1500"),
        ("-0", "0"),
    ],
)
def test_values_are_exact(expression: str, value: str) -> None:
    assert calculate(expression) == CalcResult(value, None)


def test_round_uses_the_declared_rounding_mode() -> None:
    assert calculate("round(2.345, 2)", "ROUND_HALF_UP").value == "2.35"
    assert calculate("round(2.345, 2)", "ROUND_HALF_EVEN").value == "2.34"
    assert calculate("round(777.4125, 2)", "ROUND_HALF_UP").value == "777.41"
    assert calculate("round(2.5)", "ROUND_HALF_EVEN").value == "2"


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("1/0", "division by zero"),
        ("0/0", "division by zero"),
        ("sqrt(-1)", "domain error: sqrt of -1"),
        ("ln(0)", "domain error: ln of 0"),
        ("(-8)^0.5", "domain error: a negative number raised to a fractional power"),
        ("10^1001", "exponent 1001 is too large (limit 1000)"),
        ("9^9^9", "exponent 387420489 is too large (limit 1000)"),
        ("exp(1000)", "result too large (beyond 1E+100)"),
        ("x + 1", "unknown name 'x'; the only names are e, pi"),
        ("15%", "'%' at position 2 is not supported; write a percentage as a division by 100"),
        ("1,000", "unexpected ',' at position 1"),
        ("2(3)", "unexpected '(' at position 1"),
        ("", "the expression is empty"),
        ("(1+2", "the expression ends where ')' is needed to close the '(' at position 0"),
        ('__import__("os").system("x")', "unexpected character '\"' at position 11"),
        ("os.system", "unexpected character '.' at position 2"),
        (
            "eval(1)",
            "unknown function 'eval'; the functions are abs, ceil, exp, floor, ln, log, "
            "log10, max, min, pow, round, sqrt",
        ),
        ("round(1, 2, 3)", "round takes 1 to 2 argument(s), not 3"),
        (
            "(" * 33 + "1" + ")" * 33,
            "the expression is nested deeper than 32 levels (parentheses, signs and powers)",
        ),
        (
            "-" * 40 + "1",
            "the expression is nested deeper than 32 levels (parentheses, signs and powers)",
        ),
        ("1+" * 250 + "1", "the expression has 501 characters; the limit is 500"),
    ],
)
def test_every_failure_is_a_tool_error(expression: str, error: str) -> None:
    result = calculate(expression)
    assert result == CalcResult(None, error)
    assert result.tool_content.startswith('{"error":')


def test_a_long_flat_sum_is_not_a_deep_tree() -> None:
    assert calculate("+".join(["1"] * 250)).value == "250"


def test_tool_call_checks_name_and_arguments() -> None:
    calc = Calculator("ROUND_HALF_UP")

    def call(name: str, raw: str) -> tuple[str, str]:
        out = run_tool_call(
            name, raw, tool_name="calculator", argument_name="expression", calculator=calc
        )
        return out.outcome, out.content

    assert call("calculator", '{"expression": "2*3"}') == ("result", '{"result":"6"}')
    assert call("calculator", '{"expression": "1/0"}') == (
        "tool-error",
        '{"error":"division by zero"}',
    )
    assert call("search", '{"expression": "1"}')[0] == "unknown-tool"
    assert call("calculator", "not json")[0] == "malformed-arguments"
    assert call("calculator", '{"expr": "1"}')[0] == "malformed-arguments"
    assert call("calculator", '{"expression": 1}')[0] == "malformed-arguments"
    assert call("calculator", '{"expression": "1", "digits": 2}') == (
        "malformed-arguments",
        '{"error":"unexpected argument(s) \'digits\'; send only \\"expression\\""}',
    )


# ---------------------------------------------------------------- fuzzing

_TOKENS = [
    *"0123456789",
    ".",
    "e",
    "E",
    "+",
    "-",
    "*",
    "/",
    "^",
    "**",
    "(",
    ")",
    ",",
    " ",
    "%",
    "=",
    "\u00d7",
    "\u00f7",
    "\u2212",
    "pi",
    "sqrt",
    "round",
    "ln",
    "exp",
    "pow",
    "log",
    "min",
    "abs",
    "x",
    "__import__",
    "'",
    "[",
    "]",
    "1e999",
    "9^9^9",
    "0/0",
    "\x00",
    "\ud800",
]


def _assert_well_behaved(result: CalcResult) -> None:
    assert isinstance(result, CalcResult)
    if result.ok:
        assert result.value is not None
        assert Decimal(result.value).is_finite()
    else:
        assert result.error
        assert "could not be evaluated" not in result.error  # the never-raise safety net


@settings(max_examples=400, deadline=1000)
@given(st.text(max_size=600))
def test_fuzz_arbitrary_text_never_raises(text: str) -> None:
    _assert_well_behaved(calculate(text))


@settings(max_examples=600, deadline=1000)
@given(st.lists(st.sampled_from(_TOKENS), max_size=120))
def test_fuzz_token_soup_never_raises(tokens: list[str]) -> None:
    _assert_well_behaved(calculate("".join(tokens)))


@st.composite
def _integer_expressions(draw: st.DrawFn, depth: int = 0) -> tuple[str, int]:
    """An expression over small integers and its value, computed here without the calculator."""
    if depth >= 4 or draw(st.booleans()):
        value = draw(st.integers(0, 999))
        return str(value), value
    kind = draw(st.sampled_from(["+", "-", "*", "^", "neg", "paren"]))
    left_text, left = draw(_integer_expressions(depth + 1))
    if kind == "neg":
        return f"-({left_text})", -left
    if kind == "paren":
        return f"({left_text})", left
    if kind == "^":
        exponent = draw(st.integers(0, 3))
        return f"({left_text})^{exponent}", left**exponent
    right_text, right = draw(_integer_expressions(depth + 1))
    value = {"+": left + right, "-": left - right, "*": left * right}[kind]
    return f"({left_text}){kind}({right_text})", value


@settings(max_examples=500, deadline=1000)
@given(_integer_expressions())
def test_fuzz_integer_arithmetic_matches_an_independent_oracle(case: tuple[str, int]) -> None:
    text, value = case
    result = calculate(text)
    if abs(value) < 10**34:
        assert result == CalcResult(str(value), None), text
    else:
        _assert_well_behaved(result)
