"""The HTML report: one self-contained file, grouped by clause, that opens offline.

It opens on the verdict, coloured, then names and links every case that did
not pass (the reason beside it), then a clause index with each clause's
counts, failures and errors first, and a filter (by result and by level) made
of radio buttons and CSS alone. Clause ids sort naturally (KIT-LOAD-2 before
KIT-LOAD-10). A clause whose cases partly passed and partly did not run is
"partial", never "pass". Every clause of the report's protocols is listed, SHOULD and MAY ones
too (from the kit's clause registry when it is the one the report names),
with a link to its sentence in the documentation site. Each clause shows its
level and exact quote, then its vectors, each linked to its file; each vector
that failed shows expected versus actual with a line diff, the mismatches and
the command that reproduces the case, open from the start. Styles are inline and
nothing is fetched; no script runs: the report's records are embedded as data
(``<script type="application/json" id="apconform-report">``) for machine readers.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from apconform.conformance.compare import resolve_pointer
from apconform.conformance.reports.text import case_reason
from apconform.conformance.summary import OUTCOMES, count_outcomes, must_clauses_text
from apconform.core.escaping import escape_html as escape
from apconform.core.escaping import json_island

__all__ = ["DOCS_SITE", "clause_sort_key", "render_html"]

DOCS_SITE = "https://w3id.org/apconform/"
"""Where the documentation site is published: clause links point into its spec/ pages and
vector links to its vectors/ folder."""
_RANK = {
    "fail": 0,
    "errored": 1,
    "not run": 2,
    "partial": 3,
    "skipped": 4,
    "xfail": 5,
    "pass": 6,
    "untestable": 7,
    "none": 8,
}
"""Clause results in the order the report lists them: failures and errors first."""
_FILTERS = (
    ("all", "All"),
    ("problems", "Failed or errored"),
    ("unrun", "Not run or partial"),
    ("MUST", "MUST"),
    ("SHOULD", "SHOULD"),
    ("MAY", "MAY"),
)

_DIGITS = re.compile(r"(\d+)")


def clause_sort_key(clause_id: str) -> tuple[tuple[int, str], ...]:
    """Natural order of ids: the digit runs compare as numbers (DRV-2 before DRV-10)."""
    return tuple(
        (1, f"{int(part):012d}") if part.isdigit() else (0, part)
        for part in _DIGITS.split(str(clause_id))
        if part
    )


_FAILING = ("fail", "errored", "xpass")
_VERDICT_CSS = {"pass": "v-pass", "fail": "v-fail", "incomplete": "v-incomplete"}

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
td,th,li,p,summary{overflow-wrap:anywhere}.index td.n{text-align:right}
.index .zero{color:#8c959f}.st{font-weight:600}.st-fail .st,.st-errored .st{color:#cf222e}
.st-notrun .st{color:#9a6700}.filter{margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.4rem}
.filter label{border:1px solid #d0d7de;border-radius:1rem;padding:.1rem .7rem;cursor:pointer}
input[name=show]{position:absolute;opacity:0}
#show-all:checked~.filter label[for=show-all],
#show-problems:checked~.filter label[for=show-problems],
#show-unrun:checked~.filter label[for=show-unrun],#show-MUST:checked~.filter label[for=show-MUST],
#show-SHOULD:checked~.filter label[for=show-SHOULD],#show-MAY:checked~.filter label[for=show-MAY]
{background:#0969da;color:#fff;border-color:#0969da}
#show-problems:checked~* .c:not(.st-fail):not(.st-errored),
#show-unrun:checked~* .c:not(.st-notrun):not(.st-partial),#show-MUST:checked~* .c:not(.lv-MUST),
#show-SHOULD:checked~* .c:not(.lv-SHOULD),#show-MAY:checked~* .c:not(.lv-MAY){display:none}
.verdict{font-size:1.35rem;font-weight:700;padding:.6rem 1rem;border-radius:6px;color:#fff;
margin:.5rem 0}.v-pass{background:#1a7f37}.v-fail{background:#cf222e}
.v-incomplete,.v-errored{background:#9a6700}.verdict small{font-weight:400;font-size:.95rem}
.problems li{margin:.2rem 0}.st-partial .st{color:#9a6700}code{overflow-wrap:anywhere}
td.n,.num{white-space:nowrap}
"""


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _expected_view(case: dict[str, Any]) -> Any:
    expected = case["expected"]
    if expected["kind"] == "exact":
        return expected["document"]
    if expected["kind"] == "refusal":  # as the wire carries it: code, message, path
        refusal = {
            wire: expected[key]
            for key, wire in (("errorCode", "code"), ("message", "message"), ("path", "path"))
            if key in expected
        }
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
        refusal = {"code": actual.get("code"), "message": actual.get("message")}
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


