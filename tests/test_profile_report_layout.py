"""The AP-1 profile report in a real headless Chromium, at 1280 px and on a 390 px phone.

No number or identifier is ever split across two lines ("14/2" for 142, "UNMEASURE/D",
"-2860.7/5"); the profile is the first thing under the title; the page never scrolls
sideways (a wide table scrolls in its own box); and the three counts of work sent to people
are each defined once, in the profile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import Browser
from result_samples import ap1_report

from apconform.ap1.scoring.report import render_html, render_markdown


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    """The worked example's profile, with the long values real runs produce in its tables."""
    report = ap1_report()
    report["transcription"] = {
        **report["transcription"],
        "altered": [
            {
                "cellKey": "instruction-removed/Q10/100",
                "kind": "CHANGED",
                "released": "-2860.75",
                "lastReturn": "263400.00",
                "difference": "-266260.75",
            },
            {
                "cellKey": "base/Q07/17",
                "kind": "CHANGED",
                "released": "1" * 40 + "." + "3" * 60,
                "lastReturn": "2" * 40 + "." + "4" * 60,
                "difference": "0." + "0" * 59 + "4",
            },
        ],
    }
    return report


@pytest.mark.parametrize("width", [1280, 390])
def test_no_number_or_identifier_is_split_and_the_page_does_not_scroll_sideways(
    browser: Browser, doc: dict[str, Any], tmp_path: Path, width: int
) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(doc), encoding="utf-8")
    view = browser.open(page, width=width)
    assert view.horizontal_overflow() == 0
    assert view.split_tokens("td, th, section > p:not(.formula)") == []
    cells = view.texts("td")
    for value in ("-2860.75", "263400.00", "-266260.75", "instruction-removed/Q10/100"):
        assert value in cells  # whole, and (above) on one line
    view.close()


def test_the_profile_comes_first(browser: Browser, doc: dict[str, Any], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(doc), encoding="utf-8")
    view = browser.open(page, width=1280)
    headings = view.texts("h1, h2")
    assert headings[:3] == ["AP-1 score report", "The profile", "The run"]
    profile = view.page.locator("section", has=view.page.locator("h2", has_text="The profile"))
    box = profile.locator("table").bounding_box()
    assert box is not None and box["y"] < 320  # under the title and the statement, no scrolling
    view.close()


def test_each_count_of_work_for_people_is_defined_once(doc: dict[str, Any]) -> None:
    text = render_markdown(doc)
    figures = doc["accuracy"]["adjudicated"]
    answers = doc["answers"]["routedToAdjudication"]
    rows = doc["adjudication"]["routed"]
    definition = next(line for line in text.splitlines() if line.startswith("Work for people"))
    assert f"D1 figures not matched automatically: {figures} (" in definition
    assert f"Answers routed to people (§6.8): {answers} (" in definition
    assert f"Adjudication sheet rows: {rows} (" in definition
    # everywhere else the counts point back to it instead of being explained again
    assert text.count("see the profile's work for people") == 3
    assert "routed to adjudication" not in text and "row(s) routed" not in text
