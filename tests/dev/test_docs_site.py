"""The documentation site as a reader gets it: built strictly, offline, no broken pages.

The site is built once for the module with `mkdocs build --strict` (about 20 s);
the built HTML is searched for the faults readers saw (headings printed as
"###", diagrams shown as source, a CDN the offline site cannot reach), and
three pages are opened in a real headless Chromium (tests/browser_support.py).
Set APCONFORM_SCREENSHOTS=DIR to keep the screenshots.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser_support import Browser

ROOT = Path(__file__).resolve().parents[2]
CDN = re.compile(r"https?://(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com)[^\"' ]*")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return target, done.stdout + done.stderr


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_build_is_quiet(site: tuple[Path, str]) -> None:
    _, log = site
    lines = [line for line in log.splitlines() if line.strip()]
    assert 'not included in the "nav"' not in log
    assert len(lines) == 3, lines  # cleaning, building, built in N seconds


def test_no_page_prints_markdown_headings_literally(site: tuple[Path, str]) -> None:
    folder, _ = site
    pages = _pages(folder)
    assert len(pages) > 1200
    literal = [p.relative_to(folder).as_posix() for p in pages if "###" in p.read_text("utf-8")]
    assert literal == []
    slot = (folder / "reference" / "slots" / "keyId" / "index.html").read_text("utf-8")
    assert re.search(r'<h3 id="cardinality-and-requirements">Cardinality and Requirements', slot)


def test_diagrams_are_never_shown_as_source_and_nothing_comes_from_a_cdn(
    site: tuple[Path, str],
) -> None:
    folder, _ = site
    with_diagrams = 0
    for page in _pages(folder):
        html = page.read_text("utf-8")
        rel = page.relative_to(folder).as_posix()
        assert "language-mermaid" not in html, rel  # a diagram highlighted as code
        assert "```mermaid" not in html, rel  # a fence Markdown did not read
        if 'class="mermaid"' in html:
            with_diagrams += 1
            assert "assets/vendor/mermaid/mermaid.min.js" in html, rel
    assert with_diagrams > 300
    for asset in folder.rglob("*"):
        if asset.suffix in (".html", ".css") and asset.is_file():
            assert CDN.findall(asset.read_text("utf-8")) == [], asset
    assert (folder / "assets" / "vendor" / "mermaid" / "LICENSE").is_file()


def _look(browser: Browser, page: Path, name: str, tmp_path: Path) -> object:
    view = browser.open(page, width=1280)
    keep = os.environ.get("APCONFORM_SCREENSHOTS")
    shots = Path(keep) if keep else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    view.page.wait_for_timeout(300)
    view.screenshot(shots / f"docs-{name}.png", full_page=False)
    assert view.horizontal_overflow() == 0
    assert view.outside_requests == []
    return view


def test_a_class_page_draws_its_diagram_offline(
    browser: Browser, site: tuple[Path, str], tmp_path: Path
) -> None:
    folder, _ = site
    # Material draws each diagram into a closed shadow root; open it for this
    # module's pages so the test can read the SVG mermaid drew.
    browser.context.add_init_script(
        "const attach = Element.prototype.attachShadow;"
        "Element.prototype.attachShadow = function (init) {"
        " return attach.call(this, { ...init, mode: 'open' }); };"
    )
    view = _look(browser, folder / "reference/classes/Vector/index.html", "class-vector", tmp_path)
    page = view.page  # type: ignore[attr-defined]
    # Material replaces <pre class="mermaid"> (the source) by a <div class="mermaid">
    # holding the drawing: the source is gone, an SVG with the class boxes is there.
    page.wait_for_selector("div.mermaid svg g.node", timeout=20_000)
    assert page.locator("pre.mermaid").count() == 0
    svg = page.locator("div.mermaid svg").first
    box = svg.bounding_box()
    assert box is not None and box["height"] > 300 and box["width"] > 300
    labels = " ".join(page.locator("div.mermaid svg g.node").all_text_contents())
    assert "Vector" in labels and "Expected" in labels and "Comparison" in labels
    assert "classDiagram" not in page.locator("article").inner_text()
    # Opened from file://, the one thing that fails is the search index (Material's
    # search fetches it, which a browser refuses for file: pages); nothing else errs.
    errors = view.console_errors  # type: ignore[attr-defined]
    assert [e for e in errors if "ERR_FILE_NOT_FOUND" not in e] == []


def test_the_operation_catalogue(browser: Browser, site: tuple[Path, str], tmp_path: Path) -> None:
    folder, _ = site
    view = _look(browser, folder / "operations/kit/index.html", "operations-kit", tmp_path)
    page = view.page  # type: ignore[attr-defined]
    headings = page.locator("article h2").all_inner_texts()
    assert "kit.canonicalize" in headings[0]
    assert len(headings) >= 5
    assert "###" not in page.locator("article").inner_text()
    # Wide tables scroll inside their own box; the page itself never does.
    assert page.locator("article table").count() > 5


@pytest.mark.parametrize("width", [1280, 390])
def test_operation_names_are_never_split_in_the_catalogues_tables(
    browser: Browser, site: tuple[Path, str], width: int
) -> None:
    folder, _ = site
    view = browser.open(folder / "operations/index.html", width=width)
    names = view.texts("article table td:first-child code")
    assert "kit.canonicalize" in names and len(names) > 20
    assert view.split_tokens("article table td code, article table th") == []
    assert view.horizontal_overflow() == 0
    view.close()


def test_the_command_line_page(browser: Browser, site: tuple[Path, str], tmp_path: Path) -> None:
    folder, _ = site
    view = _look(browser, folder / "cli/index.html", "cli", tmp_path)
    page = view.page  # type: ignore[attr-defined]
    # The exit-status table is the one headed Status; the page has other tables before it.
    table = page.locator("table").filter(has=page.locator("th", has_text="Status"))
    assert table.count() == 1
    statuses = table.locator("tbody tr td:first-child").all_inner_texts()
    assert statuses == ["0", "1", "2", "3", "4", "70", "130"]


def test_a_slot_page(browser: Browser, site: tuple[Path, str], tmp_path: Path) -> None:
    folder, _ = site
    view = _look(browser, folder / "reference/slots/keyId/index.html", "slot-keyid", tmp_path)
    page = view.page  # type: ignore[attr-defined]
    text = page.locator("article").inner_text()
    assert "###" not in text
    assert "Cardinality and Requirements" in text
