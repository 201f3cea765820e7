"""The member memo: the bounded loader's value or refusal, with repeated members read once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from apconform.core import ApconformError, Limits, loads
from apconform.core.jsonmemo import MemberMemo

INPUTS = {
    "config": {"name": "run", "weights": [0.25, 0.5, 1e-3], "max": 9007199254740993},
    "questions": {
        "items": [{"id": f"Q{i}", "text": "caf\u00e9 \U0001f600", "n": i} for i in range(50)]
    },
    "text": 'line one\nline "two" \\ and [brackets] {braces}',
}


def body(record: Any, **extra: Any) -> bytes:
    return json.dumps({**INPUTS, "record": record, **extra}).encode("utf-8")


def outcome(load: Any, data: bytes, limits: Limits | None = None) -> Any:
    """What a loader gives: the value, or the refusal's every part."""
    try:
        return ("value", load(data))
    except ApconformError as error:
        return (
            "refused",
            error.error_code.code,
            error.message,
            error.path,
            error.hint,
            error.context,
        )


def via_memo(memo: MemberMemo) -> Any:
    return lambda data: memo.loads(data, source="request body").value


def via_loader(data: bytes) -> Any:
    return loads(data, source="request body")


def test_a_body_and_its_repeats_load_as_the_loader_loads_them() -> None:
    memo = MemberMemo()
    data = body({"id": 1, "answer": "42"})
    first = memo.loads(data)
    assert first.value == loads(data)
    assert json.dumps(first.value) == json.dumps(loads(data))  # same order, same types
    assert first.value["config"]["max"] == 9007199254740992  # the nearest double, as loaded
    assert first.remembered == {}  # seen once: not remembered yet
    second = memo.loads(data)
    assert second.value == first.value
    assert sorted(second.remembered) == ["config", "questions", "record", "text"]
    third = memo.loads(data)
    assert third.value == first.value
    assert third.value["questions"] is second.value["questions"]  # remembered, not re-read
    assert third.remembered == second.remembered


def test_a_body_with_another_record_reuses_the_inputs_and_reads_the_record() -> None:
    memo = MemberMemo()
    memo.loads(body({"id": 0}))
    first = memo.loads(body({"id": 1}))
    second = memo.loads(body({"id": 2}))
    assert second.value == loads(body({"id": 2}))
    assert second.value["questions"] is first.value["questions"]
    assert second.value["record"] == {"id": 2}
    assert sorted(second.remembered) == ["config", "questions", "text"]  # records never repeat
    assert len(memo) == 3


def test_an_eager_memo_remembers_members_the_first_time() -> None:
    memo = MemberMemo(eager=True)
    first = memo.loads(body({"id": 1}))
    second = memo.loads(body({"id": 2}))
    assert sorted(first.remembered) == ["config", "questions", "record", "text"]
    assert second.value["questions"] is first.value["questions"]
    assert second.value["record"] is not first.value["record"]
    assert second.value == loads(body({"id": 2}))
    assert len(memo) == 5


def test_whitespace_between_members_and_inside_them_is_read_as_the_loader_reads_it() -> None:
    memo = MemberMemo(eager=True)
    memo.loads(body({"id": 1}))
    spaced = b' \r\n{ "text" :\t' + json.dumps(INPUTS["text"]).encode() + b" ,\n"
    spaced += b'"config":' + json.dumps(INPUTS["config"], indent=2).encode() + b"}\n "
    assert memo.loads(spaced).value == loads(spaced)
    assert list(memo.loads(spaced).value) == ["text", "config"]


REFUSED = [  # and two documents the memo leaves to the loader, which accepts them
    pytest.param(b"", id="empty"),
    pytest.param(b"[1, 2]", id="not-an-object"),
    pytest.param(b"{}", id="empty-object"),
    pytest.param(b'{"a": 1} x', id="extra-data"),
    pytest.param(b'{"a": 1,}', id="trailing-comma"),
    pytest.param(b'{"a" 1}', id="missing-colon"),
    pytest.param(b'{"a": [1, 2}', id="syntax-inside-a-member"),
    pytest.param(b'{"a": 1, "a": 2}', id="duplicate-top-level-key"),
    pytest.param(b'{"a": {"b": 1, "b": 2}}', id="duplicate-inner-key"),
    pytest.param(b'{"\\ud800": 1}', id="surrogate-in-a-top-level-key"),
    pytest.param(b'{"a": ["x\\udc00"]}', id="surrogate-in-a-string"),
    pytest.param(b'{"a": NaN}', id="nan"),
    pytest.param(b'{"a": [1e999]}', id="overflow"),
    pytest.param(b'{"a": [1e-999]}', id="underflow"),
    pytest.param(b'{"a": [' + b"1" * 101 + b"]}", id="long-number"),
    pytest.param(b'{"a": 1' + b"0" * 400 + b"}", id="integer-beyond-a-double"),
    pytest.param(b'{"a": ' + b"[" * 32 + b"1" + b"]" * 32 + b"}", id="depth-33"),
    pytest.param(b'{"a": ' + b"[" * 40 + b"]" * 40 + b"}", id="brackets-41-deep"),
    pytest.param(b'{"a": ' + b"[" * 5000 + b"}", id="unclosed-brackets"),
    pytest.param(b"\xef\xbb\xbf{}", id="bom"),
    pytest.param(b'{"a": "\xff"}', id="invalid-utf8"),
    pytest.param(b'{"a": "tab\there"}', id="control-character"),
    pytest.param(
        b'{"a": [' + b",".join([b"0"] * 60_000) + b'], "b": [' + b",".join([b"0"] * 40_000) + b"]}",
        id="nodes-over-the-limit-across-members",
    ),
    pytest.param(b"{" + b'"k": 1, ' * 10 + b'"a": "' + b"x" * 1_048_576 + b'"}', id="size"),
]


