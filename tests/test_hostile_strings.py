"""Hostile strings through every report and page: printed as text, never as markup.

A name an implementation or a model gives itself, a response, a reason: each
reaches a report through the one escaping layer (``apconform.core.escaping``).
Here one string holding every kind of attack goes into each report the kit
writes (conformance Markdown, HTML, JUnit and text; the AP-1 report.md and
report.html; the results site's pages; the adjudication sheets) and no piece of
it may appear raw; the HTML report's JSON island must parse back to the string.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from apconform.cli import main
from apconform.core.escaping import json_island, markdown_cell, markdown_code, markdown_text
from apconform.core.files import load_path
from apconform.results.records import read_jsonl

HOSTILE = (
    "<script>alert(1)</script> <!--<script> a|b\nc\u2028d\u2029e `tick` [x](javascript:alert(1))"
)
"""Raw HTML, an HTML comment that opens a script, a table pipe, three kinds of line
break, a code span and a javascript: link, in one string."""

RAW_HTML = ("<script", "<!--<", "</script> <!--")
"""Pieces that may never appear raw in HTML or Markdown (the pages' own ``<script``
elements hold none of the hostile string: they are checked apart)."""


def _no_raw_markdown(text: str) -> None:
    # A code span shows its text literally (no markup inside it) and markdown_code fences it
    # with more backticks than it holds: it is checked whole, then left out.
    text = text.replace(markdown_code(HOSTILE), "(code span)")
    for piece in (*RAW_HTML, "](javascript:", "b\nc", "\u2028", "\u2029"):
        assert piece not in text, (piece, text[:2000])
    for match in re.finditer("tick", text):
        assert text[match.start() - 2 : match.start()] == "\\`", text[match.start() - 40 :][:80]
    for line in text.splitlines():
        if line.startswith("|") and "tick" in line:
            assert "a\\|b" in line, line  # the pipe does not split the cell


def _no_raw_html(text: str) -> None:
    outside = re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", text, flags=re.S)
    for piece in RAW_HTML:
        assert piece not in outside, (piece, outside[:2000])
    for island in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S):
        for piece in ("<", ">", "&", "\u2028", "\u2029"):
            assert piece not in island, piece


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "demo"
    assert main(["demo", "--output-dir", str(out)]) == 0
    return out


def _hostile_header(demo: Path) -> list[dict[str, Any]]:
    """The demo's conformance report with the hostile string as the implementation's name,
    version and target, and as a problem (a report the ledger still accepts)."""
    records = copy.deepcopy(read_jsonl(demo / "conformance" / "report.jsonl"))
    header = records[0]
    header["implementation"]["name"] = HOSTILE
    header["implementation"]["version"] = HOSTILE
    header["target"] = HOSTILE
    records[-1]["problems"] = [HOSTILE]
    return records


@pytest.fixture(scope="module")
def records(demo: Path) -> list[dict[str, Any]]:
    """The hostile header, and one failed case whose description and reason are hostile."""
    records = _hostile_header(demo)
    case = records[1]
    case["outcome"] = "fail"
    case["description"] = HOSTILE
    case["reason"] = HOSTILE
    return records


def test_the_escaping_functions() -> None:
    assert markdown_text("mock-mixed 95% [0.9, 1.0]") == "mock-mixed 95% [0.9, 1.0]"
    assert markdown_text("<b>&") == "&lt;b&gt;&amp;"
    assert markdown_text("[x](javascript:y)") == "[x]\\(javascript:y)"
    assert markdown_cell("a|b\\c\nd") == "a\\|b\\\\c d"
    assert markdown_code("direct:x") == "`direct:x`"
    assert markdown_code("a`b") == "``a`b``"
    island = json_island({"s": HOSTILE})
    assert "<" not in island and "\u2028" not in island
    assert json.loads(island) == {"s": HOSTILE}


def test_conformance_reports(records: list[dict[str, Any]]) -> None:
    from apconform.conformance.reports.formats import render

    markdown = render(records, "markdown")
    _no_raw_markdown(markdown)
    heading = markdown.splitlines()[0]
    assert heading.endswith(
        "&lt;script&gt;alert(1)&lt;/script&gt; &lt;!--&lt;script&gt; a|b c d e \\`tick\\` "
        "[x]\\(javascript:alert(1)) " + markdown_text(HOSTILE)
    )
    html = render(records, "html")
    _no_raw_html(html)
    island = re.search(
        r'<script type="application/json" id="apconform-report">(.*?)</script>', html
    )
    assert island is not None
    assert json.loads(island.group(1))[0]["implementation"]["name"] == HOSTILE
    junit = render(records, "junit")
    assert "<script" not in junit and "<!--<" not in junit
    ET.fromstring(junit.encode())  # well-formed: the hostile text is character data
    text = render(records, "pretty")
    assert "b\nc" not in text  # a name cannot add a line to the text report


def test_ap1_report_model_row(demo: Path) -> None:
    from apconform.ap1.scoring.report.html import render_html
    from apconform.ap1.scoring.report.markdown import render_markdown

    doc = copy.deepcopy(load_path(demo / "ap1-run" / "report" / "score-report.json"))
    doc["run"]["model"] = HOSTILE
    markdown = render_markdown(doc)
    _no_raw_markdown(markdown)
    assert f"| Model | {markdown_cell(HOSTILE)} |" in markdown.splitlines()
    html = render_html(doc)
    _no_raw_html(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_results_site_pages(demo: Path, tmp_path: Path) -> None:
    report = tmp_path / "hostile.jsonl"
    lines = (json.dumps(r) + "\n" for r in _hostile_header(demo))
    report.write_text("".join(lines), encoding="utf-8")
    ledger = tmp_path / "ledger.db"
    assert main(["ledger", "record", str(report), "--ledger", str(ledger)]) == 0
    assert main(["ledger", "site", str(tmp_path / "site"), "--ledger", str(ledger)]) == 0
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) >= 3
    seen = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        _no_raw_html(text)
        seen += "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert seen >= 2  # the index and the entry pages name the implementation


def test_adjudication_sheet() -> None:
    from apconform.ap1.scoring.adjudication.sheets import sheet_html

    row = {
        "rowId": "r1",
        "dimension": "D1",
        "expectedValue": HOSTILE,
        "itemId": HOSTILE,
        "category": HOSTILE,
        "question": HOSTILE,
        "deliveredData": HOSTILE,
        "response": HOSTILE,
        "toolCalls": HOSTILE,
        "routedBecause": HOSTILE,
    }
    html = sheet_html([row], 1, HOSTILE)
    _no_raw_html(html)
    assert html.count("&lt;!--&lt;script&gt;") >= 8


@pytest.mark.parametrize(
    "module", ["apconform.conformance.reports.text", "apconform.ap1.scoring.report.markdown"]
)
def test_self_test_a_planted_unescaped_markdown_report_is_caught(
    module: str, records: list[dict[str, Any]], demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks above fail when a report stops escaping: a renderer whose Markdown text and
    cells are written raw (the regression issue 28 found) must not pass them."""
    import importlib

    from apconform.ap1.scoring.report.markdown import render_markdown
    from apconform.conformance.reports.formats import render

    renderer = importlib.import_module(module)
    monkeypatch.setattr(renderer, "markdown_text", str)
    monkeypatch.setattr(renderer, "markdown_cell", str)
    if module.startswith("apconform.conformance"):
        planted = render(records, "markdown")
    else:
        doc = copy.deepcopy(load_path(demo / "ap1-run" / "report" / "score-report.json"))
        doc["run"]["model"] = HOSTILE
        planted = render_markdown(doc)
    with pytest.raises(AssertionError):
        _no_raw_markdown(planted)
