"""Plain-text renderings of a report: the terminal summary and Markdown for a CI step summary.

The terminal summary shows, for every case that failed, errored or passed
unexpectedly, the vector's description and the full expected and actual
values of each mismatch, wrapped to the terminal width rather than cut, so a
failure can be understood without opening another report.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from apconform.conformance.summary import must_clauses_text
from apconform.core.escaping import markdown_cell, markdown_code, markdown_text, one_line

__all__ = ["case_details", "case_reason", "render_markdown", "render_pretty", "verdict_line"]

_LABELS = {
    "pass": "PASS",
    "fail": "FAIL",
    "skipped": "SKIP",
    "errored": "ERROR",
    "xfail": "XFAIL",
    "xpass": "XPASS",
}


def _set_version(header: dict[str, Any]) -> str:
    """The vector set's version, as the manifest states it (a report may predate versions)."""
    return str(header.get("vectorSetVersion") or "unversioned")


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pair(expected: Any, actual: Any) -> str:
    """Both values, cut to the neighbourhood of their first difference when they are long."""
    if (
        isinstance(expected, str)
        and isinstance(actual, str)
        and max(len(expected), len(actual)) > 60
    ):
        start = next(
            (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
            min(len(expected), len(actual)),
        )
        begin = max(0, start - 20)
        prefix = "..." if begin else ""
        return (
            f"expected {prefix}{_short(expected[begin:], 50)}, "
            f"got {prefix}{_short(actual[begin:], 50)} (first difference at character {start})"
        )
    return f"expected {_short(expected)}, got {_short(actual)}"


def case_reason(case: dict[str, Any]) -> str:
    """One line that says why a case did not pass."""
    actual = case["actual"]
    if case["outcome"] == "xpass":
        return f"passed, but listed as an expected failure ({case.get('xfailReason', '')})"
    if actual["kind"] in ("errored", "skipped"):
        text = actual.get("message") or actual.get("reason") or ""
        return text.splitlines()[0] if text else actual["kind"]
    parts = []
    for mismatch in case["mismatches"][:3]:
        where = mismatch["path"] or ("refusal" if actual["kind"] == "refusal" else "answer")
        detail = mismatch["reason"]
        if "expected" in mismatch and "actual" in mismatch:
            detail += ": " + _pair(mismatch["expected"], mismatch["actual"])
        parts.append(f"{where}: {detail}")
    more = len(case["mismatches"]) - 3
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


_WIDTH = 100
_INDENT = " " * 8
_MISMATCHES_SHOWN = 10


def _wrapped(text: str, indent: str, first: str | None = None) -> list[str]:
    """Words wrapped at the width; a word longer than a line is split, never dropped."""
    return textwrap.wrap(
        text,
        width=_WIDTH,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def _value_lines(label: str, value: Any) -> list[str]:
    """A JSON value in full, hard-wrapped so every character survives (no word splitting)."""
    text = json.dumps(value, ensure_ascii=False)
    head = f"{_INDENT}  {label:<8} "
    room = _WIDTH - len(head)
    chunks = [text[i : i + room] for i in range(0, len(text), room)] or [""]
    return [head + chunks[0], *(" " * len(head) + chunk for chunk in chunks[1:])]


def _first_difference(expected: Any, actual: Any) -> str:
    if not (isinstance(expected, str) and isinstance(actual, str)):
        return ""
    if max(len(expected), len(actual)) <= 40:
        return ""  # short enough to compare at a glance
    start = next(
        (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
        min(len(expected), len(actual)),
    )
    return f" (first difference at character {start})"


def case_details(case: dict[str, Any]) -> list[str]:
    """The lines the terminal summary prints under a case that did not pass."""
    actual = case["actual"]
    outcome = case["outcome"]
    if outcome in ("skipped", "xfail") or (outcome == "xpass" and not case["mismatches"]):
        return [_INDENT + case_reason(case)]
    lines = _wrapped(case["description"], _INDENT)
    if outcome == "xpass":
        lines.append(_INDENT + case_reason(case))
    if actual["kind"] == "errored":
        lines.extend(_wrapped(actual.get("message") or "errored", _INDENT))
    for mismatch in case["mismatches"][:_MISMATCHES_SHOWN]:
        where = mismatch["path"] or ("refusal" if actual["kind"] == "refusal" else "answer")
        both = "expected" in mismatch and "actual" in mismatch
        extra = _first_difference(mismatch["expected"], mismatch["actual"]) if both else ""
        lines.extend(_wrapped(f"{where}: {mismatch['reason']}{extra}", _INDENT))
        for key in ("expected", "actual"):
            if key in mismatch:
                lines.extend(_value_lines(key, mismatch[key]))
    more = len(case["mismatches"]) - _MISMATCHES_SHOWN
    if more > 0:
        lines.append(f"{_INDENT}and {more} more mismatch(es): see the JSON-lines or HTML report")
    return lines


def _summary_line(summary: dict[str, Any]) -> str:
    counts = summary["counts"]
    shown = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no case"
    verdict = summary["verdict"].upper()
    return f"{summary['protocol']}: {shown}; {must_clauses_text(summary)}: {verdict}"


def verdict_line(records: list[dict[str, Any]]) -> str:
    """The run's verdict in one line, the last line of every console summary."""
    header, footer = records[0], records[-1]
    partial = "" if header["selection"].get("complete", True) else " (a partial run: --only)"
    return f"verdict: {footer['verdict'].upper()}{partial} (exit status {footer['exitStatus']})"


def render_pretty(records: list[dict[str, Any]]) -> str:
    header, cases, footer = records[0], records[1:-1], records[-1]
    impl = header["implementation"]
    lines = [
        f"apconform check {one_line(header['target'])}",
        f"  implementation {one_line(impl['name'])} {one_line(impl['version'])} "
        f"({one_line(impl['language'])})",
        f"  kit {header['kit']['version']}, vector set {one_line(_set_version(header))}, "
        f"vector manifest {header['vectorManifestSha256'][:16]}, "
        f"clause registry {header['clauseRegistrySha256'][:16]}",
    ]
    for case in cases:
        if case["outcome"] != "pass":
            label = _LABELS[case["outcome"]]
            lines.append(f"  {label:<5} {case['vector']} [{', '.join(case['clauses'])}]")
            lines.extend(case_details(case))
            if case["outcome"] in ("fail", "errored", "xpass"):
                lines.append(f"        reproduce: {case['reproduce']}")
    for summary in footer["protocols"]:
        lines.append("  " + _summary_line(summary))
        for gap in summary.get("unsupportedOperations", []):
            unproven = ", ".join(gap["unprovenClauses"]) or "no clause"
            lines.extend(
                _wrapped(
                    f"{summary['protocol']}: operation {gap['operation']} is not listed by the "
                    f"implementation ({gap['vectorCount']} vector(s) skipped); this leaves "
                    f"unproven: {unproven}",
                    _INDENT,
                    "  note: ",
                )
            )
    lines.extend(f"  problem: {one_line(problem)}" for problem in footer["problems"])
    lines.append(verdict_line(records))
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return markdown_cell(text)


def render_markdown(records: list[dict[str, Any]]) -> str:
    header, cases, footer = records[0], records[1:-1], records[-1]
    impl = header["implementation"]
    mark = {"pass": "✅", "incomplete": "⚠️"}.get(footer["verdict"], "❌")
    partial = "" if header["selection"].get("complete", True) else " (partial run: --only)"
    lines = [
        f"## {mark} {footer['verdict'].upper()}{partial}: apconform conformance of "
        f"{markdown_text(impl['name'])} {markdown_text(impl['version'])}",
        "",
        f"Target {markdown_code(header['target'])}; kit {markdown_text(header['kit']['version'])}; "
        f"vector set {markdown_text(_set_version(header))}; "
        f"vector manifest `{header['vectorManifestSha256'][:16]}`; "
        f"clause registry `{header['clauseRegistrySha256'][:16]}`; "
        f"{header['startedAt']} to {footer['finishedAt']}.",
        "",
        "| Protocol | Pass | Fail | Skipped | Errored | Xfail | Xpass | MUST clauses | Verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for summary in footer["protocols"]:
        c = summary["counts"]
        lines.append(
            f"| {_cell(summary['protocol'])} | {c['pass']} | {c['fail']} | {c['skipped']} | "
            f"{c['errored']} | {c['xfail']} | {c['xpass']} | "
            f"{must_clauses_text(summary)} | {summary['verdict']} |"
        )
    if footer["problems"]:
        lines += ["", "**Problems**", ""]
        lines += [f"- {_cell(problem)}" for problem in footer["problems"]]
    unproven = [
        f"- {summary['protocol']}: `{gap['operation']}` not listed by the implementation; "
        f"unproven: {', '.join(gap['unprovenClauses']) or 'no clause'}"
        for summary in footer["protocols"]
        for gap in summary.get("unsupportedOperations", [])
    ]
    if unproven:
        lines += ["", "**Unsupported operations**", "", *unproven]
    notable = [case for case in cases if case["outcome"] != "pass"]
    if notable:
        lines += ["", "| Outcome | Vector | Clauses | Why |", "|---|---|---|---|"]
        for case in notable:
            lines.append(
                f"| {case['outcome']} | {markdown_code(case['vector'])} | "
                f"{_cell(', '.join(case['clauses']))} | "
                f"{_cell(case_reason(case))} |"
            )
    return "\n".join(lines) + "\n"
