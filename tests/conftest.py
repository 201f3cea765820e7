"""Shared fixtures: the repository root and a disposable copy of it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import process_guard
import pytest
from browser_support import Browser, start_browser

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


# The slow modules: each took 4 s or more in a whole-suite run on the 2-core machine
# (pytest --junitxml, summed per module, 2026-12-05, load about 4). Their tests are marked
# ``slow``; every other test is marked ``fast``, so ``pytest -m fast`` is the quick
# selection (CONTRIBUTING.md, ``nox -s fast``). tests/test_fast_selection.py checks every
# name here is a test module and that each test package keeps fast tests. The layering
# test stays fast on purpose (12 s): it is the check a contributor needs most.
SLOW_MODULES = frozenset(
    {
        "ap1/test_adjudication_browser.py",  # 15 s
        "ap1/test_endpoint_outage.py",  # 10 s
        "ap1/test_engine.py",  # 8 s
        "ap1/test_inspect_endpoint.py",  # 27 s
        "ap1/test_inspect_personas.py",  # 70 s
        "ap1/test_resume_kill.py",  # 14 s
        "api/test_api_explainer.py",  # 7 s
        "api/test_api_fuzz.py",  # 167 s
        "api/test_api_ledger.py",  # 5 s
        "api/test_api_openapi_examples.py",  # 11 s
        "api/test_api_slow_clients.py",  # 8 s
        "api/test_fuzz_hooks.py",  # 29 s
        "core/test_file_inputs.py",  # 6 s
        "dev/test_ci_integrations.py",  # 53 s
        "dev/test_docs_site.py",  # 22 s
        "dev/test_generation.py",  # 21 s
        "dev/test_schema_registry.py",  # 8 s
        "harness/test_adapters.py",  # 19 s
        "harness/test_check_cli.py",  # 18 s
        "harness/test_conformance_suite.py",  # 20 s
        "harness/test_http_adapter.py",  # 5 s
        "harness/test_kit_docs.py",  # 7 s
        "harness/test_manifest_generation.py",  # 12 s
        "harness/test_reports.py",  # 5 s
        "harness/test_verdict.py",  # 15 s
        "ledger/test_ledger_api_server.py",  # 7 s
        "ledger/test_ledger_cli.py",  # 4 s
        "ledger/test_ledger_info.py",  # 8 s
        "ledger/test_ledger_site.py",  # 4 s
        "test_cli.py",  # 6 s
        "test_cli_path_arguments.py",  # 39 s
        "test_conformance_report_glance.py",  # 4 s
        "test_hostile_strings.py",  # 6 s
        "test_parity.py",  # 14 s
        "test_readme_tour.py",  # 35 s
        "test_report_pages.py",  # 14 s
    }
)


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
