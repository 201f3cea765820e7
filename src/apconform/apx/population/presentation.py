"""Readable tables of power analyses and population results (``--format table``).

Every text that comes from a document is shown with its control and format
characters escaped, so a hostile id cannot move the cursor or hide a line.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from apconform.apx.checks import js_number

__all__ = ["population_table", "power_table"]


def _text(value: Any) -> str:
    """A value as one printable line: numbers as ECMAScript writes them, controls escaped."""
    if value is None:
        return "null"
    if type(value) is bool:
        return str(value).lower()
    if type(value) in (int, float):
        return js_number(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_text(k)}: {_text(v)}" for k, v in value.items()) + "}"
    text = str(value)
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch
        for ch in text
    )


def _figure(value: Any, places: int = 3) -> str:
    return "null" if value is None else f"{value:.{places}f}"


def _rows(header: list[str], rows: list[list[str]]) -> list[str]:
    cells = [header, *rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return lines


def power_table(document: dict[str, Any]) -> str:
    """The plans simulated, the answer and the components of an apx-ext-power/1 document."""
    target = document["target"]
    lines = [
        "Beyond APx 0.1: power and precision (model crossed-families-runs/1)",
        f"assumed improvement {_text(document['assumptions']['improvement'])} APx, alpha "
        f"{_text(document['alpha'])}, {document['simulations']} simulations per plan, seed "
        f"{document['seed']}, work {document['work']:,} of {document['budget']:,} units",
        f"components ({document['componentSource']}): "
        + ", ".join(f"{k} {_text(v)}" for k, v in document["components"].items()),
    ]
    lines += [f"note: {_text(note)}" for note in document["notes"]]
    lines.append("")
    header = ["families", "instances", "participants", "attempts", "pairs", "power", "coverage"]
    header += ["mean width", "intervals"]
    rows = [
        [
            str(row["plan"]["families"]),
            str(row["plan"]["instancesPerFamily"]),
            str(row["plan"]["participantsPerClass"]),
            str(row["plan"]["attemptsPerParticipant"]),
            str(row["plan"]["pairs"]),
            _figure(row["power"]),
            _figure(row["coverage"]),
            _figure(row["meanWidth"]),
            f"{row['intervals']}/{row['simulations']}",
        ]
        for row in document["table"]
    ]
    lines += _rows(header, rows)
    answer = document["answer"]
    if target is not None and answer is not None:
        goal = f"{target['kind']} {_text(target['value'])}"
        if answer["reached"]:
            lines.append(f"\nanswer: {answer['vary']} = {answer['value']} meets {goal}")
        else:
            lines.append(
                f"\nanswer: {goal} is not met with {answer['vary']} up to {target['upTo']}"
            )
    lines.append(f"\n{document['limitation']}")
    return "\n".join(lines) + "\n"


def population_table(document: dict[str, Any]) -> str:
    """The estimate, both intervals, the design and the departures of a population result."""
    interval, apx01 = document["interval"], document["apx01"]
    design = document["design"]
    prereg = document["preregistration"]
    lines = [
        "Beyond APx 0.1: population comparison "
        f"({_text(document['status'])}, certified false, deployment never authorised)",
        f"estimate (APx 0.1 deltaAPx): {_text(document['estimate'])}",
        f"population interval ({_figure(interval['confidence'] * 100, 1)}%, "
        f"{_text(interval['method'])}): [{_figure(interval['lower'], 4)}, "
        f"{_figure(interval['upper'], 4)}], "
        f"standard error {_figure(interval['standardError'], 4)}, "
        f"{_figure(interval['degreesOfFreedom'], 2)} degrees of freedom",
        "  variance: families {families}, pairs {pairs}, interaction {interaction}".format(
            **{k: _figure(v, 5) for k, v in interval["components"].items()}
        ),
    ]
    boot = apx01["interval"]
    if boot is None:
        lines.append("APx 0.1 paired bootstrap: no interval")
    else:
        lines.append(
            f"APx 0.1 paired bootstrap (95%, conditional on the frozen baseline): "
            f"[{_figure(boot['lower'], 4)}, {_figure(boot['upper'], 4)}]; APx 0.1 decision "
            f"{_text(apx01['decision'])}"
        )
    lines.append(
        f"design: {design['families']} families, {design['instances']} instances, "
        f"{design['participants']} participants ({design['calibrationAttempts']} attempts), "
        f"{design['pairs']} pairs"
    )
    if prereg is None:
        lines.append("preregistration: none (exploratory)")
    else:
        lines.append(
            f"preregistration: {_text(prereg['id'])} version {_text(prereg['version'])}, "
            f"hash {prereg['hash'][:16]}...; confirmatory {_text(document['confirmatory'])}, "
            f"claim supported {_text(document['claimSupported'])}"
        )
    for departure in document["departures"]:
        lines.append(
            f"  departure {_text(departure['item'])}: planned {_text(departure['planned'])}, "
            f"actual {_text(departure['actual'])}"
        )
    lines.append("not included: " + "; ".join(document["notIncluded"]))
    lines.append(document["limitation"])
    return "\n".join(lines) + "\n"