def _docs_link(clause: dict[str, Any], docs_site: str) -> str:
    page = clause["file"].removesuffix(".md")
    return f"{docs_site}{page}/#{clause['anchor']}"


def _case_anchor(case: dict[str, Any]) -> str:
    return "case-" + str(case["vector"])


def _case_html(case: dict[str, Any], docs_site: str, anchored: set[str]) -> str:
    outcome = case["outcome"]
    where = f"vectors/{case['vectorFile']}"
    anchor = _case_anchor(case)
    ident = "" if anchor in anchored else f' id="{escape(anchor)}"'
    anchored.add(anchor)
    head = (
        f'<span class="o {outcome}">{outcome}</span> <code>{escape(case["vector"])}</code> '
        f"{escape(case['description'])} "
        f'<small><a href="{escape(docs_site + where)}">{escape(where)}</a></small>'
    )
    if outcome == "pass":
        return f"<li{ident}>{head}</li>"
    context = case["actual"].get("context")
    opened = " open" if outcome in _FAILING else ""
    parts = [
        f"<li{ident}><details{opened}><summary>{head}</summary>",
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


def _result(clause: dict[str, Any], mine: list[dict[str, Any]]) -> str:
    """One word for a clause: fail, errored, not run (a MUST without a case), partial (some
    cases passed, others were skipped), skipped, xfail, pass, untestable (no vector can test
    it), or none (a SHOULD or MAY clause no vector tests)."""
    outcomes = {case["outcome"] for case in mine}
    if outcomes & {"fail", "xpass"}:
        return "fail"
    if "errored" in outcomes:
        return "errored"
    if "skipped" in outcomes and outcomes & {"pass", "xfail"}:
        return "partial"
    for word in ("skipped", "xfail", "pass"):
        if word in outcomes:
            return word
    if clause.get("untestable"):
        return "untestable"
    return "not run" if clause["level"] == "MUST" else "none"


def _classes(clause: dict[str, Any], result: str) -> str:
    return f"c st-{result.replace(' ', '')} lv-{escape(clause['level'])}"


def _clause_html(
    clause: dict[str, Any],
    mine: list[dict[str, Any]],
    result: str,
    docs_site: str,
    anchored: set[str],
) -> str:
    outcomes = sorted({case["outcome"] for case in mine})
    note = ""
    if clause.get("untestable"):
        note = f"<p>Untestable: {escape(clause['untestable'])}</p>"
    elif not mine:
        note = (
            "<p><b>No vector of this clause ran.</b></p>"
            if clause["level"] == "MUST"
            else f"<p>No vector tests this {escape(clause['level'])} clause.</p>"
        )
    elif result == "partial":
        note = "<p><b>Partial:</b> some of its vectors passed and others did not run.</p>"
    ordered = sorted(mine, key=lambda case: _RANK.get(case["outcome"], 0))
    items = "\n".join(_case_html(case, docs_site, anchored) for case in ordered)
    retired = " (retired)" if clause.get("status") == "retired" else ""
    return (
        f'<section class="clause {_classes(clause, result)}" id="{escape(clause["id"])}"><h3>'
        f'{escape(clause["id"])} <span class="level">{escape(clause["level"])}{retired}</span> '
        + " ".join(f'<span class="o {o}">{o}</span>' for o in outcomes)
        + f'</h3><p class="quote">{escape(clause["quote"])}</p>'
        f"<p><small>{escape(clause['file'])} · {escape(clause['section'])} · "
        f'<a href="{escape(_docs_link(clause, docs_site))}">the clause in the documentation</a>'
        f"</small></p>{note}<ul>{items}</ul></section>"
    )


def _all_clauses(header: dict[str, Any], protocols: list[str]) -> tuple[list[dict[str, Any]], str]:
    """Every clause of the report's protocols, and a note when only the report's own are known.

    The header lists the clauses the run cited (every MUST and those its vectors cite); the
    kit's registry adds the SHOULD and MAY clauses no vector tests, when it is the registry the
    report was made with.
    """
    from apconform.conformance.clauses import load_clause_registry

    listed = [c for c in header["clauses"] if c["protocol"] in protocols]
    registry = load_clause_registry()
    if registry.digest != header["clauseRegistrySha256"]:
        return listed, (
            "The clause registry of this kit differs from the one the report was made with, so "
            "only the clauses the report carries are listed."
        )
    known = {c["id"] for c in listed}
    extra = [
        c.model_dump(mode="json", exclude_none=True)
        for c in registry.registry.clauses
        if c.protocol in protocols and c.id not in known
    ]
    return sorted(listed + extra, key=lambda c: clause_sort_key(c["id"])), ""


def _index(entries: list[tuple[dict[str, Any], list[dict[str, Any]], str]]) -> str:
    head = "".join(f"<th>{escape(o)}</th>" for o in OUTCOMES)
    rows = []
    for clause, mine, result in sorted(
        entries, key=lambda e: (_RANK[e[2]], str(e[0]["protocol"]), clause_sort_key(e[0]["id"]))
    ):
        counts = count_outcomes(mine)
        cells = "".join(
            f'<td class="n{"" if counts[o] else " zero"}">{counts[o]}</td>' for o in OUTCOMES
        )
        rows.append(
            f'<tr class="{_classes(clause, result)}"><td><a href="#{escape(clause["id"])}">'
            f"{escape(clause['id'])}</a></td><td>{escape(clause['level'])}</td>"
            f'<td class="st">{escape(result)}</td>{cells}</tr>'
        )
    return (
        '<table class="index"><thead><tr><th>Clause</th><th>Level</th><th>Result</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _filter(entries: list[tuple[dict[str, Any], list[dict[str, Any]], str]]) -> str:
    counts = {
        "all": len(entries),
        "problems": sum(1 for _, _, r in entries if r in ("fail", "errored")),
        "unrun": sum(1 for _, _, r in entries if r in ("not run", "partial")),
    }
    for level in ("MUST", "SHOULD", "MAY"):
        counts[level] = sum(1 for c, _, _ in entries if c["level"] == level)
    inputs = "".join(
        f'<input type="radio" name="show" id="show-{key}"{" checked" if key == "all" else ""}>'
        for key, _ in _FILTERS
    )
    labels = "".join(
        f'<label for="show-{key}">{escape(text)} ({counts[key]})</label>' for key, text in _FILTERS
    )
    return f'{inputs}<div class="filter"><b>Show clauses:</b> {labels}</div>'


def _verdict_banner(header: dict[str, Any], footer: dict[str, Any]) -> str:
    verdict = str(footer["verdict"])
    partial = not header["selection"].get("complete", True)
    words = {
        "pass": "every case passed and every branch of every testable MUST clause ran",
        "fail": "a case failed, errored or passed unexpectedly",
        "incomplete": "a partial run (--only): it proves only the cases it chose"
        if partial
        else "nothing failed, but the run proves too little",
        "errored": "the run was stopped early",
    }[verdict]
    return (
        f'<p class="verdict {_VERDICT_CSS.get(verdict, "v-errored")}" id="verdict">'
        f"{escape(verdict.upper())} <small>{escape(words)} (exit status "
        f"{footer['exitStatus']})</small></p>"
    )


def _problem_cases(cases: list[dict[str, Any]]) -> str:
    """Every case that did not pass, named, linked to its place below, with the reason."""
    notable = [case for case in cases if case["outcome"] in (*_FAILING, "xfail", "skipped")]
    notable.sort(key=lambda case: (_RANK.get(case["outcome"], 9), clause_sort_key(case["vector"])))
    items = "".join(
        f'<li><span class="o {case["outcome"]}">{escape(case["outcome"])}</span> '
        f'<a href="#{escape(_case_anchor(case))}"><code>{escape(case["vector"])}</code></a> '
        f"({escape(', '.join(case['clauses']))}): {escape(case_reason(case))}</li>"
        for case in notable
        if case["outcome"] in _FAILING
    )
    quiet = len(notable) - sum(1 for case in notable if case["outcome"] in _FAILING)
    if quiet:
        items += (
            f"<li>{quiet} more case(s) skipped or expected to fail: see the clause index "
            "(filter: Not run or partial)</li>"
        )
    return items


def render_html(records: list[dict[str, Any]], *, docs_site: str = DOCS_SITE) -> str:
    """The report as one HTML page; ``docs_site`` is where the clause and vector links point."""
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
        )
    )
    summary = "".join(
        f"<tr><td>{s['protocol']}</td>"
        + "".join(f'<td class="n">{s["counts"][k]}</td>' for k in s["counts"])
        + f"<td>{escape(must_clauses_text(s))}</td>"
        f'<td><b class="st-{escape(s["verdict"])}">{escape(s["verdict"])}</b></td></tr>'
        for s in footer["protocols"]
    )
    problems = _problem_cases(cases)
    problems += "".join(f"<li>{escape(p)}</li>" for p in footer["problems"])
    problems += "".join(
        f"<li>{escape(s['protocol'])}: operation <code>{escape(gap['operation'])}</code> is not "
        "listed by the implementation; unproven: "
        f"{escape(', '.join(gap['unprovenClauses']) or 'no clause')}</li>"
        for s in footer["protocols"]
        for gap in s.get("unsupportedOperations", [])
    )
    protocols = [s["protocol"] for s in footer["protocols"]]
    clauses, registry_note = _all_clauses(header, protocols)
    entries = []
    for clause in clauses:
        mine = [case for case in cases if clause["id"] in case["clauses"]]
        entries.append((clause, mine, _result(clause, mine)))
    sections = []
    anchored: set[str] = set()
    for protocol in protocols:
        own = sorted(
            (e for e in entries if e[0]["protocol"] == protocol),
            key=lambda e: (_RANK[e[2]], clause_sort_key(e[0]["id"])),
        )
        levels = ", ".join(
            f"{sum(1 for c, _, _ in own if c['level'] == level)} {level}"
            for level in ("MUST", "SHOULD", "MAY")
        )
        sections.append(f"<h2>{escape(protocol)}: {len(own)} clauses ({levels})</h2>")
        sections.extend(_clause_html(c, mine, r, docs_site, anchored) for c, mine, r in own)
    embedded = json_island(records)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>apconform conformance report: {escape(impl['name'])}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>Conformance report: {escape(impl['name'])} {escape(impl['version'])}</h1>"
        + _verdict_banner(header, footer)
        + (f'<h2>Problems</h2><ul class="problems">{problems}</ul>' if problems else "")
        + "<h2>Summary</h2><table><tr><th>Protocol</th><th>Pass</th><th>Fail</th>"
        "<th>Skipped</th><th>Errored</th><th>Xfail</th><th>Xpass</th><th>MUST clauses</th>"
        f"<th>Verdict</th></tr>{summary}</table>"
        f"<table>{rows}</table>"
        + "<h2>Clause index</h2><p>Failures and errors first, then MUST clauses that no case "
        "ran and partial ones, then the rest; ids in natural order; each id links to the "
        "clause below."
        + (f" {escape(registry_note)}" if registry_note else "")
        + "</p>"
        + _filter(entries)
        + _index(entries)
        + '<div class="clauses">'
        + "\n".join(sections)
        + "</div>"
        + f'<script type="application/json" id="apconform-report">{embedded}</script>'
        "</body></html>\n"
    )
