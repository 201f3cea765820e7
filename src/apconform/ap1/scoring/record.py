"""Reading an execution record for scoring: only the members the scorer uses, each type-checked.

A record (a JSON object as parsed) is either a transcript record of kind ``execution`` or its
``execution`` member alone. The reader never trusts a shape: a missing or
mistyped member raises :class:`RecordUnreadable` naming it, so a forged or
damaged record is reported instead of crashing the scorer or being scored on
guessed values. The cell key and the repeat are copied into the execution
score, so they are also checked for the form the score states: a cell key that
is not blank, a repeat that is a whole number from 1; a status reason, when
given, is not blank either. Response bodies are
parsed only when a rule needs them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

import orjson

__all__ = ["ExecutionView", "RecordUnreadable", "ToolCallView", "read_execution"]

_STATUSES = ("EXECUTED", "UNMEASURED", "UNOBSERVABLE", "VOID")
_CONDITIONS = ("base", "instruction-removed")
_MAX_ARGUMENTS = 65_536
_REPEAT = re.compile(r"[1-9][0-9]{0,11}")
"""A repeat as the execution score states it (PositiveCountString, at most 12 digits)."""
_NOT_BLANK = re.compile(
    "[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)
"""A character that is not white space as ECMAScript's trim() reads it (NonBlankText)."""


class RecordUnreadable(ValueError):
    """The record lacks a member the scorer needs, or has it with the wrong type."""


def _get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise RecordUnreadable(f"{where}.{key} is missing")
    value = obj[key]
    if not isinstance(value, kind):
        raise RecordUnreadable(f"{where}.{key} has the wrong type")
    return value


@dataclass(frozen=True)
class ToolCallView:
    """One tool call as recorded: position, name, raw arguments, raw return."""

    number: int
    round: str
    name: str
    arguments_raw: str
    return_raw: str | None
    outcome: str

    def argument(self, name: str) -> str | None:
        """The named string argument, or None when the arguments are not such an object."""
        return _argument(self.arguments_raw, name)

    def result(self) -> Decimal | None:
        """The calculator's result value, or None for an error or an unexecuted call."""
        return None if self.return_raw is None else _result(self.return_raw)


_INVALID = object()


def _loads(raw: str) -> Any:
    """``json.loads(raw)``, or ``_INVALID`` for a text it refuses.

    orjson reads first unless the text has 512 or more opening brackets (the
    standard decoder could run out of recursion there, and its error must
    stay); what orjson refuses (NaN, a lone surrogate, a number out of range)
    is read by the standard decoder, so the value is the standard one wherever
    it matters: the callers read one string member, and orjson differs
    otherwise only in reading an integer past 64 bits as a float.
    """
    if raw.count("[") + raw.count("{") < 512:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw)
    except ValueError:
        return _INVALID


@lru_cache(maxsize=8192)
def _argument(raw: str, name: str) -> str | None:
    if len(raw) > _MAX_ARGUMENTS:
        return None
    value = _loads(raw)
    if isinstance(value, dict) and isinstance(value.get(name), str):
        return str(value[name])
    return None


@lru_cache(maxsize=8192)
def _result(raw: str) -> Decimal | None:
    if len(raw) > _MAX_ARGUMENTS:
        return None
    value = _loads(raw)
    text = value.get("result") if isinstance(value, dict) else None
    if not isinstance(text, str) or len(text) > 200:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


@dataclass(frozen=True)
class ExecutionView:
    """The scorer's view of one execution."""

    cell_key: str
    condition: str
    item_id: str
    repeat: str
    status: str
    status_reason: str | None
    stop_reason: str
    final_text: str | None
    tools_offered: bool
    all_rounds_readable: bool
    tool_calls: tuple[ToolCallView, ...]
    rounds: tuple[dict[str, Any], ...]

    def response_bodies(self) -> list[tuple[int, str]]:
        """(round number, body text) of every recorded response, in order."""
        out = []
        for index, round_ in enumerate(self.rounds, start=1):
            response = round_.get("response")
            body = response.get("bodyText") if isinstance(response, dict) else None
            if isinstance(body, str):
                out.append((index, body))
        return out

    def last_body(self) -> str | None:
        """The body text of the last recorded response (the last of :meth:`response_bodies`)."""
        for round_ in reversed(self.rounds):
            response = round_.get("response")
            body = response.get("bodyText") if isinstance(response, dict) else None
            if isinstance(body, str):
                return body
        return None


def _call(entry: Any, number: int) -> ToolCallView:
    where = f"$.toolCalls[{number - 1}]"
    returned = entry.get("returnRaw") if isinstance(entry, dict) else None
    if returned is not None and not isinstance(returned, str):
        raise RecordUnreadable(f"{where}.returnRaw has the wrong type")
    return ToolCallView(
        number=number,
        round=_get(entry, "round", str, where),
        name=_get(entry, "name", str, where),
        arguments_raw=_get(entry, "argumentsRaw", str, where),
        return_raw=returned,
        outcome=_get(entry, "outcome", str, where),
    )


def read_execution(record: Any) -> ExecutionView:
    """The view of a transcript record of kind execution, or of an execution member."""
    if isinstance(record, dict) and "kind" in record:
        if record.get("kind") != "execution":
            raise RecordUnreadable(f"the record is of kind {record.get('kind')!r}, not execution")
        record = record.get("execution")
    if not isinstance(record, dict):
        raise RecordUnreadable("the execution record is not a JSON object")
    where = "$"
    status = _get(record, "status", str, where)
    condition = _get(record, "condition", str, where)
    if status not in _STATUSES:
        raise RecordUnreadable(f"$.status {status!r} is not a known status")
    if condition not in _CONDITIONS:
        raise RecordUnreadable(f"$.condition {condition!r} is not a known condition")
    reason = record.get("statusReason")
    final = record.get("finalText")
    if reason is not None and not isinstance(reason, str):
        raise RecordUnreadable("$.statusReason has the wrong type")
    if reason is not None and not _NOT_BLANK.search(reason):
        raise RecordUnreadable("$.statusReason is blank (give the reason, or null)")
    if final is not None and not isinstance(final, str):
        raise RecordUnreadable("$.finalText has the wrong type")
    evidence = _get(record, "evidenceInputs", dict, where)
    calls = _get(record, "toolCalls", list, where)
    rounds = _get(record, "rounds", list, where)
    cell_key = _get(record, "cellKey", str, where)
    if not _NOT_BLANK.search(cell_key):
        raise RecordUnreadable("$.cellKey is blank")
    item_id = _get(record, "itemId", str, where)
    repeat = _get(record, "repeat", str, where)
    if not _REPEAT.fullmatch(repeat):
        raise RecordUnreadable(f"$.repeat {repeat!r} is not a whole number from 1")
    return ExecutionView(
        cell_key=cell_key,
        condition=condition,
        item_id=item_id,
        repeat=repeat,
        status=status,
        status_reason=reason,
        stop_reason=_get(record, "stopReason", str, where),
        final_text=final,
        tools_offered=_get(evidence, "toolsOffered", bool, "$.evidenceInputs"),
        all_rounds_readable=_get(evidence, "allRoundsReadable", bool, "$.evidenceInputs"),
        tool_calls=tuple(_call(entry, i) for i, entry in enumerate(calls, start=1)),
        rounds=tuple(r for r in rounds if isinstance(r, dict)),
    )
