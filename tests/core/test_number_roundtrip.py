"""Numbers as every language writes them: the kit reads back its own canonical output.

RFC 8785 writes a double the way ECMAScript does, so every double from 2**53
to 1e21 comes out as integer digits that no double holds exactly (2**64 is
``18446744073709552000``). The bounded loader reads any literal as the double
nearest to it, so canonicalize, load, canonicalize again is the identity.
"""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.core import canonical_text, loads

FINITE_DOUBLES = st.floats(allow_nan=False, allow_infinity=False)
# Every bit pattern of a finite double, so the whole exponent range is drawn evenly.
BIT_PATTERNS = (
    st.integers(min_value=0, max_value=2**64 - 1)
    .map(lambda bits: struct.unpack(">d", bits.to_bytes(8, "big"))[0])
    .filter(math.isfinite)
)
# Doubles that ECMAScript and RFC 8785 print as integer digits beyond 2**53.
PRINTED_AS_BIG_INTEGERS = st.one_of(
    st.integers(min_value=2**53 + 1, max_value=10**21 - 1).map(float),
    st.integers(min_value=53, max_value=69).flatmap(
        lambda power: st.integers(min_value=2**power, max_value=2 ** (power + 1)).map(float)
    ),
).map(lambda number: number if number < 1e21 else 2.0**69)


def _same(loaded: Any, original: float) -> None:
    assert loaded == original
    assert math.copysign(1.0, loaded) == math.copysign(1.0, original) or original == 0


@settings(max_examples=3000, deadline=None)
@given(st.one_of(FINITE_DOUBLES, BIT_PATTERNS))
def test_any_double_survives_canonicalize_load_canonicalize(number: float) -> None:
    text = canonical_text(number)
    loaded = loads(text)
    _same(loaded, number)
    assert canonical_text(loaded) == text


@settings(max_examples=2000, deadline=None)
@given(st.one_of(PRINTED_AS_BIG_INTEGERS, PRINTED_AS_BIG_INTEGERS.map(lambda n: -n)))
def test_doubles_printed_as_integers_beyond_2_53_read_back(number: float) -> None:
    text = canonical_text(number)
    assert "e" not in text and "." not in text  # written as plain integer digits
    loaded = loads(text)
    assert type(loaded) is int and loaded == number
    assert canonical_text(loaded) == text
    assert canonical_text(loads(f"[{text}, {number!r}]")) == f"[{text},{text}]"


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.one_of(FINITE_DOUBLES, PRINTED_AS_BIG_INTEGERS, st.integers(-(2**53), 2**53)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=3), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_documents_of_numbers_round_trip(document: Any) -> None:
    text = canonical_text(document)
    assert canonical_text(loads(text)) == text


def test_the_command_line_reads_back_its_own_canonical_output() -> None:
    command = [sys.executable, "-m", "apconform.cli", "canonicalize", "-"]
    first = subprocess.run(
        command, input=b"[1.8446744073709552e19, 295147905179352830000]", capture_output=True
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout == b"[18446744073709552000,295147905179352830000]\n"
    second = subprocess.run(command, input=first.stdout, capture_output=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
