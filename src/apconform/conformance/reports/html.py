"""The HTML report: one self-contained file, grouped by clause, that opens offline.

Each clause shows its level and exact quote, then its vectors; each vector
that did not pass opens to expected versus actual with a line diff, the
mismatches and the command that reproduces the case. Styles are inline, there
is no script and no external resource; the report's records are embedded as
JSON for machine readers.
"""

from __future__ import annotations

import difflib
import json
from html import escape
from typing import Any

from apconform.conformance.compare import resolve_pointer
from apconform.conformance.reports.text import case_reason

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;
color:#1f2328;line-height:1.45;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;
text-align:left;vertical-align:top}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;
font-size:.85rem}pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
.clause{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.quote{border-left:4px solid #8c959f;padding-left:.75rem;margin:.5rem 0;font-style:italic}
.o{font-weight:600;padding:0 .4rem;border-radius:4px;color:#fff}.pass{background:#1a7f37}
.fail,.xpass{background:#cf222e}.errored{background:#9a6700}.skipped,.xfail{background:#6e7781}
.add{background:#dafbe1;display:block}.del{background:#ffebe9;display:block}
.level{font-size:.8rem;border:1px solid #8c959f;border-radius:4px;padding:0 .3rem}
"""


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _expected_view(case: dict[str, Any]) -> Any:
    expected = case["expected"]
    if expected["kind"] == "exact":
        return expected["document"]
    if expected["kind"] == "refusal":
        refusal = {k: expected[k] for k in ("errorCode", "message", "path") if k in expected}
        return {"refusal": refusal}
    return {
        m["path"]: (
            "(absent)" if m.get("absent") else "(present)" if m.get("present") else m.get("equals")
        )
        for m in expected["matchers"]
    }


def _actual_view(case: dict[str, Any]) -> Any:
    actual = case["actual"]
    if actual["kind"] == "refusal":
        refusal = {"errorCode": actual.get("code"), "message": actual.get("message")}
        if "path" in actual.get("context", {}):
            refusal["path"] = actual["context"]["path"]
        if case["expected"]["kind"] == "refusal" and "message" not in case["expected"]:
            refusal.pop("message")
        return {"refusal": refusal}
    if actual["kind"] != "answer":
        return {actual["kind"]: actual.get("message") or actual.get("reason")}
    if case["expected"]["kind"] == "partial":
        found = {}
        for matcher in case["expected"]["matchers"]:
            value = resolve_pointer(actual["document"], matcher["path"])
            found[matcher["path"]] = value if value is not resolve_pointer({}, "/x") else "(absent)"
        return found
    return actual["document"]


def _diff(case: dict[str, Any]) -> str:
    before = _pretty(_expected_view(case)).splitlines()
    after = _pretty(_actual_view(case)).splitlines()
    rows = []
    for line in difflib.unified_diff(before, after, "expected", "actual", lineterm="", n=3):
        css = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        text = escape(line)
        rows.append(f'<span class="{css}">{text}</span>' if css else text)
    return "\n".join(rows) or "(no textual difference)"


def _case_html(case: dict[str, Any]) -> str:
    outcome = case["outcome"]
    head = (
        f'<span class="o {outcome}">{outcome}</span> <code>{escape(case["vector"])}</code> '
        f"{escape(case['description'])}"
    )
    if outcome == "pass":
        return f"<li>{head}</li>"
    context = case["actual"].get("context")
    parts = [
        f"<li><details><summary>{head}</summary>",
        f"<p><b>Why:</b> {escape(case_reason(case))}</p>",
        f"<p><b>Diff</b> (expected → actual):</p><pre>{_diff(case)}</pre>",
        "<table><tr><th>Expected</th><th>Actual</th></tr><tr>",
        f"<td><pre>{escape(_pretty(_expected_view(case)))}</pre></td>",
        f"<td><pre>{escape(_pretty(_actual_view(case)))}</pre></td></tr></table>",
    ]
    if case["mismatches"]:
        parts.append(f"<p><b>Mismatches</b></p><pre>{escape(_pretty(case['mismatches']))}</pre>")
    if context:
        parts.append(f"<p><b>Context</b></p><pre>{escape(_pretty(context))}</pre>")
    if "xfailReason" in case:
        parts.append(f"<p><b>Expected failure:</b> {escape(case['xfailReason'])}</p>")
    parts.append(f"<p><b>Reproduce:</b></p><pre>{escape(case['reproduce'])}</pre></details></li>")
    return "\n".join(parts)


def _clause_html(clause: dict[str, Any], cases: list[dict[str, Any]]) -> str:
    mine = [case for case in cases if clause["id"] in case["clauses"]]
    outcomes = sorted({case["outcome"] for case in mine})
    note = ""
    if clause.get("untestable"):
        note = f"<p>Untestable: {escape(clause['untestable'])}</p>"
    elif not mine:
        note = "<p><b>No vector of this clause ran.</b></p>"
    items = "\n".join(_case_html(case) for case in mine)
    return (
        f'<section class="clause" id="{escape(clause["id"])}"><h3>{escape(clause["id"])} '
        f'<span class="level">{escape(clause["level"])}</span> '
        + " ".join(f'<span class="o {o}">{o}</span>' for o in outcomes)
        + f'</h3><p class="quote">{escape(clause["quote"])}</p>'
        f"<p><small>{escape(clause['file'])} · {escape(clause['section'])}</small></p>"
        f"{note}<ul>{items}</ul></section>"
    )


def render_html(records: list[dict[str, Any]]) -> str:
    header, cases, footer = records[0], records[1:-1], records[-1]
    impl = header["implementation"]
    rows = "".join(
        f"<tr><th>{escape(k)}</th><td><code>{escape(str(v))}</code></td></tr>"
        for k, v in (
            ("Target", header["target"]),
            ("Implementation", f"{impl['name']} {impl['version']} ({impl['language']})"),
            ("Kit", header["kit"]["version"]),
            ("Vector manifest SHA-256", header["vectorManifestSha256"]),
            ("Clause registry SHA-256", header["clauseRegistrySha256"]),
            ("Started / finished", f"{header['startedAt']} / {footer['finishedAt']}"),
            ("Verdict", f"{footer['verdict']} (exit status {footer['exitStatus']})"),
        )
    )
    summary = "".join(
        f"<tr><td>{s['protocol']}</td>"
        + "".join(f"<td>{s['counts'][k]}</td>" for k in s["counts"])
        + f"<td>{s['mustClausesExecuted']}/{s['mustClauses']}</td><td>{s['verdict']}</td></tr>"
        for s in footer["protocols"]
    )
    problems = "".join(f"<li>{escape(p)}</li>" for p in footer["problems"])
    problems += "".join(
        f"<li>{escape(s['protocol'])}: operation <code>{escape(gap['operation'])}</code> is not "
        "listed by the implementation; unproven: "
        f"{escape(', '.join(gap['unprovenClauses']) or 'no clause')}</li>"
        for s in footer["protocols"]
        for gap in s.get("unsupportedOperations", [])
    )
    sections = []
    for protocol in [s["protocol"] for s in footer["protocols"]]:
        clauses = [c for c in header["clauses"] if c["protocol"] == protocol]
        sections.append(f"<h2>{escape(protocol)}: {len(clauses)} clauses</h2>")
        sections.extend(_clause_html(clause, cases) for clause in clauses)
    embedded = json.dumps(records, ensure_ascii=False).replace("</", "<\\/")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>apconform conformance report: {escape(impl['name'])}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>Conformance report: {escape(impl['name'])} {escape(impl['version'])}</h1>"
        f"<table>{rows}</table>"
        "<h2>Summary</h2><table><tr><th>Protocol</th><th>Pass</th><th>Fail</th><th>Skipped</th>"
        "<th>Errored</th><th>Xfail</th><th>Xpass</th><th>MUST clauses executed</th>"
        f"<th>Verdict</th></tr>{summary}</table>"
        + (f"<h2>Problems</h2><ul>{problems}</ul>" if problems else "")
        + "\n".join(sections)
        + f'<script type="application/json" id="apconform-report">{embedded}</script>'
        "</body></html>\n"
    )
