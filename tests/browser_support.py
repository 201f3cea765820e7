"""Opening pages in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

Reusable by any test that looks at a page the kit writes or serves::

    def test_my_page(browser: Browser, tmp_path: Path) -> None:
        view = browser.open(tmp_path / "page.html", width=1280)
        view.screenshot(tmp_path / "page.png")
        assert view.horizontal_overflow() == 0
        assert view.outside_requests == []

``browser`` is a module-scoped fixture (see tests/conftest.py). Every request the
page makes to anything but ``file:``, ``data:`` or ``about:`` is recorded in
``outside_requests`` and aborted, so an offline page is proved offline and a
test never reaches the network (a page served by a test's own server on
127.0.0.1 is opened with ``allow=(its base URL,)``). Playwright never downloads a browser here:
it drives the system Chromium with the flags that work on a machine without
network or GPU. Where Chromium is missing the tests skip, except under CI
(``CI=true``), where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CHROMIUM", "LAUNCH_FLAGS", "Browser", "PageView", "chromium_path", "start_browser"]

CHROMIUM = "/usr/bin/chromium"
LAUNCH_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
_LOCAL = ("file:", "data:", "about:")
_SPLIT_TOKENS = """
selector => {
  const found = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('details:not([open])')) continue;
      for (const match of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()]
          .filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) found.push(match[0]);
      }
    }
  }
  return found;
}
"""


def chromium_path() -> str | None:
    """The system Chromium, or None where it is not installed."""
    found = os.environ.get("APCONFORM_CHROMIUM") or (
        CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    )
    return found if found and Path(found).exists() else None


@dataclass
class PageView:
    """A page opened in the browser, with what it tried to fetch from outside."""

    page: Any
    outside_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def horizontal_overflow(self) -> int:
        """How many CSS pixels the page is wider than the viewport (0: no horizontal scroll)."""
        return int(
            self.page.evaluate(
                "() => Math.max(document.documentElement.scrollWidth,"
                " document.body ? document.body.scrollWidth : 0) - window.innerWidth"
            )
        )

    def texts(self, selector: str) -> list[str]:
        """The visible text of every element matching ``selector``."""
        return [str(t) for t in self.page.locator(selector).all_inner_texts()]

    def boxes(self, selector: str) -> list[dict[str, float]]:
        """The bounding boxes of every element matching ``selector`` (x, y, width, height)."""
        return [
            box
            for box in (h.bounding_box() for h in self.page.locator(selector).element_handles())
            if box is not None
        ]

    def split_tokens(self, selector: str = "td, th") -> list[str]:
        """Every word (a run without spaces) drawn over more than one line inside ``selector``.

        A number or an identifier split by the line breaker ("14/2" for 142) is a fault;
        text inside closed ``details`` is not drawn and is not looked at.
        """
        return [str(t) for t in self.page.evaluate(_SPLIT_TOKENS, selector)]

    def close(self) -> None:
        self.page.close()


class Browser:
    """One Chromium for a test session; each :meth:`open` gets a fresh page."""

    def __init__(self, context: Any) -> None:
        self.context = context

    def open(
        self,
        target: Path | str,
        *,
        width: int = 1280,
        height: int = 800,
        allow: tuple[str, ...] = (),
    ) -> PageView:
        """Open a page; ``allow`` adds URL prefixes it may load from (a test's own local server)."""
        page = self.context.new_page()
        page.set_viewport_size({"width": width, "height": height})
        view = PageView(page)

        def route(route: Any) -> None:
            url = str(route.request.url)
            if url.startswith(_LOCAL + allow):
                route.continue_()
            else:
                view.outside_requests.append(url)
                route.abort()

        page.route("**/*", route)
        page.on(
            "console",
            lambda message: (
                view.console_errors.append(message.text) if message.type == "error" else None
            ),
        )
        url = target.resolve().as_uri() if isinstance(target, Path) else target
        page.goto(url, wait_until="load")
        return view


def start_browser() -> Iterator[Browser]:
    """Launch Chromium with a fresh profile folder; skip (or fail under CI) where it is missing."""
    executable = chromium_path()
    if executable is None:
        message = "Chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="apconform-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=executable,
                headless=True,
                args=list(LAUNCH_FLAGS),
                offline=True,
            )
            try:
                yield Browser(context)
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
