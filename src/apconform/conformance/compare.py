"""Comparing an implementation's answer with a vector's expectation, outside the implementation.

JSON equality is type-aware (``true`` never equals ``1``; ``1`` equals ``1.0``
because JSON has one number type), arrays keep their order and objects ignore
member order. Decimal strings and float tolerances follow the vector's
declared comparison rules.

Codes, paths and values are normative; messages are informative (KIT-VEC-3).
A message is a refusal's message, or an answer member its operation's
contract marks as one (a reason, a claim, the message of a listed fault). A
message is compared only when a clause the vector cites quotes it verbatim;
otherwise a different wording is reported beside the case, never as a
mismatch, and only an empty message where text is expected (or the reverse)
fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from apconform.conformance.clauses import ClauseIndex
from apconform.models.conformance import Comparison, Expected, Vector
from apconform.models.operation_index import OPERATIONS

__all__ = [
    "MessageRule",
    "Mismatch",
    "failing",
    "json_equal",
    "match_answer",
    "match_refusal",
    "message_rule",
    "resolve_pointer",
]

_MISSING = object()


@dataclass(frozen=True)
class Mismatch:
    """Where the answer departs from the expectation, with both values."""

    path: str
    expected: Any
    actual: Any
    reason: str
    informative: bool = False
    """A message worded otherwise than the vector's: shown, never a failure (KIT-VEC-3)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "reason": self.reason}
        if self.expected is not _MISSING:
            out["expected"] = self.expected
        if self.actual is not _MISSING:
            out["actual"] = self.actual
        return out


def failing(mismatches: list[Mismatch]) -> list[Mismatch]:
    """The mismatches that fail a case: all but informative message differences."""
    return [m for m in mismatches if not m.informative]


@dataclass(frozen=True)
class MessageRule:
    """Which messages one vector fixes (KIT-VEC-3).

    ``quoted`` holds every text the vector's clauses quote verbatim; ``members``
    the JSON pointers of its answer's message members (``*`` matches any one
    member name or index), from the operation's contract.
    """

    quoted: frozenset[str] = frozenset()
    members: tuple[str, ...] = ()

    def is_message(self, pointer: str) -> bool:
        """Whether the answer member at this pointer is a message."""
        tokens = pointer.split("/")
        for pattern in self.members:
            parts = pattern.split("/")
            if len(parts) == len(tokens) and all(
                p in ("*", t) for p, t in zip(parts, tokens, strict=True)
            ):
                return True
        return False

    def fixes(self, text: str) -> bool:
        """Whether a clause the vector cites quotes this message, which then must match."""
        return text in self.quoted


def message_rule(vector: Vector, clauses: ClauseIndex) -> MessageRule:
    """The message rule of a vector: its clauses' quotes and its operation's message members."""
    entry = OPERATIONS.get(vector.operation, {})
    return MessageRule(clauses.quoted_texts(vector.clauses), tuple(entry.get("informative", ())))


def _message_mismatch(
    expected: str, actual: str, path: str, messages: MessageRule
) -> Mismatch | None:
    """A message compared by rule: in full when quoted, else only for being there."""
    if expected == actual:
        return None
    if messages.fixes(expected):
        return Mismatch(path, expected, actual, "message differs from the text its clause quotes")
    if (expected == "") != (actual == ""):
        wanted = "no message" if expected == "" else "a message"
        return Mismatch(path, expected, actual, f"expected {wanted}")
    return Mismatch(
        path,
        expected,
        actual,
        "worded otherwise (informative: no clause the vector cites quotes this message)",
        informative=True,
    )


_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")


def _decimal(text: str) -> Decimal | None:
    """A decimal string in the kit's DecimalString form; anything else is not a number here.

    Python's Decimal also reads "1_000", " 1.5", "1e3" and "NaN"; none of those
    is a decimal string, so none may compare equal to one.
    """
    if _DECIMAL.fullmatch(text) is None:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid numbers
        return None


def _numbers_equal(a: float | int, b: float | int, rules: Comparison | None) -> bool:
    """Equal, or within the vector's relative (and, when declared, absolute) tolerance."""
    if a == b:
        return True
    if rules is None:
        return False
    difference = abs(Decimal(a) - Decimal(b))
    absolute = rules.floatAbsoluteTolerance
    if absolute is not None and difference <= Decimal(absolute):
        return True
    relative = Decimal(rules.floatRelativeTolerance)
    return relative > 0 and difference <= relative * max(abs(Decimal(a)), abs(Decimal(b)))


