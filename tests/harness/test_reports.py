"""Report formats: JSON lines against their schemas, JUnit against an XSD, offline HTML, badges."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lxml import etree

from apconform.conformance.reports.formats import render, write_badges
from apconform.conformance.reports.html import DOCS_SITE
from apconform.conformance.runner import CheckOptions, CheckRun, run_check
from apconform.core.canonical import sha256_hex
from apconform.core.schemas import json_schema_validator
from apconform.results.records import read_jsonl, record_problems

from .conftest import DIRECT, FAULTY_EXEC, VECTORS, plan

XSD = etree.XMLSchema(etree.parse(str(Path(__file__).with_name("data") / "junit.xsd")))
FAULTS = {
    "kit-jcs-number-exponent": "wrong-value",
    "kit-load-bom": "crash",
    "kit-load-overflow": "skip",
}


@pytest.fixture(scope="module")
def faulty() -> CheckRun:
    return run_check(CheckOptions(impl=f"{FAULTY_EXEC} {plan(FAULTS)}", timeout=5.0))


@pytest.fixture(scope="module")
def clean() -> CheckRun:
    return run_check(CheckOptions(impl=DIRECT))


def test_jsonl_records_follow_their_schemas(faulty: CheckRun, tmp_path: Path) -> None:
    path = tmp_path / "report.jsonl"
    path.write_text(render(faulty.records, "json"), encoding="utf-8")
    records = read_jsonl(path)
    assert len(records) == len(VECTORS) + 2
    assert record_problems(records) == []
    assert [r["record"] for r in (records[0], records[1], records[-1])] == [
        "header",
        "case",
        "footer",
    ]
    header = records[0]
    assert header["kit"] == {"name": "apconform", "version": "0.1.0"}
    assert len(header["vectorManifestSha256"]) == len(header["clauseRegistrySha256"]) == 64
    assert header["startedAt"] <= records[-1]["finishedAt"]
    assert records[-1]["casesSha256"] == sha256_hex(records[1:-1])


def test_edited_case_record_is_detected(faulty: CheckRun) -> None:
    records = json.loads(json.dumps(faulty.records))
    records[3]["outcome"] = "pass" if records[3]["outcome"] != "pass" else "fail"
    problems = record_problems(records)
    assert "the case records do not match the footer's casesSha256" in problems
    records = json.loads(json.dumps(faulty.records))
    records[2]["outcome"] = "great"
    assert any("record 3 (report-case) at /outcome" in p for p in record_problems(records))


def test_junit_is_accepted_by_the_junit_schema(faulty: CheckRun, clean: CheckRun) -> None:
    for run in (faulty, clean):
        document = etree.fromstring(render(run.records, "junit").encode("utf-8"))
        XSD.assertValid(document)
    document = etree.fromstring(render(faulty.records, "junit").encode("utf-8"))
    assert document.get("tests") == str(len(VECTORS))
    assert (document.get("failures"), document.get("errors"), document.get("skipped")) == (
        "1",
        "1",
        "1",
    )
    failure = document.find(".//testcase[@name='kit-jcs-number-exponent']/failure")
    assert failure is not None and "/canonical: strings differ" in failure.get("message")
    error = document.find(".//testcase[@name='kit-load-bom']/error")
    assert error is not None and "exited with status 3" in error.get("message")


def test_the_junit_schema_check_can_fail(clean: CheckRun) -> None:
    document = etree.fromstring(render(clean.records, "junit").encode("utf-8"))
    case = document.find(".//testcase")
    del case.attrib["classname"]
    assert not XSD.validate(document)
    case.set("classname", "x")
    case.set("time", "-1")
    assert not XSD.validate(document)


def test_html_is_offline_and_grouped_by_clause(faulty: CheckRun, tmp_path: Path) -> None:
    html = render(faulty.records, "html")
    assert not re.search(r"""src\s*=""", html)  # nothing is loaded
    links = re.findall(r'href="([^"]*)"', html)
    assert links and all(h.startswith(("#", DOCS_SITE)) for h in links)  # only followed on a click
    assert "<link" not in html and "<script src" not in html and "@import" not in html
    assert re.findall(r"<script[^>]*>", html) == [
        '<script type="application/json" id="apconform-report">'
    ]
    quote = next(c["quote"] for c in faulty.header["clauses"] if c["id"] == "KIT-JCS-1")
    assert quote.replace('"', "&quot;").replace("'", "&#x27;") in html
    assert '<section class="clause c st-fail lv-MUST" id="KIT-JCS-1">' in html
    section = html.split('id="KIT-JCS-1">')[1].split("</section>")[0]
    assert "kit-jcs-number-exponent" in section
    assert '<span class="del">-  &quot;canonical&quot;' in section
    assert '<span class="add">+  &quot;canonical&quot;' in section
    assert "--only kit-jcs-number-exponent" in section
    embedded = html.split('id="apconform-report">')[1].split("</script>")[0]
    assert json.loads(embedded.replace("<\\/", "</")) == faulty.records
    (tmp_path / "report.html").write_text(html, encoding="utf-8")


def test_markdown_and_pretty_say_why(faulty: CheckRun) -> None:
    kit = sum(1 for v in VECTORS.values() if v.vector.protocol == "kit")
    markdown = render(faulty.records, "markdown")
    assert (
        f"| kit | {kit - 3} | 1 | 1 | 1 | 0 | 0 | 15 of 15 testable MUST clauses executed "
        "(5 untestable, not counted) | fail |"
    ) in markdown
    assert (
        "| errored | `kit-load-bom` | KIT-LOAD-4 | no answer: the implementation exited" in markdown
    )
    pretty = render(faulty.records, "pretty")
    case = pretty.split("FAIL  kit-jcs-number-exponent [KIT-JCS-1]\n")[1].split("  reproduce")[0]
    vector = VECTORS["kit-jcs-number-exponent"].vector
    description = " ".join(line.strip() for line in case.splitlines()[:2])
    assert description == vector.description
    digest = vector.expected.document["sha256"]
    assert "/sha256: strings differ (first difference at character 64)" in case
    assert f'expected "{digest}"\n' in case  # the full value, not cut at 46 characters
    assert f'actual   "{digest}~"\n' in case
    assert all(len(line) <= 100 for line in case.splitlines())
    assert pretty.endswith("verdict: FAIL (exit status 1)\n")


def test_pretty_wraps_long_values_without_losing_a_character(faulty: CheckRun) -> None:
    records = json.loads(json.dumps(faulty.records))
    case = next(c for c in records[1:-1] if c["vector"] == "kit-jcs-number-exponent")
    long_value = "x" * 250 + "~end"
    case["mismatches"] = [
        {"path": "/canonical", "reason": "strings differ", "expected": "x", "actual": long_value}
    ]
    pretty = render(records, "pretty")
    lines = pretty.split("/canonical: strings differ")[1].splitlines()[2:6]
    assert lines[0].startswith('          actual   "xxx')
    assert all(len(line) <= 100 for line in lines)
    rebuilt = "".join(line[19:] for line in lines if line.startswith(" " * 19) or "actual" in line)
    assert rebuilt.startswith('"' + "x" * 80) and '~end"' in rebuilt
    assert rebuilt.count("x") == 250


def test_badges(faulty: CheckRun, clean: CheckRun, tmp_path: Path) -> None:
    validator = json_schema_validator("badge")
    kit = sum(1 for v in VECTORS.values() if v.vector.protocol == "kit")
    bad = {p.name: p for p in write_badges(faulty.records, tmp_path / "faulty")}["kit.json"]
    written = {path.name: path for path in write_badges(clean.records, tmp_path / "clean")}
    assert "kit.json" in written
    assert set(written) <= {"kit.json", "apx.json", "ap1.json"}
    good = written["kit.json"]
    assert bad.name == "kit.json"
    for path in (bad, *written.values()):
        validator.validate(json.loads(path.read_text()))
    assert json.loads(bad.read_text()) == {
        "schemaVersion": 1,
        "label": "apconform kit",
        "message": f"{kit - 3}/{kit} passed",
        "color": "red",
    }
    assert json.loads(good.read_text())["message"] == f"{kit}/{kit} passed"
    assert json.loads(good.read_text())["color"] == "brightgreen"
