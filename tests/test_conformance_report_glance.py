"""The conformance HTML report answers its question at a glance, in a real headless Chromium.

The verdict comes first and is coloured; every case that failed is named and linked in the
problems list, and its expected and actual values are visible without a click; clause ids
sort naturally (AP1-DRV-2 before AP1-DRV-10); a clause some of whose vectors passed while
others were skipped is "partial"; refusals are shown as the wire carries them (``code``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import Browser
from result_samples import PLANTED, conformance_records

from apconform.conformance.reports.html import render_html as render_conformance_html
from apconform.conformance.runner import CheckOptions, run_check
from apconform.conformance.vectors import load_vectors

REFERENCE = "direct:apconform.conformance.reference:adapter"
CRASHED = "kit-load-bom"


def _skippable() -> tuple[str, list[str]]:
    """A kit vector whose clauses all have other vectors, none of them planted to fail."""
    kit = [v for v in load_vectors() if v.vector.protocol == "kit"]
    planted = {PLANTED, CRASHED}
    bad_clauses = {c for v in kit if v.id in planted for c in v.vector.clauses}
    for vector in sorted(kit, key=lambda v: v.id):
        clauses = list(vector.vector.clauses)
        if vector.id in planted or set(clauses) & bad_clauses:
            continue
        if all(sum(c in v.vector.clauses for v in kit) >= 2 for c in clauses):
            return vector.id, clauses
    raise AssertionError("no kit vector fits")


@pytest.fixture(scope="module")
def planted() -> tuple[list[dict[str, Any]], str, list[str]]:
    skipped, clauses = _skippable()
    records = conformance_records({PLANTED: "wrong-value", CRASHED: "crash", skipped: "skip"})
    return records, skipped, clauses


def test_the_verdict_comes_first_and_every_failing_case_is_named_and_linked(
    browser: Browser, planted: tuple[list[dict[str, Any]], str, list[str]], tmp_path: Path
) -> None:
    records, skipped, clauses = planted
    page = tmp_path / "conformance.html"
    page.write_text(render_conformance_html(records), encoding="utf-8")
    view = browser.open(page, width=1280)
    # the verdict: first thing under the title, in white on red
    first = view.page.evaluate("() => document.querySelector('h1').nextElementSibling.className")
    assert first == "verdict v-fail"
    assert view.texts("#verdict")[0].startswith("FAIL")
    colour = view.page.evaluate(
        "() => getComputedStyle(document.querySelector('#verdict')).backgroundColor"
    )
    assert colour == "rgb(207, 34, 46)"
    verdict_box = view.boxes("#verdict")[0]
    assert verdict_box["y"] < 150  # seen without scrolling
    # every failing case is named in the problems list and links to its place below
    failing = [c for c in records[1:-1] if c["outcome"] in ("fail", "errored", "xpass")]
    assert {c["vector"] for c in failing} == {PLANTED, CRASHED}
    links = view.page.locator("ul.problems a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs == [f"#case-{CRASHED}", f"#case-{PLANTED}"] or hrefs == [
        f"#case-{PLANTED}",
        f"#case-{CRASHED}",
    ]
    for href in hrefs:
        assert href is not None
        target = view.page.locator(href)
        assert target.count() == 1
        view.page.click(f"ul.problems a[href='{href}']")
        assert view.page.evaluate("() => location.hash") == href
    # expected and actual of a failure are visible without a click
    case = view.page.locator(f"#case-{PLANTED}")
    assert case.locator("details").get_attribute("open") is not None
    assert case.locator("th", has_text="Expected").is_visible()
    assert case.locator("th", has_text="Actual").is_visible()
    assert view.horizontal_overflow() == 0
    # the skipped vector leaves its clauses partial, not "skipped" and not "pass"
    rows = {row.split("\t")[0]: row.split("\t")[2] for row in view.texts("table.index tbody tr")}
    for clause in clauses:
        assert rows[clause] == "partial", (skipped, clause)
    view.close()


def test_at_390_px_the_report_does_not_scroll_sideways(
    browser: Browser, planted: tuple[list[dict[str, Any]], str, list[str]], tmp_path: Path
) -> None:
    page = tmp_path / "conformance.html"
    page.write_text(render_conformance_html(planted[0]), encoding="utf-8")
    view = browser.open(page, width=390)
    assert view.horizontal_overflow() == 0
    view.close()


def test_clause_ids_sort_naturally(tmp_path: Path) -> None:
    from apconform.conformance.reports.html import clause_sort_key

    assert sorted(["AP1-DRV-10", "AP1-DRV-2", "AP1-DRV-1"], key=clause_sort_key) == [
        "AP1-DRV-1",
        "AP1-DRV-2",
        "AP1-DRV-10",
    ]
    records = run_check(
        CheckOptions(impl=REFERENCE, protocols=["ap1"], only=["ap1-adj-merge"])
    ).records
    html = render_conformance_html(records)
    index = html[html.index('<table class="index">') :]
    assert index.index('href="#AP1-DRV-2"') < index.index('href="#AP1-DRV-10"')
    sections = html[html.index('<div class="clauses">') :]
    assert sections.index('id="AP1-DRV-2"') < sections.index('id="AP1-DRV-10"')


def test_a_refusal_is_shown_as_the_wire_carries_it() -> None:
    records = conformance_records({"kit-load-nan": "wrong-refusal"})
    case = next(c for c in records[1:-1] if c["vector"] == "kit-load-nan")
    assert case["outcome"] == "fail" and case["expected"]["kind"] == "refusal"
    html = render_conformance_html(records)
    start = html.index('id="case-kit-load-nan"')
    shown = html[start : html.index("</li>", start)]
    assert "&quot;code&quot;: &quot;APC-JSON-NONFINITE&quot;" in shown
    assert "errorCode" not in shown
