"""The fast indented writer gives json.dumps(indent=2, ensure_ascii=False)'s text exactly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apconform.core.indented import indented_chunks, indented_text

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities too: json.dumps writes NaN, Infinity
    | st.text(st.characters(exclude_categories=["Cs"]))
)
_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=1000, deadline=None)
@given(_values, st.sampled_from([1, 2, 4]))
def test_the_text_is_json_dumps_indented(value: Any, indent: int) -> None:
    expected = json.dumps(value, indent=indent, ensure_ascii=False)
    assert indented_text(value, indent) == expected
    assert "".join(indented_chunks(value, indent)) == expected


def test_a_report_shaped_document() -> None:
    document = {
        "schemaVersion": "x/1",
        "empty": {},
        "none": [],
        "rows": [{"cellKey": "base/Q01/1", "value": "1.5", "n": 3, "ok": True, "why": None}] * 3,
        "nested": {"a": [[], [1, [2, {}]], {"b": 'é\n"q"'}], "c": 1.25},
    }
    assert indented_text(document) == json.dumps(document, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("value", [{1: "a"}, [(1, 2)], {"a": {1, 2}}, ["x", b"y"]])
def test_anything_but_plain_json_data_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        indented_text(value)
