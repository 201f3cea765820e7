"""Adjudication in a browser: two blind scorers, a reload, reconciliation, the merge sheets give.

The application runs as the command a user starts (``apconform ap1 adjudicate
serve RUN_DIR --port 0``) on a copy of the demo run, and the system Chromium
drives it (tests/browser_support.py). Scorer 1 works with the keyboard alone;
scorer 2 with the mouse. The rows neither marks in the browser are loaded from
sheets with ``apconform ap1 adjudicate load``, so the two ways mix as they do
in a team. The accessibility check runs axe-core, installed from the npm
registry for the test session (not committed), or from ``$APCONFORM_AXE_DIR``;
it is skipped only where npm is not installed.

``APCONFORM_DOCS_SCREENSHOTS=1`` writes the two screenshots the AP-1 docs show
(docs/ap1/img/adjudication-*.png) from the workflow test.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import Browser, PageView

from apconform.ap1.scoring.adjudication.sheets import ACCURACY_MARKS, RUBRICS

from .adjudication_support import (
    copy_run,
    key_rows,
    planned_marks,
    settlement_sheet,
    sheet_with,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("APCONFORM_NO_BROWSER") == "1", reason="browser tests off"
)

REPO = Path(__file__).resolve().parents[2]
APCONFORM = str(Path(sys.executable).parent / "apconform")
AXE_VERSION = "4.14.1"
DOCS_IMAGES = REPO / "docs" / "ap1" / "img"
ACCURACY_KEYS = {"CORRECT": "c", "INCORRECT": "i", "NO-FIGURE": "n"}
SUBSET = 6
"""Rows each scorer marks in the browser (the rest come from sheets)."""


class Served:
    """``apconform ap1 adjudicate serve`` running on a free port, stopped by :meth:`stop`."""

    def __init__(self, run_dir: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            [APCONFORM, "ap1", "adjudicate", "serve", str(run_dir), "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        out = self.process.stdout
        self.reader = threading.Thread(target=lambda: [lines.put(x) for x in out], daemon=True)
        self.reader.start()
        first = lines.get(timeout=120)
        assert " on http://127.0.0.1:" in first, first
        self.url = first.split(" on ", 1)[1].split(" ", 1)[0]
        self.lines = lines

    def stop(self) -> str:
        """Stop it as a user does, with Ctrl-C (SIGINT); what it printed since it was ready."""
        self.process.send_signal(signal.SIGINT)
        self.exit_status = self.process.wait(timeout=30)
        self.reader.join(timeout=10)
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        return "".join(rest)


@pytest.fixture
def online(browser: Browser) -> Iterator[Browser]:
    browser.context.set_offline(False)  # the application's own server is on the loopback
    try:
        yield browser
    finally:
        browser.context.set_offline(True)


@pytest.fixture(scope="module")
def axe_source(tmp_path_factory: pytest.TempPathFactory) -> str:
    """axe-core's script: from $APCONFORM_AXE_DIR, else installed from npm for this session."""
    named = os.environ.get("APCONFORM_AXE_DIR")
    if named:
        return (Path(named) / "node_modules/axe-core/axe.min.js").read_text(encoding="utf-8")
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the axe-core accessibility check is skipped")
    folder = tmp_path_factory.mktemp("axe")
    done = subprocess.run(
        [
            *(npm, "install", "--prefix", str(folder), "--no-save", "--no-audit", "--no-fund"),
            *("--silent", f"axe-core@{AXE_VERSION}"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        pytest.fail(f"npm could not install axe-core@{AXE_VERSION}: {done.stderr[-2000:]}")
    return (folder / "node_modules/axe-core/axe.min.js").read_text(encoding="utf-8")


def _open(browser: Browser, url: str, *, width: int = 1280) -> PageView:
    """A page on the application that keeps the body of every API answer it received."""
    view = browser.open(url, allow=(url,), width=width, height=800)
    bodies: list[str] = []

    def keep(route: Any) -> None:
        answer = route.fetch()
        bodies.append(answer.text())
        route.fulfill(response=answer)

    view.page.route("**/api/**", keep)
    view.bodies = bodies  # type: ignore[attr-defined]
    return view


def _seen_by(view: PageView) -> str:
    """Everything the page's API answers carried, and the page as it stands."""
    return "\n".join(view.bodies) + view.page.content()  # type: ignore[attr-defined]


def _title_shows(view: PageView, row_id: str) -> None:
    view.page.wait_for_function(
        "id => location.hash.endsWith('/' + id) && document.getElementById('marks')"
        " && document.getElementById('item-title').textContent.includes(id)",
        arg=row_id,
    )


def _saved(view: PageView, press: Any) -> dict[str, Any]:
    with view.page.expect_response(
        lambda r: "/marks/" in r.url and r.request.method == "PUT"
    ) as info:
        press()
    response = info.value
    assert response.status == 200, response.text()
    body: dict[str, Any] = response.json()
    return body


def _start(view: PageView, name: str, *, keyboard: bool) -> None:
    page = view.page
    page.wait_for_selector("#name")
    if keyboard:  # the name field has the focus
        page.keyboard.type(name)
        page.keyboard.press("Enter")
    else:
        page.fill("#name", name)
        page.click("#start")
    page.wait_for_selector("#marks")


def _sheet_order(run: Path, slot: int) -> list[str]:
    import csv

    with (run / f"report/adjudication/scorer-{slot}.csv").open(encoding="utf-8") as sheet:
        return [row["rowId"] for row in csv.DictReader(sheet)]


def _mark_with_keys(view: PageView, row_id: str, mark: dict[str, str], dimension: str) -> None:
    keys = view.page.keyboard
    _saved(view, lambda: keys.press(str(RUBRICS[dimension].index(mark["outcome"]) + 1)))
    saved = _saved(view, lambda: keys.press(ACCURACY_KEYS[mark["accuracy"]]))
    assert saved["rowId"] == row_id and saved["state"] == "marked"
    assert saved["mark"]["outcome"] == mark["outcome"]
    assert saved["mark"]["accuracy"] == mark["accuracy"]
    if mark["notes"]:
        keys.press("r")
        keys.type(mark["notes"])
        assert _saved(view, lambda: keys.press("Escape"))["mark"]["notes"] == mark["notes"]


def _axe(view: PageView, source: str) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it stands (it ran: its passed rules are counted)."""
    view.page.evaluate(source)
    result: dict[str, Any] = view.page.evaluate(
        "async () => { const r = await axe.run(document); return {passes: r.passes.length,"
        " violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.length}))}; }"
    )
    assert result["passes"] >= 10, result
    found: list[dict[str, Any]] = result["violations"]
    return found


def _serious(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in found if v["impact"] in ("serious", "critical")]


def _shot(view: PageView, tmp_path: Path, name: str) -> None:
    path = view.screenshot(tmp_path / f"{name}.png", full_page=False)
    if os.environ.get("APCONFORM_DOCS_SCREENSHOTS") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMAGES / f"{name}.png")


def test_two_blind_scorers_reconcile_and_merge_what_the_sheets_merge(
    online: Browser, demo: tuple[Path, str], tmp_path: Path
) -> None:
    run = copy_run(demo[0], tmp_path / "run")
    rows = key_rows(run)
    dims = {r["rowId"]: r["dimension"] for r in rows}
    marks = {slot: planned_marks(rows, slot) for slot in (1, 2)}
    order = {slot: _sheet_order(run, slot) for slot in (1, 2)}
    for n, row_id in enumerate(order[1][:SUBSET]):
        if n % 2:
            marks[1][row_id]["notes"] = f"Ada's own reason {n}"
    for n, row_id in enumerate(order[2][:SUBSET]):
        if n % 2 == 0:
            marks[2][row_id]["notes"] = f"Bo's own reason {n}"
    served = Served(run)
    try:
        ada = _open(online, served.url)
        _start(ada, "Ada", keyboard=True)
        shot = False
        for n, row_id in enumerate(order[1][:SUBSET]):
            _title_shows(ada, row_id)  # the sheet's order, the sheet's row ids
            _mark_with_keys(ada, row_id, marks[1][row_id], dims[row_id])
            if n == 3:  # a reload mid-way: the same row, every mark kept
                ada.page.reload()
                _title_shows(ada, row_id)
                assert ada.page.is_checked(
                    f'input[name="outcome"][value="{marks[1][row_id]["outcome"]}"]'
                )
                assert ada.page.is_checked(
                    f'input[name="accuracy"][value="{marks[1][row_id]["accuracy"]}"]'
                )
                assert ada.page.inner_text("#progress-label") == "Marked 4 of 67 rows"
            if not shot and ada.page.locator(".scroll table").count():
                _shot(ada, tmp_path, "adjudication-marking")  # a row with calculator calls
                shot = True
            if n < SUBSET - 1:
                ada.page.keyboard.press("j")
        ada.page.keyboard.press("k")
        _title_shows(ada, order[1][SUBSET - 2])
        assert ada.page.input_value("#notes") == marks[1][order[1][SUBSET - 2]]["notes"]

        bo = _open(online, served.url)
        _start(bo, "Bo", keyboard=False)
        for row_id in order[2][:SUBSET]:
            _title_shows(bo, row_id)
            mark = marks[2][row_id]
            _saved(
                bo, lambda m=mark: bo.page.check(f'input[name="outcome"][value="{m["outcome"]}"]')
            )
            _saved(
                bo, lambda m=mark: bo.page.check(f'input[name="accuracy"][value="{m["accuracy"]}"]')
            )
            if mark["notes"]:
                bo.page.fill("#notes", mark["notes"])
                _saved(bo, lambda: bo.page.click("#next"))  # leaving the row saves its reason
            else:
                bo.page.click("#next")
        # Blind: Bo opens a row Ada marked; it shows nothing of hers.
        shared = next(
            r for r in order[1][:SUBSET] if r not in order[2][:SUBSET] and marks[1][r]["notes"]
        )
        bo.page.goto(f"{served.url}#/score/2/{shared}")
        _title_shows(bo, shared)
        assert bo.page.locator('input[name="outcome"]:checked').count() == 0
        assert bo.page.input_value("#notes") == ""
        seen_by_bo, seen_by_ada = _seen_by(bo), _seen_by(ada)
        assert "Ada's own reason" not in seen_by_bo and "Bo's own reason" not in seen_by_ada
        assert "Bo's own reason 0" in seen_by_bo and "Ada's own reason 1" in seen_by_ada

        # The rows not marked in the browser come from sheets (loaded while the server runs).
        for slot, name in ((1, "Ada"), (2, "Bo")):
            rest = {r: m for r, m in marks[slot].items() if r not in order[slot][:SUBSET]}
            sheet = tmp_path / f"rest-{slot}.csv"
            sheet.write_text(
                sheet_with(run / f"report/adjudication/scorer-{slot}.csv", rest), encoding="utf-8"
            )
            loaded = subprocess.run(
                [APCONFORM, "ap1", "adjudicate", "load", str(run), str(sheet), "--scorer", name],
                capture_output=True,
                text=True,
            )
            assert loaded.returncode == 0, loaded.stderr
            assert f"{len(rest)} row(s) changed" in loaded.stdout

        cy = _open(online, served.url)
        cy.page.wait_for_selector("#reconcile:not([disabled])")
        cy.page.click("#reconcile")
        cy.page.wait_for_selector("#agreement")
        disputes = cy.page.locator("section.dispute").evaluate_all("s => s.map(e => e.id.slice(8))")
        expected_disputes = [
            r
            for r in dims
            if marks[1][r]["outcome"] != marks[2][r]["outcome"]
            or marks[1][r]["accuracy"] != marks[2][r]["accuracy"]
        ]
        assert disputes == expected_disputes
        # the reconciliation shows both scorers' marks side by side
        first = cy.page.inner_text(f"#dispute-{disputes[0]} table.side")
        assert "Scorer 1 (Ada)" in first and "Scorer 2 (Bo)" in first
        cy.page.fill("#settler", "Cy")
        settled: dict[str, dict[str, str]] = {}
        for row_id in disputes[:2]:
            a, b = marks[1][row_id], marks[2][row_id]
            entry = {
                "outcome": "",
                "accuracy": "",
                "settledBy": "Cy",
                "reason": "talked it through",
            }
            if a["outcome"] != b["outcome"]:
                entry["outcome"] = a["outcome"]
                cy.page.check(f'input[name="outcome-{row_id}"][value="{a["outcome"]}"]')
            if a["accuracy"] != b["accuracy"]:
                entry["accuracy"] = b["accuracy"]
                cy.page.check(f'input[name="accuracy-{row_id}"][value="{b["accuracy"]}"]')
            cy.page.fill(f"#reason-{row_id}", entry["reason"])
            cy.page.click(f"#settle-{row_id}")
            cy.page.wait_for_function(
                "id => document.getElementById('settled-' + id)"
                "?.textContent.startsWith('Settled by Cy')",
                arg=row_id,
            )
            settled[row_id] = entry
        kappa_shown = cy.page.inner_text("#agreement")
        cy.page.evaluate("window.scrollTo(0, 0)")
        _shot(cy, tmp_path, "adjudication-reconciliation")
        # Scorers' stores are closed now: a key press is refused, not saved.
        ada.page.keyboard.press("1")
        ada.page.wait_for_function(
            "() => document.getElementById('alert').textContent.includes('AP1-ADJ-CLOSED')"
        )
        cy.page.click("#merge")
        cy.page.wait_for_selector("#merge-result p")
        assert "adjudication/merged.json" in cy.page.inner_text("#merge-result")
        assert cy.console_errors == [] and bo.console_errors == []
        assert ada.console_errors == [  # the refused key press, and nothing else
            "Failed to load resource: the server responded with a status of 409 (Conflict)"
        ]
        assert (
            cy.outside_requests == [] and ada.outside_requests == [] and bo.outside_requests == []
        )
    finally:
        stopped = served.stop()
    assert stopped.endswith("stopped\n") and served.exit_status == 0
    web = json.loads((run / "adjudication/merged.json").read_text(encoding="utf-8"))

    # The same marks written as sheets, imported by the CLI into a fresh copy of the run.
    sheets = copy_run(demo[0], tmp_path / "sheets")
    for slot in (1, 2):
        (tmp_path / f"s{slot}.csv").write_text(
            sheet_with(sheets / f"report/adjudication/scorer-{slot}.csv", marks[slot]),
            encoding="utf-8",
        )
    (tmp_path / "settled.csv").write_text(settlement_sheet(settled), encoding="utf-8")
    imported = subprocess.run(
        [
            *(APCONFORM, "ap1", "adjudicate", "import", str(sheets)),
            *("--scorer-1", str(tmp_path / "s1.csv"), "--scorer-1-name", "Ada"),
            *("--scorer-2", str(tmp_path / "s2.csv"), "--scorer-2-name", "Bo"),
            *("--settled", str(tmp_path / "settled.csv"), "--completed", web["completed"]),
        ],
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr
    cli = json.loads((sheets / "adjudication/merged.json").read_text(encoding="utf-8"))
    assert cli == web
    assert (sheets / "adjudication/merged.json").read_bytes() == (
        run / "adjudication/merged.json"
    ).read_bytes()
    reports = [
        json.loads((r / "report/score-report.json").read_text(encoding="utf-8"))
        for r in (run, sheets)
    ]
    assert reports[0]["adjudication"] == reports[1]["adjudication"]
    assert reports[0]["dimensions"] == reports[1]["dimensions"]
    for agreement in cli["agreement"]:  # the kappa the reconciliation showed is the CLI's
        assert f"{float(agreement['kappa']):.3f}" in kappa_shown
        lower, upper = agreement["kappaInterval"]["lower"], agreement["kappaInterval"]["upper"]
        assert f"{float(lower):.3f} to {float(upper):.3f}" in kappa_shown
        assert f"Cohen's kappa {agreement['kappa']}" in imported.stdout
    assert web["settledBy"] == ["Cy"] and web["acceptedIncomplete"] is False
    assert [s["name"] for s in web["scorers"]] == ["Ada", "Bo"]


def test_marking_with_the_keyboard_alone(
    online: Browser, demo: tuple[Path, str], tmp_path: Path
) -> None:
    run = copy_run(demo[0], tmp_path / "run")
    rows = key_rows(run)
    dims = {r["rowId"]: r["dimension"] for r in rows}
    order = _sheet_order(run, 1)
    served = Served(run, "--scorer", "Ada")
    try:
        view = _open(online, served.url)
        page = view.page
        page.wait_for_selector("#name")
        page.keyboard.press("Enter")  # the name is the server's one scorer, already filled in
        _title_shows(view, order[0])
        keys = page.keyboard
        # each mark is a key; 'u' skips to the next unmarked row; 'k' goes back
        _saved(view, lambda: keys.press("5"))  # ORIGINATED
        _saved(view, lambda: keys.press("n"))  # NO-FIGURE
        keys.press("j")
        _title_shows(view, order[1])
        _saved(view, lambda: keys.press("3"))  # MODEL-DECLINED: partly marked, no accuracy yet
        keys.press("u")
        _title_shows(view, order[2])  # the next row not fully marked after this one
        keys.press("k")
        _title_shows(view, order[1])
        assert page.is_checked('input[name="outcome"][value="MODEL-DECLINED"]')
        saved = _saved(view, lambda: keys.press("i"))
        assert saved["state"] == "marked" and saved["progress"]["marked"] == "2"
        keys.press("r")
        keys.type("declined, then guessed")
        assert (
            _saved(view, lambda: keys.press("Escape"))["mark"]["notes"] == "declined, then guessed"
        )
        keys.press("9")  # not a mark of this rubric: nothing is sent, nothing changes
        keys.press("x")
        assert page.inner_text("#progress-label") == "Marked 2 of 67 rows"
        assert dims[order[0]] == "D1"
    finally:
        served.stop()
    store = (run / "adjudication/scorer-1.marks.jsonl").read_text(encoding="utf-8").splitlines()
    kinds = [json.loads(line)["kind"] for line in store]
    assert kinds == ["opened", "mark", "mark", "mark", "mark", "mark"]
    last = json.loads(store[-1])["mark"]
    assert last == {
        "rowId": order[1],
        "outcome": "MODEL-DECLINED",
        "accuracy": "INCORRECT",
        "selectedValue": "",
        "notes": "declined, then guessed",
    }
    assert ACCURACY_MARKS[1] == "INCORRECT"


def test_the_pages_pass_axe(
    online: Browser, demo: tuple[Path, str], tmp_path: Path, axe_source: str
) -> None:
    from apconform.ap1.scoring.adjudication.exchange import load_sheet
    from apconform.ap1.scoring.adjudication.workspace import AdjudicationWorkspace

    run = copy_run(demo[0], tmp_path / "run")
    rows = key_rows(run)
    workspace = AdjudicationWorkspace.open(run)
    for slot, name in ((1, "Ada"), (2, "Bo")):
        blank = run / f"report/adjudication/scorer-{slot}.csv"
        load_sheet(workspace, name, sheet_with(blank, planned_marks(rows, slot)).encode())
    served = Served(run)
    found: dict[str, list[dict[str, Any]]] = {}
    overflow: dict[str, int] = {}
    try:
        for width in (1280, 390):
            view = _open(online, served.url, width=width)
            view.page.wait_for_selector("#name")
            found[f"start {width}"] = _axe(view, axe_source)
            overflow[f"start {width}"] = view.horizontal_overflow()
            view.page.fill("#name", "Ada")
            view.page.click("#start")
            view.page.wait_for_selector("#marks")
            found[f"marking {width}"] = _axe(view, axe_source)
            overflow[f"marking {width}"] = view.horizontal_overflow()
            view.page.goto(served.url + "#/")
            view.page.wait_for_selector("#reconcile:not([disabled])")
            view.page.click("#reconcile")
            view.page.wait_for_selector("#agreement")
            found[f"reconciliation {width}"] = _axe(view, axe_source)
            overflow[f"reconciliation {width}"] = view.horizontal_overflow()
            view.close()
    finally:
        served.stop()
    assert len(found) == 6
    print({page: v for page, v in found.items() if v})  # the minor ones, for the record
    assert {page: _serious(v) for page, v in found.items()} == {page: [] for page in found}
    assert overflow == {page: 0 for page in found}  # no page scrolls sideways, on a phone either
