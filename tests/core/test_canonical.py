"""RFC 8785 canonical JSON: the RFC's published vectors, the APx kernel's digests, and refusals."""

from __future__ import annotations

import hashlib
import json
import struct
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.core import (
    TEXT_HASH_METHOD,
    ApconformError,
    canonical_bytes,
    canonical_text,
    normalize_newlines,
    sha256_bytes,
    sha256_hex,
    sha256_text,
)
from apconform.core.canonical import _c_encodes, _python_text


def double(ieee_hex: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(ieee_hex))[0])


# RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical serialisation.
APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


@pytest.mark.parametrize(("ieee_hex", "expected"), APPENDIX_B)
def test_appendix_b_numbers(ieee_hex: str, expected: str) -> None:
    value = double(ieee_hex)
    assert canonical_text(value) == expected
    assert float(expected) == value  # the expected text reads back as the same double


@pytest.mark.parametrize("ieee_hex", ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])
def test_appendix_b_nan_and_infinity_are_refused(ieee_hex: str) -> None:
    with pytest.raises(ApconformError) as caught:
        canonical_text({"x": [double(ieee_hex)]})
    assert caught.value.code == "APC-JCS-NONFINITE"
    assert caught.value.path == "$.x[0]"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (-0.0, "0"),
        (5e-324, "5e-324"),
        (1.0, "1"),
        (-2.5, "-2.5"),
        (1e16, "10000000000000000"),
        (0.1 + 0.2, "0.30000000000000004"),
        (123e-9, "1.23e-7"),
        (-1.5e300, "-1.5e+300"),
        (4.5, "4.5"),
        (2e-3, "0.002"),
        (0, "0"),
        (-7, "-7"),
        (2**53, "9007199254740992"),
        (-(2**53), "-9007199254740992"),
        (2**60, "1152921504606847000"),  # exact double, written with ES shortest digits
        (2**68, "295147905179352830000"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        ([True, 1, False, 0], "[true,1,false,0]"),
        ({}, "{}"),
        ([], "[]"),
        ({"a": [], "b": {}}, '{"a":[],"b":{}}'),
    ],
)
def test_scalar_and_container_forms(value: Any, expected: str) -> None:
    assert canonical_text(value) == expected


def test_rfc_sorting_example() -> None:
    value = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\U0001f600": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
    }
    expected = (
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control",'
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
        '"\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
    )
    assert canonical_text(value) == expected


def test_astral_keys_sort_by_utf16_surrogates_not_code_points() -> None:
    # U+1F600 is D83D DE00 in UTF-16, so it sorts before U+FB33 and U+E000.
    value = {"\ue000": 1, "\U0001f600": 2, "\ufb33": 3, "Z": 4, "a": 5, "\u00e9": 6}
    assert canonical_text(value) == '{"Z":4,"a":5,"\u00e9":6,"\U0001f600":2,"\ue000":1,"\ufb33":3}'


RFC_STRING_LITERAL = r'''"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/"'''
RFC_STRING_CANONICAL = '"\u20ac' + r'''$\u000f\nA'B\"\\\\\"/"'''


def test_rfc_string_escaping_example() -> None:
    decoded = json.loads(RFC_STRING_LITERAL)
    assert decoded == '\u20ac$\x0f\nA\'B"\\\\"/'
    assert canonical_text(decoded) == RFC_STRING_CANONICAL


def test_rfc_main_example() -> None:
    source = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        f' "string": {RFC_STRING_LITERAL}, "literals": [null, true, false]}}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        f'"string":{RFC_STRING_CANONICAL}}}'
    )
    assert canonical_text(json.loads(source)) == expected
    assert canonical_bytes(json.loads(source)) == expected.encode("utf-8")


def _reference_escape(char: str) -> str:
    """The JCS string rule written out character by character, to check the fast path."""
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
    short["\t"] = "\\t"
    if char in short:
        return short[char]
    if ord(char) < 0x20:
        return f"\\u{ord(char):04x}"
    return char


def test_control_characters_use_short_or_lowercase_unicode_escapes() -> None:
    controls = "".join(chr(code) for code in range(0x20))
    expected = (
        '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r'
        "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019"
        '\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"'
    )
    assert canonical_text(controls) == expected


def test_del_slash_and_line_separators_are_written_raw() -> None:
    raw = "/\x7f\u2028\u2029\u00e9\U0001f600"
    assert canonical_text(raw) == '"' + raw + '"'
    assert canonical_bytes("\x7f\u2028") == b'"\x7f\xe2\x80\xa8"'


def test_every_code_point_matches_the_character_rule() -> None:
    scalars = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]
    text = "".join(scalars)
    assert canonical_text(text) == '"' + "".join(_reference_escape(c) for c in scalars) + '"'


@pytest.mark.parametrize(
    ("value", "code", "path"),
    [
        (float("nan"), "APC-JCS-NONFINITE", "$"),
        ({"a": float("inf")}, "APC-JCS-NONFINITE", "$.a"),
        ([1, [float("-inf")]], "APC-JCS-NONFINITE", "$[1][0]"),
        ({1: "x"}, "APC-JCS-KEY-TYPE", "$"),
        ({"a": {None: 1}}, "APC-JCS-KEY-TYPE", "$.a"),
        ({"s": ["ok", "a\ud800"]}, "APC-JCS-SURROGATE", "$.s[1]"),
        ({"k": {"\udc00": 1}}, "APC-JCS-SURROGATE", "$.k['\\udc00']"),
        ("\ud83d\ude00", "APC-JCS-SURROGATE", "$"),  # a pair in a Python str is two lone halves
        ((1, 2), "APC-JCS-TYPE", "$"),
        ({"x": {1, 2}}, "APC-JCS-TYPE", "$.x"),
        ({"x": [b"raw"]}, "APC-JCS-TYPE", "$.x[0]"),
        ({"x": [Decimal("1.5")]}, "APC-JCS-TYPE", "$.x[0]"),
        ({"odd key": object()}, "APC-JCS-TYPE", "$['odd key']"),
        (2**53 + 1, "APC-JCS-INTEGER", "$"),
        ({"n": -(2**53) - 1}, "APC-JCS-INTEGER", "$.n"),
        ([10**400], "APC-JCS-INTEGER", "$[0]"),
    ],
)
def test_refusals_carry_code_and_path(value: Any, code: str, path: str) -> None:
    with pytest.raises(ApconformError) as caught:
        canonical_bytes(value)
    assert caught.value.code == code
    assert caught.value.path == path


