"""The re-scorer's fast JSON reading and writing: the standard library's values, errors, bytes."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from apconform.ap1.scoring.execution import _json_strings
from apconform.ap1.scoring.record import ExecutionView, ToolCallView
from apconform.ap1.scoring.rescoring import _SHAPE, _long_integer, _parse_line, execution_line


def _standard(raw: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    return json.loads(raw, parse_constant=refuse)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"seq":"1","kind":"execution","n":18446744073709551615,"f":-0.0,"e":1.5e-7}',
        b'{"big":123456789012345678901234567890}',  # orjson would read a float
        b'{"neg":-9223372036854775809}',
        b'{"huge":1e400}',  # the standard decoder reads inf
        b'{"lone":"\\ud800"}',  # an escaped lone surrogate
        b'{"a":1,"b":2,"a":3}',
        b"\xef\xbb\xbf{}",  # a byte order mark
        b'{"cesu":"\xed\xa0\x80"}',  # a surrogate written in UTF-8
        b'{"deep":' + b"[" * 2000 + b"]" * 2000 + b"}",
        b'{"deep":' + b"[" * 995 + b"]" * 995 + b"}",  # past the standard recursion, not orjson's
        b'{"deep":' + b"[" * 600 + b"]" * 600 + b"}",
        b"12345678901234567890123",  # a long integer at the start of the line
        b'{"a":[1,-12345678901234567890123],"b":\t12345678901234567890123}',
        b'{"a":0.12345678901234567890123456789,"b":-7.00000000000000000000001e-5}',
        b'{"a":"33.33333333333333333333333","h":"a1234567890123456789012b"}',
    ],
)
def test_a_line_reads_as_the_standard_decoder_reads_it(raw: bytes) -> None:
    try:
        expected: Any = ("value", _standard(raw))
    except (ValueError, RecursionError) as exc:
        expected = ("error", type(exc), str(exc))
    try:
        got: Any = ("value", _parse_line(raw))
    except (ValueError, RecursionError) as exc:
        got = ("error", type(exc), str(exc))
    assert repr(got) == repr(expected)


@pytest.mark.parametrize(
    ("raw", "standard"),
    [
        (b"12345678901234567890123", True),
        (b"[1234567890123456789]", True),
        (b'{"a":1234567890123456789}', True),
        (b'{"a":-1234567890123456789}', True),
        (b'{"a": 1234567890123456789}', True),
        (b'{"a":\n\r\t1234567890123456789}', True),
        (b'{"a":[1,1234567890123456789]}', True),
        (b'{"a":"x:12345678901234567890123"}', True),  # in a string, but after a colon
        (b'{"a":"x","b":"12345678901234567890123"}', False),  # after a quote
        (b'{"a":123456789012345678}', False),  # 18 digits fit in 64 bits
        (b'{"a":0.12345678901234567890123}', False),  # a fraction's digits
        (b'{"a":"33.3333333333333333333333333"}', False),
        (b'{"h":"f81234567890123456789012345e"}', False),  # digits in a hash
        (b'{"a":1.5e1234567890123456789,"b":"x.' + b"9" * 60 + b'"}', False),
        (b'{"a":"1.' + b"9" * 40 + b',12345678901234567890"}', True),  # a second run counts
    ],
)
def test_only_lines_with_a_possible_long_integer_go_to_the_standard_decoder(
    raw: bytes, standard: bool
) -> None:
    assert _long_integer(raw.translate(_SHAPE)) is standard
    assert repr(_parse_line(raw)) == repr(_standard(raw))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"x":NaN}', "NaN is not a JSON number"),
        (b'{"x":-Infinity}', "-Infinity is not a JSON number"),
        (b'{"x":1,}', "Expecting property name enclosed in double quotes: line 1 column 8"),
        (b'{"x":"\xff"}', "'utf-8' codec can't decode byte 0xff in position 6: invalid start byte"),
    ],
)
def test_a_bad_line_gets_the_standard_message(raw: bytes, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        _parse_line(raw)
    assert str(caught.value).startswith(message)


def test_a_row_is_written_as_the_standard_encoder_writes_it() -> None:
    row = {
        "z": ["\x1f\x7f\u2028", '\\"\b\f\n\r\t/', "\U0001f600 é"],
        "a": {"y": None, "b": True, "c": False, "é": "x", "B": []},
        "n": 18446744073709551616,
    }
    standard = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert execution_line(row) == standard.encode("utf-8")
    assert execution_line({"b": "1", "a": "2"}) == b'{"a":"2","b":"1"}'


def test_a_value_json_cannot_write_is_refused_as_before() -> None:
    with pytest.raises(TypeError, match="Decimal is not JSON serializable"):
        execution_line({"x": Decimal("1.5")})
    with pytest.raises(UnicodeEncodeError):
        execution_line({"x": "\ud800"})


def _call(arguments: str, returned: str | None) -> ToolCallView:
    return ToolCallView(1, "1", "calculator", arguments, returned, "result")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"expression": "1+2"}', "1+2"),
        ('{"expression": "1+2", "n": 123456789012345678901234567890}', "1+2"),
        ('{"expression": "1+2", "n": NaN}', "1+2"),  # the standard decoder reads NaN here
        ('{"expression": "\\ud800"}', "\ud800"),
        ('{"expression": 12}', None),
        ("not json", None),
        ('{"expression": "x", "deep": ' + "[" * 995 + "]" * 995 + "}", None),
    ],
)
def test_a_call_argument_reads_as_the_standard_decoder_reads_it(
    arguments: str, expected: str | None
) -> None:
    call = _call(arguments, None)
    if "deep" in arguments:
        with pytest.raises(RecursionError):
            call.argument("expression")
        return
    assert call.argument("expression") == expected


def test_a_call_return_reads_as_before() -> None:
    assert _call("{}", '{"result":"-36.900"}').result() == Decimal("-36.900")
    assert _call("{}", '{"result":"NaN"}').result() is None
    assert _call("{}", '{"result":"1", "x": Infinity}').result() == Decimal("1")
    assert _call("{}", '{"error":"division by zero"}').result() is None
    assert _call("{}", None).result() is None


@pytest.mark.parametrize(
    "values",
    [
        [],
        ["52.21"],
        ["-0.5", "1200"],
        ['{"expression": "(2860.75 * 21.9) / 100 / 12"}', '{"expression": "a\\\\b"}'],
        ["\x00\x1f\x7f", "é \u2028", "\ud800", "\U0001f600", ""],
    ],
)
def test_a_d2_surface_is_written_as_json_dumps_writes_it(values: list[str]) -> None:
    assert _json_strings(values) == json.dumps(values)


def test_the_d2_surfaces_of_a_list_of_strings() -> None:
    assert _json_strings(["1", "2.5"]) == '["1", "2.5"]'
    assert _json_strings(['{"x": "\u00e9"}']) == '["{\\"x\\": \\"\\u00e9\\"}"]'


def test_the_last_body_is_the_last_response_with_a_body_text() -> None:
    def view(*rounds: dict[str, Any]) -> ExecutionView:
        return ExecutionView(
            "c", "base", "i", "1", "EXECUTED", None, "stop", None, True, True, (), rounds
        )

    first = {"response": {"bodyText": "first"}}
    second = {"response": {"bodyText": "second"}}
    assert view(first, second, {"response": None}, {}).last_body() == "second"
    assert view(first, {"response": {"bodyText": 7}}).last_body() == "first"
    assert view({"response": {}}).last_body() is None
    assert view().last_body() is None