@pytest.mark.parametrize("data", REFUSED)
def test_every_refusal_is_the_loaders_refusal(data: bytes) -> None:
    memo = MemberMemo(eager=True)
    expected = outcome(via_loader, data)
    assert expected[0] == ("value" if data in (b"[1, 2]", b"{}") else "refused")
    assert outcome(via_memo(memo), data) == expected
    assert outcome(via_memo(memo), data) == expected  # and again, with whatever it kept


def test_the_node_limit_counts_every_member_as_the_loader_does() -> None:
    # 1 (root) + 2 members + 49,999 + 49,998 values = exactly 100,000: passes; one more fails
    at_limit = (
        b'{"a": [' + b",".join([b"0"] * 49_999) + b'], "b": [' + b",".join([b"0"] * 49_998) + b"]}"
    )
    memo = MemberMemo()
    assert outcome(via_memo(memo), at_limit) == outcome(via_loader, at_limit)
    assert outcome(via_memo(memo), at_limit)[0] == "value"
    over = at_limit[:-2] + b",0]}"
    assert outcome(via_memo(memo), over) == outcome(via_loader, over)
    assert outcome(via_memo(memo), over)[0] == "refused"


def test_a_remembered_member_followed_by_a_fault_is_refused_as_the_loader_refuses() -> None:
    memo = MemberMemo(eager=True)
    memo.loads(body({"id": 1}))
    for tail in (b', "record": {"id": 1, "id": 2}}', b', "record": [1e999]}', b"}}", b", }"):
        data = json.dumps(INPUTS).encode()[:-1] + tail
        assert outcome(via_memo(memo), data) == outcome(via_loader, data)
        assert outcome(via_loader, data)[0] == "refused"


def test_a_deep_member_is_remembered_and_passes_again_at_the_same_depth() -> None:
    deep = b'{"a": ' + b"[" * 31 + b"1" + b"]" * 31 + b"}"  # the 1 is at depth 32
    memo = MemberMemo(eager=True)
    assert memo.loads(deep).value == loads(deep)
    assert memo.loads(deep).value == loads(deep)
    assert len(memo) == 1


def test_a_numbers_text_is_never_remembered() -> None:
    # "12" would be a prefix of "123": numbers, booleans and null are read every time
    memo = MemberMemo(eager=True)
    assert memo.loads(b'{"a": 12, "b": true, "c": null}').value == {"a": 12, "b": True, "c": None}
    assert memo.loads(b'{"a": 123, "b": true, "c": null}').value["a"] == 123
    assert len(memo) == 0


def test_limits_other_than_the_defaults_are_the_loaders_too() -> None:
    limits = Limits(max_depth=3, max_nodes=10)
    memo = MemberMemo(limits=limits)
    for data in (b'{"a": [[1]]}', b'{"a": [[[1]]]}', b'{"a": [1, 2, 3, 4, 5, 6, 7, 8]}'):
        expected = outcome(lambda d: loads(d, limits=limits, source="request body"), data)
        assert outcome(via_memo(memo), data) == expected


def test_the_memo_is_bounded_by_text_and_by_entries() -> None:
    memo = MemberMemo(max_chars=100, max_entries=3, eager=True)
    for index in range(5):
        memo.loads(json.dumps({"a": f"{index}" * 30}).encode())
    assert len(memo) == 3  # 3 x 32 characters <= 100
    memo.loads(json.dumps({"a": "x" * 90}).encode())
    assert len(memo) == 1  # 90 + 32 > 100: the older ones go
    memo.loads(json.dumps({"a": "y" * 200}).encode())  # larger than the whole memo
    assert len(memo) == 1
    memo.loads(json.dumps({"a": "x" * 90}).encode())
    assert memo.loads(json.dumps({"a": "x" * 90}).encode()).remembered["a"].value == "x" * 90