def test_integer_refusal_says_to_send_a_string() -> None:
    with pytest.raises(ApconformError, match="send it as a string"):
        canonical_text(2**53 + 1)


def _nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_nesting_bound_and_cycles_fail_cleanly() -> None:
    assert canonical_text(_nested(256)) == "[" * 256 + "]" * 256
    with pytest.raises(ApconformError) as caught:
        canonical_text(_nested(257))
    assert caught.value.code == "APC-JCS-DEPTH"
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ApconformError) as caught:
        canonical_text({"loop": cycle})
    assert caught.value.code == "APC-JCS-DEPTH"


def test_subclasses_of_json_types_encode_as_their_base_type() -> None:
    from collections import OrderedDict
    from enum import IntEnum

    class Level(IntEnum):
        HIGH = 3

    class Tag(str):
        pass

    assert canonical_text(OrderedDict([("b", Level.HIGH), ("a", Tag("x"))])) == '{"a":"x","b":3}'


def test_sha256_of_a_string_hashes_its_utf8_not_its_json() -> None:
    assert sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_sha256_of_a_value_hashes_its_canonical_bytes() -> None:
    digest = sha256_hex({"b": 2, "a": 1})
    assert digest == hashlib.sha256(b'{"a":1,"b":2}').hexdigest()
    assert digest == "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777"


def test_digests_published_by_the_apx_reference_kernel() -> None:
    evaluator = {"id": "deterministic-toy-checks", "version": "0.1.0", "qualityThreshold": 0.8}
    assert canonical_text(evaluator) == (
        '{"id":"deterministic-toy-checks","qualityThreshold":0.8,"version":"0.1.0"}'
    )
    assert sha256_hex(evaluator) == (
        "5e5f4e9f7b460bd6e47f394e79c280ad9cf26887927dccc5f81e39f120be787d"
    )
    slots = [
        {"id": "finance-1", "classId": "financial-reconciliation"},
        {"id": "research-1", "classId": "source-prioritization"},
        {"id": "software-1", "classId": "output-verification"},
    ]
    assert sha256_hex(slots) == "45249d335efb3d7986de51a180681a812e268aff8a2f0197b06811898042b5a0"
    assert sha256_hex("human verdict").startswith("bd395c4b")
    assert sha256_hex("human verdict").endswith("a557")


def test_sha256_bytes() -> None:
    assert sha256_bytes(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_sha256_hex_refuses_a_string_with_a_lone_surrogate() -> None:
    with pytest.raises(ApconformError) as caught:
        sha256_hex("x\udfff")
    assert caught.value.code == "APC-JCS-SURROGATE"


def test_text_hash_is_independent_of_line_endings() -> None:
    assert normalize_newlines("a\r\n\r\nb\rc\n") == "a\n\nb\nc\n"
    assert sha256_text("a\r\nb\rc\n") == sha256_text("a\nb\nc\n")
    assert sha256_text("a\r\nb\rc\n") == hashlib.sha256(b"a\nb\nc\n").hexdigest()
    assert sha256_text("a\n") != sha256_text("a\n\n")
    assert TEXT_HASH_METHOD == "sha256-utf8-lf"


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]))
)
json_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"])), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_canonical_text_round_trips_and_is_idempotent(value: Any) -> None:
    text = canonical_text(value)
    # JCS numbers are doubles, so read integers back as floats (2**60 prints as ...847000).
    reparsed = json.loads(text, parse_int=float)
    assert reparsed == value
    assert canonical_text(reparsed) == text
    assert canonical_bytes(value) == text.encode("utf-8")


# Values that reach both encoders: floats of every layout, integers either side of 2**53,
# strings and keys with control, non-ASCII, astral and (refused) surrogate characters.
_any_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1e21, 1e-7, 123.0, 1e16, 0.000001, 5e-324])
    | st.text(st.characters())
)
_any_values = st.recursive(
    _any_scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(st.characters(), max_size=4), children, max_size=5)
    ),
    max_leaves=30,
)


def _outcome(encode: Any, value: Any) -> tuple[str, str]:
    try:
        return "text", encode(value)
    except ApconformError as error:
        return error.code, error.path or ""


@settings(max_examples=1000, deadline=None)
@given(_any_values)
def test_the_c_fast_path_writes_what_the_python_encoder_writes(value: Any) -> None:
    # canonical_text hands the values it can to the standard library's C encoder; the text (or
    # the refusal, with its path) must be the one the node-by-node encoder gives.
    assert _outcome(canonical_text, value) == _outcome(_python_text, value)


def test_the_fast_path_is_taken_for_plain_records_and_declined_for_the_rest() -> None:
    assert _c_encodes({"a": [1, "x", None, True, 0.5, {"b": "é"}]}, 0)
    for declined in ({"é": 1}, [1.0], [1e21], [2**53 + 1], ["\ud800"], [Decimal(1)], {1: 2}):
        assert not _c_encodes(declined, 0), declined
