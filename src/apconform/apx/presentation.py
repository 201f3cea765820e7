"""How APx documents are shown: JSON with ECMAScript number spelling, and readable tables.

The kernel computes with doubles, so an AP of nine is the float 9.0; JSON has
one number type and the contract's kernel prints it as ``9``. Output goes
through :func:`json_numbers` so documents read the same as the reference's
(the values, and every digest or signature over them, are unchanged).
"""

from __future__ import annotations

import json
from typing import Any

from apconform.apx.checks import js_number

__all__ = ["json_numbers", "json_text", "promotion_table", "result_table", "validation_table"]

_EXACT = 2**53


def json_numbers(value: Any) -> Any:
    """A copy with every integral float within +-2**53 written as an integer."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() and abs(value) <= _EXACT else value
    if kind is dict:
        return {key: json_numbers(item) for key, item in value.items()}
    if kind is list:
        return [json_numbers(item) for item in value]
    return value


def json_text(value: Any) -> str:
    """Indented JSON text, ending with a newline."""
    return json.dumps(json_numbers(value), indent=2, ensure_ascii=False) + "\n"


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) in (int, float):
        return js_number(value)
    return str(value)


def _rows(header: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [header, *[[_show(cell) for cell in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return lines


def result_table(result: dict[str, Any]) -> str:
    """The figures of an apx-result/0.1 document, then per class, exclusions and the claim."""
    lines = [
        f"run {result['runId']}: {result['eligibility']}, {result['status']}, "
        f"certified {str(result['certified']).lower()}",
        f"  AP {_show(result['AP'])}   APx {_show(result['APx'])}   (diagnostic AP "
        f"{_show(result['diagnostic']['AP'])}, APx {_show(result['diagnostic']['APx'])})",
        f"  W {_show(result['creditedHumanHours'])} reference hours over T "
        f"{_show(result['wallHours'])} elapsed hours",
        f"  credited {result['acceptedSlots']} of {result['declaredSlots']} slots "
        f"(acceptance {_show(result['acceptance'])}); human leverage "
        f"{_show(result['humanLeverage'])}; cost per credited hour "
        f"{_show(result['costPerCreditedHumanHour'])} USD",
        "",
    ]
    classes = result.get("classPower") or {}
    lines += _rows(
        ["class", "H", "slots", "credited", "hours", "AP"],
        [
            [
                name,
                c["referenceHumanHours"],
                c["declaredSlots"],
                c["creditedSlots"],
                c["creditedHumanHours"],
                c["AP"],
            ]
            for name, c in classes.items()
        ],
    )
    if result["excluded"]:
        lines += ["", "excluded:"] + [
            f"  {item['slotId']}: {item['reason']}" for item in result["excluded"]
        ]
    if result["policyViolations"]:
        lines += ["", "violations:"] + [f"  {text}" for text in result["policyViolations"]]
    if result.get("explanation"):
        lines += ["", str(result["explanation"])]
    if result.get("claim"):
        lines += ["", str(result["claim"])]
    return "\n".join(lines) + "\n"


def promotion_table(promotion: dict[str, Any]) -> str:
    """The decision of an apx-promotion/0.1 document, its powers, interval and reasons."""
    interval = promotion["interval"]
    span = (
        f"[{_show(interval['lower'])}, {_show(interval['upper'])}] "
        f"({interval['iterations']} resamples, seed {interval['seed']})"
        if interval
        else "none"
    )
    lines = [
        f"{promotion['decision']} ({promotion['status']}; deployAuthorized "
        f"{str(promotion['deployAuthorized']).lower()})",
        f"  parent AP {_show(promotion['parentAP'])}, candidate AP "
        f"{_show(promotion['candidateAP'])}, deltaAPx {_show(promotion['deltaAPx'])}",
        f"  95% interval {span} over {promotion['campaigns']} pairs",
    ]
    if promotion["reasons"]:
        lines += ["  reasons:"] + [f"    {reason}" for reason in promotion["reasons"]]
    else:
        lines.append("  reasons: none")
    return "\n".join(lines) + "\n"


def validation_table(report: dict[str, Any], what: str) -> str:
    """A valid manifest (and run): the calibration of each class."""
    lines = [f"valid {what}", ""]
    lines += _rows(
        ["class", "H", "attempts", "accepted"],
        [
            [name, c["referenceHumanHours"], c["attempts"], c["accepted"]]
            for name, c in report["calibration"].items()
        ],
    )
    return "\n".join(lines) + "\n"
