"""The AP-1 profile report and the conformance report, opened in a real headless Chromium.

What a reviewer sees: no legend text running into another, no page wider than 1280 px, no
cell whose text spills out of it, charts with axes and values, collapsed repeated rows, yes/no
for booleans, the drop ratio written as a formula; a clause index with failures first, a
filter that works, every clause of every level, and links that point at real pages and files.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from browser_support import Browser, PageView
from result_samples import PLANTED, REFERENCE, ap1_report, conformance_records

from apconform.ap1.scoring.report import render_html as render_ap1_html
from apconform.ap1.scoring.report.html import COLLAPSE_AT
from apconform.ap1.scoring.report.text_metrics import text_width
from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.reports.html import DOCS_SITE
from apconform.conformance.reports.html import render_html as render_conformance_html
from apconform.conformance.runner import CheckOptions, run_check

REPO = Path(__file__).resolve().parents[1]
CRASHED = "kit-load-bom"
"""A second planted fault (the implementation crashes: an errored case, citing KIT-LOAD-*)."""


def _overlaps(boxes: list[dict[str, float]]) -> list[tuple[int, int]]:
    """The pairs of boxes that share any area (touching edges do not count)."""
    found = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if (
                a["x"] < b["x"] + b["width"] - 0.5
                and b["x"] < a["x"] + a["width"] - 0.5
                and a["y"] < b["y"] + b["height"] - 0.5
                and b["y"] < a["y"] + a["height"] - 0.5
            ):
                found.append((i, j))
    return found


def _spilling_cells(view: PageView) -> int:
    """How many table cells hold text wider than the cell itself."""
    return int(
        view.page.evaluate(
            "() => [...document.querySelectorAll('td, th')]"
            ".filter(c => c.scrollWidth > c.clientWidth + 1).length"
        )
    )


def _visible(view: PageView, selector: str) -> int:
    return int(
        view.page.evaluate(
            "s => [...document.querySelectorAll(s)].filter(e => e.offsetParent !== null).length",
            selector,
        )
    )


def _section(view: PageView, title: str) -> Any:
    return view.page.locator("section", has=view.page.locator("h2", has_text=title))


@pytest.fixture(scope="module")
def ap1_doc() -> dict[str, Any]:
    return ap1_report()


def test_ap1_report_in_a_browser(browser: Browser, ap1_doc: dict[str, Any], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_ap1_html(ap1_doc), encoding="utf-8")
    view = browser.open(page, width=1280)
    assert view.screenshot(tmp_path / "report.png").stat().st_size > 50_000
    assert view.horizontal_overflow() == 0
    assert _spilling_cells(view) == 0
    assert view.outside_requests == [] and view.console_errors == []
    figures = view.page.locator("figure")
    assert figures.count() == 3
    for index in range(3):
        figure = figures.nth(index)
        for selector in ("g.legend-entry", "text.tick-label", "text.bar-label"):
            boxes = [
                box
                for box in (h.bounding_box() for h in figure.locator(selector).element_handles())
                if box is not None
            ]
            assert boxes, selector
            assert _overlaps(boxes) == [], (index, selector)
        labels = figure.locator("text.bar-label").element_handles()
        bars_start = min(
            float(r.get_attribute("x") or 0)
            for r in figure.locator("g.segment > rect").element_handles()
        )
        svg_left = (figure.locator("svg").bounding_box() or {"x": 0.0})["x"]
        for label in labels:
            box = label.bounding_box()
            assert box is not None and box["x"] >= svg_left - 0.5
            assert box["x"] + box["width"] <= svg_left + bars_start + 0.5
    answers = view.page.locator("figure >> nth=2 >> text.bar-value").all_text_contents()
    per_item = [sum(int(c["count"]) for c in r["outcomes"]) for r in ap1_doc["answers"]["perItem"]]
    assert answers == [str(n) for n in per_item]
    ticks = view.page.locator("figure >> nth=2 >> text.tick-label").all_text_contents()
    assert ticks[0] == "0" and ticks[-1] == str(max(per_item))
    assert view.page.locator("figure >> nth=2 >> text.axis-title").all_text_contents() == [
        "executions of the item"
    ]

    # D2: every cell sharing a class and reason is one line naming how many cells it holds
    cells = ap1_doc["reproducibility"]["cells"]
    shared = Counter((c["mechanismClass"], c["reason"]) for c in cells)
    expected = [
        f"{n} cells: {klass} \u2014 {reason}"
        for (klass, reason), n in shared.items()
        if n >= COLLAPSE_AT
    ]
    d2 = _section(view, "D2 reproducibility")
    groups = [t.split("\n")[0] for t in d2.locator("tr.group").all_inner_texts()]
    assert groups == expected and len(groups) >= 1
    assert sum(shared[k] for k in shared if shared[k] >= COLLAPSE_AT) == len(cells)
    assert d2.locator("table").first.locator("tbody tr:not(.group)").count() == 0
    d2.locator("tr.group summary").first.click()
    listed = d2.locator("tr.group details").first.inner_text()
    first = cells[0]
    assert f"{first['itemId']}/{first['condition']}/{first['surface']}" in listed

    # a table without headings (the run's facts) has no empty heading row
    facts = _section(view, "The run").locator("table")
    assert facts.locator("thead").count() == 0 and facts.locator("tr").count() == 6

    # booleans read yes/no; the drop ratio is a formula with its value and the rates in it
    texts = view.texts("td")
    assert "True" not in texts and "False" not in texts
    integrity = _section(view, "Integrity of what was scored")
    assert integrity.locator("td").all_inner_texts()[3::4][
        : len(ap1_doc["integrity"]["inputs"])
    ] == ["yes"] * len(ap1_doc["integrity"]["inputs"])
    base, removed = ap1_doc["invocation"]["byCondition"]
    value = ap1_doc["invocation"]["dropRatio"]["value"]
    assert view.texts("p.formula") == [
        f"Drop ratio (D7.1b) = (Ibase \u2212 Iremoved) / Ibase = {value}, where Ibase = "
        f"{base['invoked']}/{base['ev2']} and Iremoved = {removed['invoked']}/{removed['ev2']} "
        "(EV-2 records only)"
    ]
    view.close()


def test_long_numbers_stay_whole_and_their_table_scrolls_in_its_box(
    browser: Browser, ap1_doc: dict[str, Any], tmp_path: Path
) -> None:
    doc = dict(ap1_doc)
    long = "1" * 40 + "." + "3" * 60
    doc["transcription"] = {
        **ap1_doc["transcription"],
        "altered": [
            {
                "cellKey": "base/Q01/1",
                "kind": "CHANGED",
                "released": long,
                "lastReturn": long + "7",
                "difference": "0." + "0" * 59 + "4",
            }
        ],
    }
    page = tmp_path / "long.html"
    page.write_text(render_ap1_html(doc), encoding="utf-8")
    view = browser.open(page, width=800)
    assert view.horizontal_overflow() == 0  # the page does not scroll sideways
    assert _spilling_cells(view) == 0
    cell = view.page.locator("td", has_text=long + "7")
    box = cell.bounding_box()
    assert box is not None and box["height"] < 30  # one line: a number is never split
    scroller = view.page.locator("div.tw", has=cell)
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth")  # the table's box scrolls
    view.close()


def test_text_widths_are_the_fonts_advance_widths() -> None:
    # Arial / Liberation Sans: "I" is 278/1000 em, "M" 833, "0" 556; a non-ASCII letter 1 em
    assert text_width("I", 10) == 2.8
    assert text_width("M0", 11) == 15.3
    assert text_width("\u00e9", 11) == 11.0
    assert text_width("UNMEASURED", 11) > 7 * len("UNMEASURED")  # wider than the old estimate


@pytest.fixture(scope="module")
def failing() -> list[dict[str, Any]]:
    return conformance_records({PLANTED: "wrong-value", CRASHED: "crash"})


def test_conformance_report_in_a_browser(
    browser: Browser, failing: list[dict[str, Any]], tmp_path: Path
) -> None:
    page = tmp_path / "conformance.html"
    page.write_text(render_conformance_html(failing), encoding="utf-8")
    view = browser.open(page, width=1280)
    assert view.screenshot(tmp_path / "conformance.png").stat().st_size > 50_000
    assert view.horizontal_overflow() == 0
    assert view.outside_requests == [] and view.console_errors == []
    assert _overlaps(view.boxes(".filter label")) == []

    cases = failing[1:-1]
    result: dict[str, str] = {}
    for case in cases:
        for clause in case["clauses"]:
            bad = {"fail": "fail", "xpass": "fail", "errored": "errored"}.get(case["outcome"])
            if bad and result.get(clause) != "fail":
                result[clause] = bad
    problems = sorted(result, key=lambda c: (result[c] != "fail", c))
    assert "KIT-JCS-1" in problems and any(result[c] == "errored" for c in problems)
    rows = view.texts("table.index tbody tr")
    registry = [c for c in load_clause_registry().registry.clauses if c.protocol == "kit"]
    assert len(rows) == len(registry)
    assert [row.split("\t")[0] for row in rows[: len(problems)]] == problems
    assert all(row.split("\t")[2] in ("fail", "errored") for row in rows[: len(problems)])
    assert all(row.split("\t")[2] not in ("fail", "errored") for row in rows[len(problems) :])
    jcs = next(row.split("\t") for row in rows if row.startswith("KIT-JCS-1\t"))
    jcs_cases = [c for c in cases if "KIT-JCS-1" in c["clauses"]]
    assert jcs[3:5] == [
        str(sum(c["outcome"] == "pass" for c in jcs_cases)),
        str(sum(c["outcome"] == "fail" for c in jcs_cases)),
    ]

    # the filter: failures and errors only, then MUST only, then everything again
    total = _visible(view, "section.clause")
    assert total == len(registry)
    view.page.click("label[for=show-problems]")
    assert _visible(view, "section.clause") == len(problems)
    assert _visible(view, "table.index tbody tr") == len(problems)
    assert view.page.locator(f"section.clause#{problems[0]}").is_visible()
    view.page.click("label[for=show-MUST]")
    assert _visible(view, "section.clause") == sum(c.level == "MUST" for c in registry)
    view.page.click("label[for=show-all]")
    assert _visible(view, "section.clause") == total

    # the index links to the clause; the clause to its docs page; each case to its vector file
    view.page.click(f"table.index a[href='#{problems[0]}']")
    assert view.page.evaluate("() => location.hash") == f"#{problems[0]}"
    section = view.page.locator(f"section.clause#{problems[0]}")
    docs = section.locator("a", has_text="the clause in the documentation").get_attribute("href")
    assert docs is not None and docs.startswith(DOCS_SITE)
    path, anchor = docs.removeprefix(DOCS_SITE).split("/#")
    assert f'<a id="{anchor}"></a>' in (REPO / "docs" / f"{path}.md").read_text(encoding="utf-8")
    vector_links = section.locator("li a").all_inner_texts()
    assert vector_links and all((REPO / link).is_file() for link in vector_links)
    view.close()


def test_every_clause_of_every_level_is_listed(tmp_path: Path) -> None:
    records = run_check(
        CheckOptions(impl=REFERENCE, protocols=["ap1"], only=["ap1-adj-merge"])
    ).records
    registry = [c for c in load_clause_registry().registry.clauses if c.protocol == "ap1"]
    carried = {c["id"] for c in records[0]["clauses"]}
    quiet = [c for c in registry if c.level != "MUST" and c.id not in carried]
    assert quiet  # SHOULD and MAY clauses the run did not cite (AP1-ENG-4, AP1-SEAL-8)
    html = render_conformance_html(records)
    levels = Counter(c.level for c in registry)
    assert (
        f"<h2>ap1: {len(registry)} clauses ({levels['MUST']} MUST, {levels['SHOULD']} SHOULD, "
        f"{levels['MAY']} MAY)</h2>" in html
    )
    for clause in quiet:
        section = html.split(f'id="{clause.id}"><h3>')[1].split("</section>")[0]
        assert f'<span class="level">{clause.level}</span>' in section
        assert f"No vector tests this {clause.level} clause." in section
    # a report made with another clause registry lists only its own clauses, and says so
    records[0]["clauseRegistrySha256"] = "0" * 64
    other = render_conformance_html(records)
    assert "differs from the one the report was made with" in other
    assert all(f'id="{c.id}"><h3>' not in other for c in quiet)
    assert re.search(r"<h2>ap1: (\d+) clauses", other).group(1) == str(len(carried))  # type: ignore[union-attr]
