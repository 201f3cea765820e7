"""Codes and paths are normative; messages are informative unless a cited clause quotes them.

KIT-VEC-3. The implementation checked here is the reference wrapped so that every message
it gives is worded otherwise: every refusal's message, and every answer member
its operation's contract marks as a message. Its codes, paths and values are
the reference's, so it must pass every vector except those whose clauses quote
the very message the vector expects.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from apconform.conformance.adapters import MessageAdapter
from apconform.conformance.adapters.channels import DirectChannel
from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.compare import (
    MessageRule,
    match_answer,
    match_refusal,
    message_rule,
    resolve_pointer,
)
from apconform.conformance.reference import adapter as reference_adapter
from apconform.conformance.runner import CheckOptions, CheckRun, run_check
from apconform.conformance.vectors import LoadedVector, load_vectors
from apconform.models.operation_index import OPERATIONS
from apconform.resources import data_path

VECTORS = load_vectors()
_SPAN = re.compile(r"`([^`]+)`")


def _reworded(text: str) -> str:
    return f"In other words: {text[::-1]}" if text else text


def _message_pointers(operation: str) -> tuple[str, ...]:
    return tuple(OPERATIONS.get(operation, {}).get("informative", ()))


def _map_messages(
    value: Any, rule: MessageRule, change: Callable[[str], str], pointer: str = ""
) -> Any:
    """A copy of an answer with ``change`` applied to every message member's text."""
    if isinstance(value, dict):
        return {
            key: _map_messages(
                item, rule, change, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_map_messages(item, rule, change, f"{pointer}/{i}") for i, item in enumerate(value)]
    if isinstance(value, str) and value and rule.is_message(pointer):
        return change(value)
    return value


def rewording_adapter(message: dict[str, Any]) -> dict[str, Any] | None:
    """The reference, with every message it gives worded otherwise."""
    reply = reference_adapter(message)
    if message.get("cmd") != "run" or reply is None:
        return reply
    if "refusal" in reply:
        reply["refusal"]["message"] = _reworded(reply["refusal"]["message"])
    elif "answer" in reply:
        rule = MessageRule(members=_message_pointers(str(message["operation"])))
        reply["answer"] = _map_messages(reply["answer"], rule, _reworded)
    return reply


def _quoted_by_clauses() -> dict[str, set[str]]:
    """Clause id -> the texts it quotes as code spans, read from spec/clauses.json itself."""
    registry = json.loads(data_path("spec", "clauses.json").read_text(encoding="utf-8"))
    return {clause["id"]: set(_SPAN.findall(clause["quote"])) for clause in registry["clauses"]}


def _expected_messages(vector: LoadedVector) -> list[str]:
    """Every message the vector's expectation holds (refusal message, message members)."""
    expected = vector.vector.expected
    if expected.kind == "refusal":
        return [expected.message] if expected.message is not None else []
    rule = MessageRule(members=_message_pointers(vector.vector.operation))
    found: list[str] = []

    def collect(text: str) -> str:
        found.append(text)
        return text

    if expected.kind == "exact":
        _map_messages(expected.document, rule, collect)
    for matcher in expected.matchers or []:
        if "equals" in matcher.model_fields_set:
            _map_messages(matcher.equals, rule, collect, matcher.path)
    return found


def _quoting_vectors() -> set[str]:
    quotes = _quoted_by_clauses()
    return {
        v.id
        for v in VECTORS
        if any(
            text in quotes.get(clause, set())
            for text in _expected_messages(v)
            for clause in v.vector.clauses
        )
    }


@pytest.fixture(scope="module")
def reworded_run() -> CheckRun:
    adapter = MessageAdapter(
        "direct:rewording", lambda: DirectChannel(rewording_adapter), validate_protocol=True
    )
    return run_check(CheckOptions(impl="direct:rewording", validate_protocol=True), adapter=adapter)


def test_reworded_messages_fail_only_the_vectors_whose_clauses_quote_them(
    reworded_run: CheckRun,
) -> None:
    quoting = _quoting_vectors()
    failed = {case["vector"] for case in reworded_run.cases if case["outcome"] != "pass"}
    assert failed == quoting
    # The quoting vectors exist (APX-QTY-4, APX-ELIG-2, APX-BOUND-*, ...) and are a minority.
    assert 30 <= len(quoting) < len(VECTORS) // 10
    assert {"apx-power-refuses-zero-wall", "apx-eval-ineligible-exact"} <= quoting
    for case in reworded_run.cases:
        if case["vector"] in quoting:
            assert case["outcome"] == "fail"
            assert {m["reason"] for m in case["mismatches"]} <= {
                "refusal message differs",
                "message differs from the text its clause quotes",
            }
    passed = sum(case["outcome"] == "pass" for case in reworded_run.cases)
    assert passed == len(VECTORS) - len(quoting)


def test_reports_show_both_messages_beside_a_passing_case(reworded_run: CheckRun) -> None:
    by_vector = {case["vector"]: case for case in reworded_run.cases}
    overflow = by_vector["apx-power-refuses-overflow"]
    assert overflow["outcome"] == "pass"
    assert overflow["expected"]["message"] == "Power overflow"
    assert overflow["actual"]["message"] == "In other words: wolfrevo rewoP"
    assert overflow["messageDifferences"] == [
        {
            "path": "",
            "reason": "refusal message worded otherwise (informative: no clause the vector "
            "cites quotes it)",
            "expected": "Power overflow",
            "actual": "In other words: wolfrevo rewoP",
        }
    ]
    claim = by_vector["apx-eval-zero-accepted-claim"]
    assert claim["outcome"] == "pass"
    assert [d["path"] for d in claim["messageDifferences"]] == ["/claim", "/explanation"]
    with_messages = [c for c in reworded_run.cases if c["outcome"] == "pass" and _has_text(c)]
    assert all("messageDifferences" in c for c in with_messages)
    assert len(with_messages) > 100


def _has_text(case: dict[str, Any]) -> bool:
    return bool(_expected_messages(next(v for v in VECTORS if v.id == case["vector"])))


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_every_message_a_vector_requires_is_quoted_by_a_clause_it_cites(
    vector: LoadedVector,
) -> None:
    """A message is required when the matcher fails the case once that message is reworded."""
    quotes = _quoted_by_clauses()
    cited = set().union(*(quotes.get(c, set()) for c in vector.vector.clauses))
    expected = vector.vector.expected
    if expected.kind == "refusal":
        if expected.message is None:
            return
        required = match_refusal(
            expected,
            expected.errorCode or "",
            _reworded(expected.message),
            expected.path,
            vector.messages,
        )
        assert bool([m for m in required if not m.informative]) == (expected.message in cited)
        return
    rule = vector.messages
    answer = _expected_answer(vector)
    for text in _expected_messages(vector):
        changed = _map_messages(answer, rule, lambda t, text=text: _reworded(t) if t == text else t)
        found = [
            m
            for m in match_answer(expected, changed, vector.vector.comparison, rule)
            if not m.informative
        ]
        assert bool(found) == (text in cited), (text, found)


def _expected_answer(vector: LoadedVector) -> Any:
    """An answer the vector accepts, as the reference gives it."""
    reply = reference_adapter(
        {
            "cmd": "run",
            "seq": 1,
            "operation": vector.vector.operation,
            "input": copy.deepcopy(vector.vector.input),
        }
    )
    assert reply is not None and "answer" in reply, reply
    return reply["answer"]


def test_power_overflow_is_informative_and_quoted_messages_are_not() -> None:
    by_id = {v.id: v for v in VECTORS}
    overflow = by_id["apx-power-refuses-overflow"]
    assert not overflow.messages.fixes("Power overflow")
    assert match_refusal(
        overflow.vector.expected, "APX-METRIC-OVERFLOW", "AP is too large", None, overflow.messages
    )[0].informative
    zero_wall = by_id["apx-power-refuses-zero-wall"]
    found = match_refusal(
        zero_wall.vector.expected,
        "APX-METRIC-INPUT",
        "wall time must be positive",
        None,
        zero_wall.messages,
    )
    assert [m.reason for m in found if not m.informative] == ["refusal message differs"]


def test_the_code_and_the_path_of_a_refusal_stay_normative() -> None:
    vector = next(v for v in VECTORS if v.id == "kit-err-path-odd-keys")
    expected = vector.vector.expected
    assert expected.path is not None
    wrong_path = match_refusal(
        expected, expected.errorCode or "", "anything", "$.elsewhere", vector.messages
    )
    assert [m.reason for m in wrong_path if not m.informative] == ["refusal names another path"]
    wrong_code = match_refusal(expected, "APC-OTHER", "anything", expected.path, vector.messages)
    assert [m.reason for m in wrong_code if not m.informative] == [
        "refused with another error code"
    ]


def test_an_empty_message_where_text_is_expected_still_fails() -> None:
    vector = next(v for v in VECTORS if v.id == "apx-eval-zero-accepted-claim")
    answer = _expected_answer(vector)
    answer["explanation"] = ""
    found = match_answer(vector.vector.expected, answer, None, vector.messages)
    assert [(m.path, m.reason, m.informative) for m in found] == [
        ("/explanation", "expected a message", False)
    ]


def test_message_pointers_match_one_member_or_index_per_star() -> None:
    rule = message_rule(
        next(v for v in VECTORS if v.vector.operation == "ap1.verify_transcript").vector,
        load_clause_registry(),
    )
    assert rule.members == ("/problems/*/message",)
    assert rule.is_message("/problems/0/message")
    assert rule.is_message("/problems/12/message")
    assert not rule.is_message("/problems/0/kind")
    assert not rule.is_message("/problems/message")
    assert not rule.is_message("/problems/0/message/x")
    assert resolve_pointer({"a": ["b"]}, "/a/0") == "b"


def test_the_api_check_route_judges_messages_by_the_same_rule() -> None:
    from apconform.api.catalog import Catalog
    from apconform.api.routes.conformance import check_submission

    catalog = Catalog.load()
    overflow = check_submission(
        catalog,
        {
            "vectorId": "apx-power-refuses-overflow",
            "refusal": {"code": "APX-METRIC-OVERFLOW", "message": "AP is too large"},
        },
    )
    assert overflow["verdict"] == "pass"
    assert overflow["messageDifferences"][0]["expected"] == "Power overflow"
    quoted = check_submission(
        catalog,
        {
            "vectorId": "apx-power-refuses-zero-wall",
            "refusal": {"code": "APX-METRIC-INPUT", "message": "wall time must be positive"},
        },
    )
    assert quoted["verdict"] == "fail"
    assert [m["reason"] for m in quoted["mismatches"]] == ["refusal message differs"]
