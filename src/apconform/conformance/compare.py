"""Comparing an implementation's answer with a vector's expectation, outside the implementation.

JSON equality is type-aware (``true`` never equals ``1``; ``1`` equals ``1.0``
because JSON has one number type), arrays keep their order and objects ignore
member order. Decimal strings and float tolerances follow the vector's
declared comparison rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from apconform.models.conformance import Comparison, Expected

__all__ = ["Mismatch", "json_equal", "match_answer", "match_refusal", "resolve_pointer"]

_MISSING = object()


@dataclass(frozen=True)
class Mismatch:
    """Where the answer departs from the expectation, with both values."""

    path: str
    expected: Any
    actual: Any
    reason: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "reason": self.reason}
        if self.expected is not _MISSING:
            out["expected"] = self.expected
        if self.actual is not _MISSING:
            out["actual"] = self.actual
        return out


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
    expected: Any, actual: Any, path: str, rules: Comparison | None, out: list[Mismatch]
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
            _diff(e, a, f"{path}/{index}", rules, out)
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            child = f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in actual:
                out.append(Mismatch(child, expected[key], _MISSING, "missing from the answer"))
            elif key not in expected:
                out.append(Mismatch(child, _MISSING, actual[key], "not expected"))
            else:
                _diff(expected[key], actual[key], child, rules, out)
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


def json_equal(expected: Any, actual: Any, rules: Comparison | None = None) -> list[Mismatch]:
    """Every difference between two JSON values (empty when they are equal)."""
    out: list[Mismatch] = []
    _diff(expected, actual, "", rules, out)
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
    expected: Expected, answer: Any, rules: Comparison | None = None
) -> list[Mismatch]:
    """Compare a non-refusal answer with an exact or partial expectation."""
    if expected.kind == "exact":
        return json_equal(expected.document, answer, rules)
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
                _diff(matcher.equals, found, matcher.path, rules, sub)
                out.extend(sub)
        return out
    return [
        Mismatch("", {"refusal": expected.errorCode}, answer, "expected a refusal, got an answer")
    ]


def match_refusal(
    expected: Expected, code: str, message: str | None, path: str | None = None
) -> list[Mismatch]:
    """Compare a refusal (error code, first message, path) with the expectation."""
    if expected.kind != "refusal":
        return [Mismatch("", "an answer", {"refusal": code}, "expected an answer, got a refusal")]
    out = []
    if code != expected.errorCode:
        out.append(Mismatch("", expected.errorCode, code, "refused with another error code"))
    if expected.message is not None and message != expected.message:
        out.append(Mismatch("", expected.message, message, "refusal message differs"))
    if expected.path is not None and path != expected.path:
        out.append(Mismatch("", expected.path, path, "refusal names another path"))
    return out
