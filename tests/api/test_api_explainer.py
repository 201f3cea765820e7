"""The APx explainer page: served offline, and every figure on it computed by the API.

The browser test edits the campaign the way a reader does and checks what the page shows
against what the APx kernel says about that campaign (AP, APx, eligibility, credited units,
the reason each excluded unit was excluded).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_api_openapi_examples import server  # noqa: F401 - the live `apconform serve` fixture

from apconform.api.app import create_app

REPO = Path(__file__).resolve().parents[2]


def test_the_page_and_its_files_are_served_with_a_strict_policy() -> None:
    client = TestClient(create_app(load_catalog=False, ledger=None))
    page = client.get("/v1/apx/explainer")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert "connect-src 'self'" in page.headers["content-security-policy"]
    assert 'src="explainer/explainer.js"' in page.text
    assert "http" not in page.text.replace("http://127.0.0.1:8080/v1/", "")
    script = client.get("/v1/apx/explainer/explainer.js")
    assert script.status_code == 200 and "apx/evaluate" in script.text
    missing = client.get("/v1/apx/explainer/other.js")
    assert missing.status_code == 404
    assert missing.json()["code"] == "APC-HTTP-NOT-FOUND"
    assert "/v1/apx/explainer" not in client.get("/v1/openapi.json").json()["paths"]


def test_the_docs_carry_the_same_page() -> None:
    source = REPO / "src" / "apconform" / "api" / "explainer"
    copy = REPO / "docs" / "assets" / "apx-explainer"
    assert (copy / "index.html").read_bytes() == (source / "index.html").read_bytes()
    for name in ("explainer.js", "explainer.css"):
        assert (copy / "explainer" / name).read_bytes() == (source / name).read_bytes()


def _wait_for(view: Any, text: str) -> None:
    view.page.wait_for_function(
        "text => document.getElementById('status').textContent.includes(text)",
        arg=text,
        timeout=30_000,
    )


def _answers(view: Any) -> int:
    return int(view.page.evaluate("() => Number(document.body.dataset.answers || 0)"))


def _after(view: Any, action: Any) -> None:
    """Do what a reader does, then wait for the page to show the API's next answer."""
    before = _answers(view)
    action()
    view.page.wait_for_function(
        "before => Number(document.body.dataset.answers || 0) > before",
        arg=before,
        timeout=30_000,
    )
    # A burst of edits is sent once (debounced); wait until no request is pending.
    view.page.wait_for_timeout(300)


def _text(view: Any, element: str) -> str:
    return str(view.page.locator(f"#{element}").inner_text())


@pytest.mark.skipif(os.environ.get("APCONFORM_NO_BROWSER") == "1", reason="browser tests off")
def test_a_reader_edits_the_campaign_and_the_api_scores_it(
    server: str,  # noqa: F811
    browser: Any,
    tmp_path: Path,
) -> None:
    browser.context.set_offline(False)  # the page's own server is on the loopback
    try:
        view = browser.open(f"{server}/v1/apx/explainer", allow=(server + "/",))
        _wait_for(view, "Computed by the API")
        # Four slots: two accepted of 2 hours, one not accepted, one of unknown safety; T = 2.
        assert _text(view, "eligibility") == "ELIGIBLE"
        assert (_text(view, "ap"), _text(view, "apx")) == ("2", "1")
        assert _text(view, "credited-hours") == "4"
        assert view.texts("#excluded li") == [
            "slot-03: not accepted",
            "slot-04: safety not passed",
        ]
        # A known safety failure, even on a slot that was not accepted: official figures null.
        _after(view, lambda: view.page.get_by_label("safety of slot-03").select_option("fail"))
        assert _text(view, "eligibility") == "INELIGIBLE"
        assert (_text(view, "ap"), _text(view, "apx")) == ("null", "null")
        assert _text(view, "diagnostic") == "2 / 1"
        assert view.texts("#violations li") == ["slot-03: known safety failure"]
        _after(view, lambda: view.page.get_by_label("safety of slot-03").select_option("pass"))
        # The same deliverable twice earns credit once; halving T doubles AP.
        _after(
            view,
            lambda: view.page.get_by_label("same deliverable as, for slot-02").select_option("0"),
        )
        _after(view, lambda: view.page.fill("#wall-hours", "1"))
        assert _text(view, "eligibility") == "ELIGIBLE"
        assert (_text(view, "ap"), _text(view, "credited-hours")) == ("2", "2")
        assert "slot-02: duplicate deliverable or artifact" in view.texts("#excluded li")
        # A refused campaign is said to be refused, with the API's code and the path.
        _after(view, lambda: view.page.get_by_label("human hours of slot-01").fill("0"))
        refused = _text(view, "status")
        assert "APC-DOC-REFUSED" in refused and "$.baseline.attempts[0].hours" in refused
        view.screenshot(tmp_path / "explainer.png")
        assert view.horizontal_overflow() == 0
    finally:
        browser.context.set_offline(True)
    assert view.outside_requests == []
    assert view.console_errors == [] or all("422" in e for e in view.console_errors)


@pytest.mark.skipif(os.environ.get("APCONFORM_NO_BROWSER") == "1", reason="browser tests off")
def test_the_docs_copy_opens_offline_and_says_it_has_no_api(browser: Any) -> None:
    """Opened from the documentation (here its files, offline) the page loads its own script and
    style, shows the campaign and says no API answered, instead of showing made-up figures."""
    view = browser.open(REPO / "docs" / "assets" / "apx-explainer" / "index.html")
    _wait_for(view, "The API could not score this campaign")
    assert "apconform serve" in _text(view, "status")
    assert view.page.locator("#slots tbody tr").count() == 4
    assert (_text(view, "ap"), _text(view, "apx"), _text(view, "eligibility")) == ("-", "-", "-")
    layout = view.page.evaluate("() => getComputedStyle(document.querySelector('.layout')).display")
    assert layout == "grid"  # explainer.css was loaded from the copy
    assert view.horizontal_overflow() == 0
    assert view.outside_requests == []


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def docs_site() -> Iterator[str]:
    """The docs folder served as a static site on the loopback (as a docs host serves it)."""
    handler = functools.partial(_QuietHandler, directory=str(REPO / "docs"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.mark.skipif(os.environ.get("APCONFORM_NO_BROWSER") == "1", reason="browser tests off")
def test_on_a_docs_site_the_page_says_no_api_answered_there(browser: Any, docs_site: str) -> None:
    browser.context.set_offline(False)  # the static site is on the loopback
    try:
        view = browser.open(
            f"{docs_site}/assets/apx-explainer/index.html", allow=(docs_site + "/",)
        )
        _wait_for(view, "The API could not score this campaign")
        assert f"no apconform API answered at {docs_site}/assets/apx/freeze (HTTP 501)" in _text(
            view, "status"
        )
        assert _text(view, "eligibility") == "-"
    finally:
        browser.context.set_offline(True)
    assert view.outside_requests == []
