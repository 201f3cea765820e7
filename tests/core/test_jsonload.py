"""The bounded loader: every limit at its boundary and one past it, and every refusal's code."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Any

import pytest

from apconform.core import (
    DEFAULT_LIMITS,
    ApconformError,
    Limits,
    canonical_text,
    check_value,
    format_path,
    load_path,
    load_stream,
    loads,
)

MIB = 1_048_576


def refusal(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> ApconformError:
    with pytest.raises(ApconformError) as caught:
        loads(data, limits=limits)
    return caught.value


def wrapped(levels: int, inner: str = "1") -> str:
    return "[" * levels + inner + "]" * levels


def wrapped_value(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


# --- size -------------------------------------------------------------------------------


def test_size_exactly_at_the_limit_passes() -> None:
    document = b'"' + b"a" * (MIB - 2) + b'"'
    assert len(document) == MIB
    assert loads(document) == "a" * (MIB - 2)


def test_size_one_byte_over_the_limit_fails() -> None:
    error = refusal(b'"' + b"a" * (MIB - 1) + b'"')
    assert error.code == "APC-JSON-SIZE"
    assert "1,048,577 bytes" in error.message
    assert "1,048,576" in error.message


def test_size_of_a_str_is_measured_in_utf8_bytes() -> None:
    at_limit = '"' + "\u00e9" * (MIB // 2 - 1) + '"'  # 2 + 1,048,574 bytes
    assert loads(at_limit) == "\u00e9" * (MIB // 2 - 1)
    error = refusal("\u00e9" * 524_289)  # 524,289 characters, 1,048,578 bytes
    assert error.code == "APC-JSON-SIZE"
    assert "1,048,578 bytes" in error.message


def test_size_limit_is_configurable_and_the_hint_says_so() -> None:
    error = refusal(b"[1, 2, 3]", Limits(max_bytes=8))
    assert error.code == "APC-JSON-SIZE"
    assert "at most 8 bytes" in error.hint


# --- depth ------------------------------------------------------------------------------


def test_scalar_wrapped_in_32_arrays_passes() -> None:
    value: Any = loads(wrapped(32))
    for _ in range(32):
        value = value[0]
    assert value == 1


def test_scalar_wrapped_in_33_arrays_fails_with_its_path() -> None:
    error = refusal(wrapped(33))
    assert error.code == "APC-JSON-DEPTH"
    assert error.path == "$" + "[0]" * 33
    assert "depth 33" in error.message


def test_empty_array_at_depth_32_passes_because_only_values_count() -> None:
    assert loads(wrapped(33, "")) is not None  # innermost empty array sits at depth 32
    assert refusal(wrapped(34, "")).code == "APC-JSON-DEPTH"


def test_object_depth_path_names_the_keys() -> None:
    document = '{"a":' * 33 + "true" + "}" * 33
    error = refusal(document)
    assert error.code == "APC-JSON-DEPTH"
    assert error.path == "$" + ".a" * 33


def test_a_megabyte_of_open_brackets_is_refused_quickly() -> None:
    started = time.perf_counter()
    error = refusal("[" * 1_000_000)
    elapsed = time.perf_counter() - started
    assert error.code == "APC-JSON-DEPTH"
    assert elapsed < 0.5


def test_brackets_inside_strings_do_not_count_towards_depth() -> None:
    assert loads('["' + "[" * 1000 + '\\"{{"]') == ["[" * 1000 + '"{{']


def test_unterminated_string_full_of_brackets_is_a_syntax_error() -> None:
    assert refusal('["' + "[" * 100_000).code == "APC-JSON-SYNTAX"


def test_custom_depth_limit() -> None:
    limits = Limits(max_depth=2)
    assert loads("[[1]]", limits=limits) == [[1]]
    error = refusal("[[[1]]]", limits)
    assert error.code == "APC-JSON-DEPTH"
    assert error.path == "$[0][0][0]"
    assert "at most 2 levels" in error.hint


# --- nodes ------------------------------------------------------------------------------


def test_array_of_99999_numbers_is_exactly_100000_values_and_passes() -> None:
    assert len(loads("[" + ",".join(["7"] * 99_999) + "]")) == 99_999


def test_array_of_100000_numbers_is_100001_values_and_fails() -> None:
    error = refusal("[" + ",".join(["7"] * 100_000) + "]")
    assert error.code == "APC-JSON-NODES"
    assert "100,000" in error.message


def test_every_value_counts_but_keys_do_not() -> None:
    document = '{"a": [1, 2], "b": {"c": null}}'  # root, a, 1, 2, b, c: six values
    assert loads(document, limits=Limits(max_nodes=6)) == {"a": [1, 2], "b": {"c": None}}
    assert refusal(document, Limits(max_nodes=5)).code == "APC-JSON-NODES"
    assert loads('"x"', limits=Limits(max_nodes=1)) == "x"


# --- numbers ----------------------------------------------------------------------------


def test_number_literal_of_exactly_max_chars_passes() -> None:
    literal = "0." + "1" * 98
    assert len(literal) == 100
    assert loads(literal) == float(literal)


def test_number_literal_one_char_longer_fails() -> None:
    error = refusal("[-0." + "1" * 98 + "]")
    assert error.code == "APC-JSON-NUMBER"
    assert error.path == "$[0]"
    assert "101 characters" in error.message


def test_ten_thousand_digit_integer_is_refused_fast() -> None:
    started = time.perf_counter()
    error = refusal('{"n": ' + "9" * 10_000 + "}")
    assert time.perf_counter() - started < 0.5
    assert error.code == "APC-JSON-NUMBER"
    assert error.path == "$.n"
    assert "10,000 characters" in error.message


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("9007199254740992", 2**53),
        ("-9007199254740992", -(2**53)),
        ("1152921504606846976", 2**60),  # beyond 2**53 but an exact double
        ("0e-400", 0.0),
        ("-0", 0),
        ("1e-320", 1e-320),  # subnormal, not zero
        ("1.7976931348623157e308", 1.7976931348623157e308),
    ],
)
def test_numbers_a_double_holds_pass(literal: str, value: float) -> None:
    assert loads(literal) == value


@pytest.mark.parametrize(
    ("literal", "value", "canonical"),
    [
        # How RFC 8785 and JavaScript write 2**64, 2**68 and the double nearest 1e21 - 1e5.
        ("18446744073709552000", 2**64, "18446744073709552000"),
        ("295147905179352830000", 2**68, "295147905179352830000"),
        ("999999999999999700000", 999999999999999737856, "999999999999999700000"),
        ("-18446744073709552000", -(2**64), "-18446744073709552000"),
        # Digits no double holds exactly are read as the nearest double, as JSON.parse does.
        ("9007199254740993", 2**53, "9007199254740992"),
        ("-9007199254740993", -(2**53), "-9007199254740992"),
        ("1" + "0" * 99, int(1e99), "1e+99"),
    ],
)
def test_integers_beyond_2_53_are_read_as_the_nearest_double(
    literal: str, value: int, canonical: str
) -> None:
    loaded = loads("[" + literal + "]")[0]
    assert type(loaded) is int
    assert loaded == value
    assert canonical_text(loaded) == canonical


def test_every_canonical_number_reads_back_to_the_same_text() -> None:
    text = "[18446744073709552000,1.8446744073709552e+19,1e+21,5e-324,-0.000001,123456789012]"
    assert canonical_text(loads(text)) == (
        "[18446744073709552000,18446744073709552000,1e+21,5e-324,-0.000001,123456789012]"
    )
    assert canonical_text(loads(canonical_text(loads(text)))) == canonical_text(loads(text))


def test_an_integer_literal_that_overflows_a_double_is_refused() -> None:
    error = refusal("[" + "9" * 400 + "]", Limits(max_number_chars=1000))
    assert error.code == "APC-JSON-NUMBER"
    assert "overflows" in error.message


@pytest.mark.parametrize(
    ("literal", "fragment"),
    [
        ("1e400", "overflows"),
        ("-1e400", "overflows"),
        ("1e-400", "underflows"),
        ("-2.5E-400", "underflows"),
    ],
)
def test_numbers_a_double_cannot_hold_are_refused(literal: str, fragment: str) -> None:
    error = refusal('{"x": [' + literal + "]}")
    assert error.code == "APC-JSON-NUMBER"
    assert error.path == "$.x[0]"
    assert fragment in error.message


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nonfinite_literals_are_refused(literal: str) -> None:
    error = refusal('{"cost": ' + literal + "}")
    assert error.code == "APC-JSON-NONFINITE"
    assert error.path == "$.cost"


# --- encoding, BOM, syntax --------------------------------------------------------------


def test_byte_order_mark_is_refused_in_bytes_and_str() -> None:
    for document in (b"\xef\xbb\xbf{}", "\ufeff{}"):
        error = refusal(document)
        assert error.code == "APC-JSON-BOM"
        assert "remove the byte order mark" in error.message


@pytest.mark.parametrize(
    ("document", "offset"),
    [
        (b'{"a": "\xff"}', 7),
        (b'["ok",\n "\xed\xa0\x80"]', 9),  # an encoded surrogate is not UTF-8
        (b'"\xc3"', 1),  # truncated sequence
    ],
)
def test_invalid_utf8_is_refused_with_its_offset(document: bytes, offset: int) -> None:
    error = refusal(document)
    assert error.code == "APC-JSON-ENCODING"
    assert f"at byte {offset} " in error.message


@pytest.mark.parametrize(
    ("document", "line", "column"),
    [
        ('{\n  "a": 1,\n  "b": tru\n}', 3, 8),
        ("[1,\n 2,,]", 2, 4),
        ("", 1, 1),
        ('{"a" 1}', 1, 6),
        ("[1] [2]", 1, 5),
        ("{'a': 1}", 1, 2),
    ],
)
def test_syntax_errors_give_line_and_column(document: str, line: int, column: int) -> None:
    error = refusal(document)
    assert error.code == "APC-JSON-SYNTAX"
    assert f"line {line} column {column}" in error.message
    assert (error.context["line"], error.context["column"]) == (line, column)
    assert error.__cause__ is None
    assert error.__suppress_context__


def test_source_name_appears_in_the_message() -> None:
    with pytest.raises(ApconformError) as caught:
        loads(b"[", source="manifest.json")
    assert caught.value.message.startswith("manifest.json: line 1 column 2")


# --- keys and strings -------------------------------------------------------------------


def test_duplicate_key_is_refused_with_its_path() -> None:
    error = refusal('{"suite": {"slots": [{"id": "a", "classId": "b", "id": "c"}]}}')
    assert error.code == "APC-JSON-DUPLICATE-KEY"
    assert error.path == "$.suite.slots[0].id"
    assert 'key "id" appears more than once' in error.message


def test_duplicate_key_spelled_with_an_escape_is_still_a_duplicate() -> None:
    error = refusal('{"a": 1, "\\u0061": 2}')
    assert error.code == "APC-JSON-DUPLICATE-KEY"
    assert error.path == "$.a"


def test_lone_surrogate_in_a_value_is_refused() -> None:
    error = refusal('{"note": ["fine", "\\ud800"]}')
    assert error.code == "APC-JSON-SURROGATE"
    assert error.path == "$.note[1]"


def test_lone_surrogate_in_a_key_is_refused_and_the_path_stays_printable() -> None:
    error = refusal('{"\\ud800": 1}')
    assert error.code == "APC-JSON-SURROGATE"
    assert error.path == "$['\\ud800']"
    str(error).encode("utf-8")  # no raw surrogate leaks into the printable text


def test_surrogate_pairs_are_fine_but_reversed_halves_are_not() -> None:
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"
    assert refusal('"\\ude00\\ud83d"').code == "APC-JSON-SURROGATE"


def test_a_well_formed_document_loads_unchanged() -> None:
    document = '{"b": [1, 2.5, "x\\u00e9", true, false, null], "a": {"": -0.0}}'
    assert loads(document) == {"b": [1, 2.5, "x\u00e9", True, False, None], "a": {"": 0.0}}
    assert loads(document.encode("utf-8")) == loads(document)


# --- files and streams ------------------------------------------------------------------


def test_load_path_reads_a_regular_file(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    target.write_bytes(b'{"ok": true}\n')
    assert load_path(target) == {"ok": True}
    assert load_path(str(target)) == {"ok": True}


def test_load_path_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ApconformError) as caught:
        load_path(tmp_path / "absent.json")
    assert caught.value.code == "APC-FILE-NOT-FOUND"
    assert "absent.json" in caught.value.message


def test_load_path_directory(tmp_path: Path) -> None:
    with pytest.raises(ApconformError) as caught:
        load_path(tmp_path)
    assert caught.value.code == "APC-FILE-NOT-REGULAR"
    assert "a directory" in caught.value.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX only")
def test_load_path_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(ApconformError) as caught:
        load_path(pipe)
    assert caught.value.code == "APC-FILE-NOT-REGULAR"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read any file"
)
def test_load_path_unreadable_file(tmp_path: Path) -> None:
    target = tmp_path / "secret.json"
    target.write_bytes(b"{}")
    target.chmod(0)
    with pytest.raises(ApconformError) as caught:
        load_path(target)
    assert caught.value.code == "APC-FILE-UNREADABLE"


def test_load_path_file_over_the_limit(tmp_path: Path) -> None:
    target = tmp_path / "big.json"
    target.write_bytes(b'"' + b"a" * (MIB - 1) + b'"')
    with pytest.raises(ApconformError) as caught:
        load_path(target)
    assert caught.value.code == "APC-JSON-SIZE"
    assert "1,048,577 bytes" in caught.value.message


def test_load_path_huge_sparse_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    target = tmp_path / "huge.json"
    with open(target, "wb") as handle:
        handle.truncate(8 * 1024**3)  # 8 GiB, sparse
    started = time.perf_counter()
    with pytest.raises(ApconformError) as caught:
        load_path(target)
    assert time.perf_counter() - started < 0.5
    assert caught.value.code == "APC-JSON-SIZE"


def test_load_stream_reads_a_document() -> None:
    assert load_stream(io.BytesIO(b'{"a": [1]}')) == {"a": [1]}


class Endless:
    """A stream that never ends, handing out short reads; it records how much was taken."""

    def __init__(self) -> None:
        self.taken = 0

    def read(self, size: int = -1, /) -> bytes:
        chunk = b" " * min(size, 4096)
        self.taken += len(chunk)
        return chunk


def test_load_stream_over_the_limit_stops_reading_after_limit_plus_one() -> None:
    stream = Endless()
    with pytest.raises(ApconformError) as caught:
        load_stream(stream)
    assert caught.value.code == "APC-JSON-SIZE"
    assert stream.taken == MIB + 1
    assert "<stdin>" in caught.value.message


def test_load_stream_exactly_at_the_limit() -> None:
    assert load_stream(io.BytesIO(b"[" + b" " * (MIB - 2) + b"]")) == []
    with pytest.raises(ApconformError) as caught:
        load_stream(io.BytesIO(b"[" + b" " * (MIB - 1) + b"]"))
    assert caught.value.code == "APC-JSON-SIZE"


# --- in-process values ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "code", "path"),
    [
        ({"a": (1, 2)}, "APC-JSON-TYPE", "$.a"),
        ({1: "x"}, "APC-JSON-TYPE", "$['1']"),
        ([float("nan")], "APC-JSON-NONFINITE", "$[0]"),
        ({"w": float("inf")}, "APC-JSON-NONFINITE", "$.w"),
        ([2**53 + 1], "APC-JSON-NUMBER", "$[0]"),
        ({"big": 10**400}, "APC-JSON-NUMBER", "$.big"),
        ({"s": "\udc00"}, "APC-JSON-SURROGATE", "$.s"),
        (wrapped_value(33), "APC-JSON-DEPTH", "$" + "[0]" * 33),
        (list(range(100_000)), "APC-JSON-NODES", "$"),
    ],
)
def test_check_value_applies_the_same_rules(value: Any, code: str, path: str) -> None:
    with pytest.raises(ApconformError) as caught:
        check_value(value)
    assert caught.value.code == code
    assert caught.value.path == path


def test_check_value_accepts_values_within_bounds() -> None:
    check_value({"a": [1, 2.5, "x", None, True], "b": wrapped_value(31)})
    check_value(wrapped_value(32))
    check_value(list(range(99_999)))


def test_check_value_stops_a_reference_cycle_at_the_depth_limit() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ApconformError) as caught:
        check_value({"c": cycle})
    assert caught.value.code == "APC-JSON-DEPTH"


# --- paths and limits -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("segments", "expected"),
    [
        ([], "$"),
        (["suite", "slots", 3, "id"], "$.suite.slots[3].id"),
        (["a b"], "$['a b']"),
        (["it's"], "$['it\\'s']"),
        (["1abc", "_x9"], "$['1abc']._x9"),
        (["\u00e9"], "$['\u00e9']"),
        (["line\nbreak"], "$['line\\nbreak']"),
        (['say "hi"'], "$['say \"hi\"']"),
    ],
)
def test_format_path(segments: list[str | int], expected: str) -> None:
    assert format_path(segments) == expected


def test_limits_refuse_nonsense_values() -> None:
    assert Limits(1_048_576, 32, 100_000, 100) == DEFAULT_LIMITS
    with pytest.raises(ValueError, match="max_nodes"):
        Limits(max_nodes=0)
    with pytest.raises(ValueError, match="at most 128"):
        Limits(max_depth=129)
    with pytest.raises(ValueError, match="at most 1000"):
        Limits(max_number_chars=1001)


def test_load_path_that_cannot_be_opened_is_unreadable(tmp_path: Path) -> None:
    blocker = tmp_path / "plain.json"
    blocker.write_bytes(b"{}")
    with pytest.raises(ApconformError) as caught:
        load_path(blocker / "inside.json")  # a file cannot contain files
    assert caught.value.code == "APC-FILE-UNREADABLE"
    assert "cannot open" in caught.value.message
