"""The matrix, the histories and the offline results site, checked in a real headless browser."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import Browser
from result_samples import ap1_report, worsen_invocation

from apconform import __version__
from apconform.cli import main
from apconform.core.errors import ApconformError
from apconform.ledger import Ledger, build_matrix, conformance_history, latest_profiles, prepare
from apconform.results import ResultKind
from apconform.site import write_site

from .conftest import Ticks
from .samples import CLAIMS, PLANTED, apx, conformance, profile


def _fill(ledger: Ledger) -> None:
    ledger.append(conformance("impl-a", "1.0.0"))
    ledger.append(conformance("impl-b", "0.9.0"))
    ledger.append(conformance("impl-a", "1.1.0", {PLANTED: "wrong-value"}))
    flaky = ledger.append(conformance("impl-c", "3.0.0", {PLANTED: "error"}))
    ledger.append(
        conformance("impl-c", "3.0.0", supersedes=[flaky.digest], reason="the runner timed out")
    )
    ledger.append(profile("mock-mixed"))
    worse = worsen_invocation(ap1_report("model-b"))
    ledger.append(prepare(ResultKind.AP1_SCORE_REPORT, worse, created_at=CLAIMS()))
    ledger.append(apx())


def test_matrix_history_and_profiles(ledger: Ledger) -> None:
    _fill(ledger)
    matrix = build_matrix(ledger, "kit")
    assert [(c["implementation"]["name"], c["seq"], c["verdict"]) for c in matrix["columns"]] == [
        ("impl-a", 3, "fail"),
        ("impl-b", 2, "pass"),
        ("impl-c", 5, "pass"),  # the correction, not the superseded run
    ]
    rows = {row["clause"]: row for row in matrix["rows"]}
    assert rows["KIT-JCS-1"]["outcomes"] == ["fail", "pass", "pass"]
    assert rows["KIT-JCS-1"]["level"] == "MUST"
    assert rows["KIT-SIG-3"]["outcomes"] == ["untested"] * 3
    assert build_matrix(ledger, "apx")["columns"] == []
    history = conformance_history(ledger, "impl-a")
    assert [(h["seq"], h["regressions"], h["fixed"]) for h in history] == [
        (1, [], []),
        (3, ["KIT-JCS-1"], []),
    ]
    corrected = conformance_history(ledger, "impl-c")
    assert corrected[0]["supersededBy"] == [corrected[1]["entrySha256"]]
    assert corrected[1]["fixed"] == []  # a superseded run is no basis of comparison
    assert [p["model"] for p in latest_profiles(ledger)] == ["mock-mixed", "model-b"]


def test_the_site_is_complete_deterministic_and_refuses_foreign_folders(
    ledger: Ledger, tmp_path: Path
) -> None:
    _fill(ledger)
    first = write_site(ledger, tmp_path / "site")
    assert first.pages == 1 + 3 + 8 + 3  # overview, histories, entries, full reports
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    clauses = len(build_matrix(ledger, "kit")["rows"])
    assert clauses >= 15  # every kit clause the kit's reports quote
    assert f"kit: 3 implementations \u00d7 {clauses} clauses" in index
    assert "model-b" in index and "86.0%" in index and "[77.2%, 92.4%]" in index
    assert 'href="entries/3-report.html#KIT-JCS-1"' in index
    assert "http://" not in index and "https://" not in index and "<script" not in index
    history = next((tmp_path / "site" / "implementations").glob("impl-a-*.html"))
    assert "regression: KIT-JCS-1" in history.read_text(encoding="utf-8")
    before = {
        p.relative_to(tmp_path / "site"): p.read_bytes()
        for p in (tmp_path / "site").rglob("*")
        if p.is_file()
    }
    write_site(ledger, tmp_path / "site")  # an earlier site is replaced, byte for byte the same
    after = {
        p.relative_to(tmp_path / "site"): p.read_bytes()
        for p in (tmp_path / "site").rglob("*")
        if p.is_file()
    }
    assert before == after
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ApconformError) as refused:
        write_site(ledger, tmp_path / "mine")
    assert refused.value.code == "APC-LEDGER-SITE-TARGET"
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_the_site_in_a_browser(browser: Browser, tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "ledger.db", create=True, clock=Ticks()) as ledger:
        _fill(ledger)
        for number in range(12):  # more implementations than fit across 1280 px
            ledger.append(conformance(f"wide-implementation-name-{number:02d}", "1.0.0"))
        write_site(ledger, tmp_path / "site")
        clauses = len(build_matrix(ledger, "kit")["rows"])
    view = browser.open(tmp_path / "site" / "index.html", width=1280)
    shot = view.screenshot(tmp_path / "index.png")
    assert shot.stat().st_size > 10_000
    assert view.horizontal_overflow() == 0
    cells = view.texts("table.matrix td")
    assert len(cells) == 15 * clauses and all(text.strip() for text in cells)
    assert "\u2717 FAIL" in cells and "\u2713 pass" in cells and "untestable" in cells
    native = f"native (apconform {__version__})"  # each profile says who ran it
    assert view.texts("table.profile thead th")[1:] == [
        f"mock-mixed\n{native}\nentry 6, sealed "
        + view.texts("table.profile thead th")[1].split("sealed ")[1],
        f"model-b\n{native}\nentry 7, sealed "
        + view.texts("table.profile thead th")[2].split("sealed ")[1],
    ]
    bars = view.boxes(".ci-bar")
    assert bars and all(box["width"] > 0 for box in bars)
    assert view.outside_requests == [] and view.console_errors == []
    for page in (
        next((tmp_path / "site" / "implementations").glob("impl-a-*.html")),
        tmp_path / "site" / "entries" / "3.html",
        tmp_path / "site" / "entries" / "6.html",
    ):
        other = browser.open(page, width=1280)
        assert other.horizontal_overflow() == 0, page
        assert other.outside_requests == []
        other.close()


def test_site_command(
    ledger: Ledger, location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger.append(apx())
    assert main(["ledger", "site", "--ledger", location, str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.startswith(f"wrote 2 pages to {tmp_path / 'out'}")
