"""The site's pages as HTML text: the overview, each implementation's history, each entry.

Every function here is pure: the same data gives the same bytes, so a site
written twice from one ledger is identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from apconform.core.escaping import escape_html as escape
from apconform.core.signing import key_id
from apconform.results import DimensionFigure, origin_label, profile_figures
from apconform.site.style import CSS, OUTCOME_LABELS

if TYPE_CHECKING:
    from apconform.site.view import SiteEntry

__all__ = [
    "broken_banner",
    "entry_page",
    "history_page",
    "index_page",
    "page",
    "status_section",
    "trust_statement",
    "with_banner",
]


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """ "1 implementation", "2 implementations": never "implementation(s)"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def page(title: str, body: str, *, root: str = "", banner: str = "") -> str:
    """A whole page: the stylesheet inline, a navigation back to the overview, no script; a
    ledger that did not verify puts its banner at the top of every page."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>{banner}"
        f'<nav><a href="{root}index.html">Results overview</a></nav>'
        f"<h1>{escape(title)}</h1>{body}</body></html>\n"
    )


def _untestable() -> frozenset[str]:
    """The clauses no vector can test: the site calls them untestable, as the reports do."""
    from apconform.conformance.clauses import load_clause_registry

    return frozenset(c.id for c in load_clause_registry().registry.clauses if c.untestable)


def broken_banner(report: Mapping[str, Any]) -> str:
    """The warning every page of a site written from a ledger that does not verify carries."""
    first = report["findings"][0]
    count = len(report["findings"])
    return (
        '<div class="broken" role="alert"><strong>This ledger does not verify.</strong> '
        f"The first broken entry is entry {first['seq']}: <code>{escape(first['code'])}</code> "
        f"{escape(first['message'])} ({count} finding(s) in all; "
        "<code>apconform ledger verify</code> lists them). The site was published anyway "
        "(--publish-broken): what it shows is derived from the documents, but do not rely "
        "on it.</div>"
    )


def with_banner(html: str, banner: str) -> str:
    """A page rendered elsewhere (a full report), with the banner after its ``<body>``."""
    if not banner:
        return html
    start = html.find("<body")
    end = html.find(">", start) + 1 if start >= 0 else 0
    return html[:end] + banner + html[end:]


def trust_statement(trusted_keys: Sequence[str]) -> str:
    """What the signatures shown on the site establish, given the keys it was verified against."""
    if trusted_keys:
        keys = ", ".join(f"<code>{escape(key_id(k))}</code>" for k in trusted_keys)
        return (
            f"<p class='note'>Every entry is signed by one of the trusted keys {keys}, named "
            "when this site was written; each result names its signer.</p>"
        )
    return (
        "<p class='note'><strong>No trusted key was named</strong> when this site was "
        "written: signatures were checked for integrity only. A signature shows which key "
        "signed a result, not who vouched for it (anyone can make a key); each result names "
        "its signer. Write the site with <code>--trusted-key</code> to require your keys.</p>"
    )


def _cell(outcome: str, href: str | None) -> str:
    label = escape(OUTCOME_LABELS.get(outcome, outcome))
    inner = f'<a href="{escape(href)}">{label}</a>' if href else label
    return f'<td class="o-{escape(outcome)}" title="{escape(outcome)}">{inner}</td>'


def _impl(column: Mapping[str, Any]) -> str:
    impl = column["implementation"]
    return f"{escape(impl['name'])} <small>{escape(impl['version'])}</small>"


def matrix_section(
    matrix: Mapping[str, Any], links: Mapping[str, str], reports: Mapping[int, str]
) -> str:
    """One protocol's matrix: clauses down, implementations across, outcome text in each cell."""
    columns = matrix["columns"]
    head = "".join(
        f'<th><a href="{escape(links[c["implementation"]["name"]])}">{_impl(c)}</a><br>'
        f'<small>entry <a href="entries/{c["seq"]}.html">{c["seq"]}</a>, '
        f"{escape(c['verdict'])}<br>signed by {escape(c.get('signer', 'nobody'))}</small></th>"
        for c in columns
    )
    rows = []
    untestable = _untestable()
    for row in matrix["rows"]:
        cells = "".join(
            _cell(
                "untestable" if outcome == "untested" and row["clause"] in untestable else outcome,
                f"{reports[c['seq']]}#{row['clause']}" if c["seq"] in reports else None,
            )
            for outcome, c in zip(row["outcomes"], columns, strict=True)
        )
        rows.append(
            f'<tr><th class="clause" scope="row"><code>{escape(row["clause"])}</code>'
            f'<span class="level">{escape(row["level"])}</span></th>{cells}</tr>'
        )
    tally: dict[str, int] = {}
    for row in matrix["rows"]:
        for outcome in row["outcomes"]:
            if outcome == "untested" and row["clause"] in untestable:
                outcome = "untestable"
            tally[outcome] = tally.get(outcome, 0) + 1
    counts = ", ".join(f"{n} {escape(k)}" for k, n in sorted(tally.items()))
    return (
        f'<h2 id="matrix-{escape(matrix["protocol"])}">{escape(matrix["protocol"])}: '
        f"{_count(len(columns), 'implementation')} \u00d7 "
        f"{_count(len(matrix['rows']), 'clause')}</h2>"
        f'<p class="note">Latest report of each implementation that no later entry '
        f"supersedes, with the key that signed it. Cells: {counts}. A cell links to the "
        "clause in that run's report.</p>"
        f'<div class="scroll"><table class="matrix"><thead><tr><th class="clause">Clause</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _percent(value: Decimal) -> str:
    return f"{(value * 100).quantize(Decimal('0.1'))}%"


def _figure_cell(figure: DimensionFigure | None) -> str:
    if figure is None:
        return '<td class="o-untested">not in this report</td>'
    human = (
        f"<br><small class='adjudicated'>{escape(figure.adjudication)}</small>"
        if figure.adjudication
        else ""
    )
    if not figure.has_rate:
        text = escape(figure.text())
        return f"<td><b>{escape(figure.status)}</b><br><small>{text}</small>{human}</td>"
    assert figure.rate is not None and figure.lower is not None and figure.upper is not None
    left, width = figure.lower * 100, (figure.upper - figure.lower) * 100
    point = figure.rate * 100
    what = "successes" if figure.higher_is_better else "failures"
    return (
        f"<td><b>{_percent(figure.rate)}</b> [{_percent(figure.lower)}, "
        f"{_percent(figure.upper)}] <small>{escape(str(figure.k))}/{escape(str(figure.n))} "
        f"{what}</small>"
        f'<div class="ci" role="img" aria-label="95% interval {_percent(figure.lower)} to '
        f'{_percent(figure.upper)}"><span class="ci-bar" style="left:{left:.2f}%;'
        f'width:{width:.2f}%"></span><span class="ci-point" style="left:{point:.2f}%"></span>'
        f"</div><small>{escape(figure.text())}</small>{human}</td>"
    )


def profiles_section(profiles: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """AP-1 profiles of models side by side: one column per model, one row per dimension."""
    if not profiles:
        return "<h2>AP-1 profiles</h2><p>No AP-1 score report is in the ledger.</p>"
    figures = [{f.dimension: f for f in profile_figures(doc)} for _, doc in profiles]
    order: list[str] = []
    for figure_map in figures:
        order.extend(d for d in figure_map if d not in order)
    head = "".join(
        f'<th>{escape(s["model"])}<br><small class="origin">{escape(origin_label(doc))}</small>'
        f'<br><small>entry <a href="entries/{s["seq"]}.html">'
        f"{s['seq']}</a>, sealed {escape(s.get('runDate', '?'))}<br>"
        f"signed by {escape(s.get('signer', 'nobody'))}</small></th>"
        for s, doc in profiles
    )
    rows = "".join(
        f"<tr><th>{escape(d)}</th>" + "".join(_figure_cell(f.get(d)) for f in figures) + "</tr>"
        for d in order
    )
    return (
        "<h2>AP-1 profiles</h2><p class='note'>The latest profile of each model, for each "
        "origin (run by apconform itself, or imported from a harness such as Inspect AI, "
        "with the model string it ran). AP-1 gives a "
        "profile, not a verdict: each rate shows its 95% Clopper-Pearson interval (the bar) "
        "and its point estimate (the mark); bars on a 0-100% scale.</p>"
        f'<div class="scroll"><table class="profile"><thead><tr><th>Dimension</th>{head}</tr>'
        f"</thead><tbody>{rows}</tbody></table></div>"
    )


def apx_section(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    if not results:
        return ""
    rows = "".join(
        f'<tr><td><a href="entries/{s["seq"]}.html">{s["seq"]}</a></td>'
        f"<td>{escape(s['subject'])}</td><td>{escape(s.get('signer', 'nobody'))}</td>"
        f"<td>{escape(str(doc.get('AP')))}</td>"
        f"<td>{escape(str(doc.get('APx')))}</td><td>{escape(str(doc.get('eligibility')))}</td>"
        f"<td>{escape(str(doc.get('status')))}</td>"
        f"<td>{escape(str(doc.get('certified')).lower())}</td></tr>"
        for s, doc in results
    )
    return (
        "<h2>APx results</h2><table><thead><tr><th>Entry</th><th>Run</th><th>Signed by</th>"
        "<th>AP</th>"
        "<th>APx</th><th>Eligibility</th><th>Status</th><th>Certified</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def status_section(matrices: Iterable[Mapping[str, Any]]) -> str:
    """What fails, said first: each implementation whose latest report is not a pass."""
    failing = []
    for matrix in matrices:
        for index, column in enumerate(matrix["columns"]):
            if column["verdict"] == "pass":
                continue
            outcomes = [row["outcomes"][index] for row in matrix["rows"]]
            bad = sum(1 for o in outcomes if o in ("fail", "errored"))
            impl = column["implementation"]
            failing.append(
                f"<li><b>{escape(impl['name'])} {escape(impl['version'])}</b>: "
                f"{escape(matrix['protocol'])} {escape(column['verdict'].upper())}"
                + (f", {_count(bad, 'clause')} failing or erroring" if bad else "")
                + f' (<a href="#matrix-{escape(matrix["protocol"])}">matrix</a>)</li>'
            )
    if not failing:
        return '<p class="status ok">Every implementation\'s latest report passes.</p>'
    return f'<div class="status bad"><b>Not passing now:</b><ul>{"".join(failing)}</ul></div>'


def index_page(
    *,
    head: tuple[int, str | None],
    matrices: list[str],
    implementations: Iterable[tuple[str, str, int]],
    profiles: str,
    apx: str,
    status: str = "",
    trust: str = "",
    banner: str = "",
) -> str:
    seq, digest = head
    impl_items = "".join(
        f'<li><a href="{escape(href)}">{escape(name)}</a> ({_count(count, "report")})</li>'
        for name, href, count in implementations
    )
    anchor = (
        f"<p class='note'>Ledger head: entry {seq}, <code>{escape(digest)}</code>. Check a "
        "copy of the ledger with <code>apconform ledger verify --anchor "
        f"{escape(digest)}</code>.</p>"
        if digest
        else "<p>The ledger is empty.</p>"
    )
    body = (
        status
        + anchor
        + trust
        + "<h2>Implementations</h2>"
        + (f"<ul>{impl_items}</ul>" if impl_items else "<p>No conformance report yet.</p>")
        + "".join(matrices)
        + profiles
        + apx
    )
    return page("apconform results", body, banner=banner)


def _summary_cells(item: Mapping[str, Any]) -> str:
    status = ""
    if item["supersededBy"]:
        later = escape(item["supersededBy"][-1][:12])
        status = f'<span class="superseded">superseded by {later}</span>'
    marks = []
    if item.get("regressions"):
        clauses = ", ".join(item["regressions"])
        marks.append(f'<span class="regression">regression: {escape(clauses)}</span>')
    if item.get("fixed"):
        marks.append(f'<span class="fixed">fixed: {escape(", ".join(item["fixed"]))}</span>')
    return (
        f'<td><a href="../entries/{item["seq"]}.html">{item["seq"]}</a></td>'
        f"<td>{escape(item['implementation']['version'])}</td>"
        f"<td>{escape(item.get('runDate', ''))}</td><td>{escape(item['recordedAt'])}</td>"
        f"<td>{escape(item.get('verdict', ''))}</td>"
        f"<td>{escape(item.get('signer', 'unsigned'))}</td>"
        f"<td>{' '.join(marks) or 'no change' if 'regressions' in item else ''} {status}</td>"
    )


def history_page(name: str, history: list[dict[str, Any]], *, banner: str = "") -> str:
    rows = "".join(f"<tr>{_summary_cells(item)}</tr>" for item in history)
    regressions = sum(1 for item in history if item["regressions"])
    body = (
        f"<p>{_count(len(history), 'conformance report')}, oldest first; each is compared with the "
        "previous current one, and clauses that newly fail are marked as a regression "
        f"({_count(regressions, 'report')} with regressions).</p>"
        "<table><thead><tr><th>Entry</th><th>Version</th><th>Run</th><th>Recorded</th>"
        "<th>Verdict</th><th>Signed by</th><th>Change since the previous report</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )
    return page(f"History of {name}", body, root="../", banner=banner)


def _facts_table(summary: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    claim = entry["claim"]
    rows = [
        ("Entry", f"{summary['seq']}"),
        ("Digest", summary["entrySha256"]),
        ("Previous", summary["previous"] or "(the first entry)"),
        ("Recorded", summary["recordedAt"]),
        ("Kind", summary["kind"]),
        ("Subject", summary["subject"]),
        (
            "Implementation",
            f"{summary['implementation']['name']} {summary['implementation']['version']}",
        ),
        ("Document SHA-256", summary["documentSha256"]),
        ("Signed by", summary.get("signer", "unsigned")),
        ("Claim made", claim.get("createdAt", "(not dated)")),
    ]
    for key, label in (("model", "Model"), ("verdict", "Verdict"), ("runDate", "Run")):
        if key in summary:
            rows.append((label, summary[key]))
    if "supersedes" in claim:
        rows.append(("Supersedes", ", ".join(claim["supersedes"])))
        rows.append(("Reason", claim["reason"]))
    if summary["supersededBy"]:
        rows.append(("Superseded by", ", ".join(summary["supersededBy"])))
    return (
        "<table>"
        + "".join(
            f"<tr><th>{escape(k)}</th><td><code>{escape(str(v))}</code></td></tr>" for k, v in rows
        )
        + "</table>"
    )


def _conformance_body(records: list[dict[str, Any]], report_href: str | None) -> str:
    footer, cases = records[-1], records[1:-1]
    summary = "".join(
        f"<tr><td>{escape(p['protocol'])}</td>"
        + "".join(f"<td>{p['counts'][k]}</td>" for k in ("pass", "fail", "errored", "skipped"))
        + f"<td>{escape(p['verdict'])}</td></tr>"
        for p in footer["protocols"]
    )
    failing = [c for c in cases if c["outcome"] not in ("pass", "xfail")]
    items = "".join(
        f'<li><span class="o-{escape(c["outcome"])}">{escape(c["outcome"])}</span> '
        f"<code>{escape(c['vector'])}</code> ({escape(', '.join(c['clauses']))}): "
        f"{escape(c['description'])}</li>"
        for c in failing[:500]
    )
    link = (
        f'<p><a href="{escape(report_href)}">The full conformance report</a> '
        "(every clause, every case, expected against actual).</p>"
        if report_href
        else "<p class='note'>The full report is rendered for each implementation's latest "
        "entry; this one's is in the ledger: <code>apconform ledger show --document</code>."
        "</p>"
    )
    more = f"<p>... and {len(failing) - 500} more.</p>" if len(failing) > 500 else ""
    return (
        link + "<h2>Verdicts</h2><table><thead><tr><th>Protocol</th><th>Pass</th><th>Fail</th>"
        f"<th>Errored</th><th>Skipped</th><th>Verdict</th></tr></thead><tbody>{summary}"
        "</tbody></table>"
        + f"<h2>Cases not passing ({len(failing)})</h2>"
        + (f"<ul>{items}</ul>{more}" if failing else "<p>None.</p>")
    )


def _profile_body(report: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{escape(f.dimension)}</th><td>{escape(f.name)}</td>" + _figure_cell(f) + "</tr>"
        for f in profile_figures(report)
    )
    return (
        f"<p>{escape(report['profileStatement'])}</p><table class='profile'><thead><tr>"
        f"<th>Dimension</th><th>Name</th><th>Figure</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _apx_body(result: dict[str, Any]) -> str:
    keys = ("AP", "APx", "eligibility", "status", "certified", "creditedHumanHours", "wallHours")
    rows = "".join(
        f"<tr><th>{escape(k)}</th><td><code>{escape(str(result.get(k)))}</code></td></tr>"
        for k in keys
    )
    return f"<table>{rows}</table><p>{escape(str(result.get('limitation', '')))}</p>"


def _findings_list(findings: Sequence[Mapping[str, Any]]) -> str:
    if not findings:
        return ""
    items = "".join(
        f"<li><code>{escape(f['code'])}</code> {escape(f['message'])}</li>" for f in findings
    )
    return f'<h2>Verification findings</h2><ul class="findings">{items}</ul>'


def entry_page(
    item: SiteEntry,
    document: Any,
    report_href: str | None,
    findings: Sequence[Mapping[str, Any]],
    *,
    banner: str = "",
) -> str:
    """An entry's page: its facts as derived from its document, and the document's content."""
    summary = item.summary
    if summary is None:
        body = (
            f"<p>Entry {item.seq} (<code>{escape(item.digest)}</code>) cannot be shown: its "
            "bytes or its document do not verify, so nothing it states is derived.</p>"
        )
        return page(f"Entry {item.seq}", body + _findings_list(findings), root="../", banner=banner)
    kind = summary["kind"]
    if kind == "conformance-report":
        content = _conformance_body(document, report_href)
    elif kind == "ap1-score-report":
        content = _profile_body(document)
    else:
        content = _apx_body(document)
    return page(
        f"Entry {summary['seq']}: {summary['subject']}",
        _facts_table(summary, item.entry or {}) + _findings_list(findings) + content,
        root="../",
        banner=banner,
    )