def _diff(
    expected: Any,
    actual: Any,
    path: str,
    rules: Comparison | None,
    out: list[Mismatch],
    messages: MessageRule | None = None,
) -> None:
    if isinstance(expected, bool) or isinstance(actual, bool):
        if type(expected) is not type(actual) or expected != actual:
            out.append(Mismatch(path, expected, actual, "values differ"))
        return
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if not _numbers_equal(expected, actual, rules):
            out.append(Mismatch(path, expected, actual, _number_reason(rules)))
        return
    if isinstance(expected, str) and isinstance(actual, str):
        if expected == actual:
            return
        if messages is not None and messages.is_message(path):
            found = _message_mismatch(expected, actual, path, messages)
            if found is not None:
                out.append(found)
            return
        if rules is not None and rules.decimals == "numeric-value":
            a, b = _decimal(expected), _decimal(actual)
            if a is not None and b is not None and a == b:
                return
        numeric = rules is not None and rules.decimals == "numeric-value"
        reason = (
            "decimal strings differ in value"
            if numeric and _decimal(expected)
            else "strings differ"
        )
        out.append(Mismatch(path, expected, actual, reason))
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            out.append(Mismatch(path, len(expected), len(actual), "array lengths differ"))
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            _diff(e, a, f"{path}/{index}", rules, out, messages)
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            child = f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in actual:
                out.append(Mismatch(child, expected[key], _MISSING, "missing from the answer"))
            elif key not in expected:
                out.append(Mismatch(child, _MISSING, actual[key], "not expected"))
            else:
                _diff(expected[key], actual[key], child, rules, out, messages)
        return
    if expected is None and actual is None:
        return
    out.append(Mismatch(path, expected, actual, "types differ"))


def _number_reason(rules: Comparison | None) -> str:
    if rules is None:
        return "numbers differ (exact comparison)"
    reason = f"numbers differ by more than the relative tolerance {rules.floatRelativeTolerance}"
    if rules.floatAbsoluteTolerance is not None:
        reason += f" and the absolute tolerance {rules.floatAbsoluteTolerance}"
    return reason


def json_equal(
    expected: Any,
    actual: Any,
    rules: Comparison | None = None,
    messages: MessageRule | None = None,
) -> list[Mismatch]:
    """Every difference between two JSON values (empty when they are equal).

    With ``messages``, a message member worded otherwise is an informative
    difference (see :func:`failing`); without, every string is compared.
    """
    out: list[Mismatch] = []
    _diff(expected, actual, "", rules, out, messages)
    return out


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer, or a private sentinel when it does not exist."""
    if pointer == "":
        return document
    current = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif (
            isinstance(current, list)
            and token.isdigit()
            and (token == "0" or token[0] != "0")
            and int(token) < len(current)
        ):
            current = current[int(token)]
        else:
            return _MISSING
    return current


def match_answer(
    expected: Expected,
    answer: Any,
    rules: Comparison | None = None,
    messages: MessageRule | None = None,
) -> list[Mismatch]:
    """Compare a non-refusal answer with an exact or partial expectation.

    Pass the vector's :func:`message_rule` as ``messages`` to compare as the contract
    does; without it every message is compared too (the strictest reading).
    """
    if expected.kind == "exact":
        return json_equal(expected.document, answer, rules, messages)
    if expected.kind == "partial":
        out: list[Mismatch] = []
        for matcher in expected.matchers or []:
            found = resolve_pointer(answer, matcher.path)
            if matcher.absent:
                if found is not _MISSING:
                    out.append(Mismatch(matcher.path, _MISSING, found, "expected to be absent"))
            elif matcher.present:
                if found is _MISSING:
                    out.append(Mismatch(matcher.path, _MISSING, _MISSING, "expected to be present"))
            elif found is _MISSING:
                out.append(
                    Mismatch(matcher.path, matcher.equals, _MISSING, "missing from the answer")
                )
            else:
                sub: list[Mismatch] = []
                _diff(matcher.equals, found, matcher.path, rules, sub, messages)
                out.extend(sub)
        return out
    return [
        Mismatch("", {"refusal": expected.errorCode}, answer, "expected a refusal, got an answer")
    ]


def match_refusal(
    expected: Expected,
    code: str,
    message: str | None,
    path: str | None = None,
    messages: MessageRule | None = None,
) -> list[Mismatch]:
    """Compare a refusal (error code, first message, path) with the expectation.

    The code and the path are normative. With ``messages`` (the vector's
    :func:`message_rule`) the message is compared only when a cited clause quotes
    it, and is otherwise an informative difference; without, it is always compared.
    """
    if expected.kind != "refusal":
        return [Mismatch("", "an answer", {"refusal": code}, "expected an answer, got a refusal")]
    out = []
    if code != expected.errorCode:
        out.append(Mismatch("", expected.errorCode, code, "refused with another error code"))
    if expected.message is not None and message != expected.message:
        if messages is not None and not messages.fixes(expected.message):
            out.append(
                Mismatch(
                    "",
                    expected.message,
                    message,
                    "refusal message worded otherwise (informative: no clause the vector "
                    "cites quotes it)",
                    informative=True,
                )
            )
        else:
            out.append(Mismatch("", expected.message, message, "refusal message differs"))
    if expected.path is not None and path != expected.path:
        out.append(Mismatch("", expected.path, path, "refusal names another path"))
    return out
