"""Shared fixtures: the repository root and a disposable copy of it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import process_guard
import pytest
from browser_support import Browser, start_browser
from slow_modules import SLOW_MODULES

REPO = Path(__file__).resolve().parents[1]

_SKIP = shutil.ignore_patterns(
    ".git",
    ".venv",
    "site",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "*.egg-info",
)


def pytest_configure(config: pytest.Config) -> None:
    # The session fails if a process a test started outlives it (tests/process_guard.py).
    config.pluginmanager.register(process_guard, "apconform-process-guard")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(REPO / "tests"):
            continue
        module = item.path.relative_to(REPO / "tests").as_posix()
        item.add_marker(pytest.mark.slow if module in SLOW_MODULES else pytest.mark.fast)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A copy of the checkout (sources and generated files) that a test may change freely."""
    target = tmp_path / "checkout"
    for name in ("schemas", "spec", "docs", "vectors", "src", "conformance"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, target / name, ignore=_SKIP)
    shutil.copy2(REPO / "pyproject.toml", target / "pyproject.toml")
    return target


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """A headless system Chromium for one test module (see tests/browser_support.py).

    Module scope, not session: while Playwright's synchronous API is open it runs an
    event loop in the main thread, and tests of other modules call asyncio.run().
    """
    yield from start_browser()


@pytest.fixture(autouse=True)
def _no_ambient_ledger(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's APCONFORM_LEDGER must never receive the results the tests produce."""
    monkeypatch.delenv("APCONFORM_LEDGER", raising=False)
