"""The ``fast`` selection: the slow list names real modules and leaves every package tested."""

from __future__ import annotations

from pathlib import Path

import pytest
from slow_modules import SLOW_MODULES

TESTS = Path(__file__).resolve().parent


def _modules() -> set[str]:
    return {path.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*.py")}


def test_every_slow_module_is_a_test_module() -> None:
    assert sorted(SLOW_MODULES - _modules()) == []


def test_every_test_package_keeps_fast_tests() -> None:
    packages = {module.rpartition("/")[0] for module in _modules()}
    fast = {module.rpartition("/")[0] for module in _modules() - SLOW_MODULES}
    assert sorted(packages - fast) == []
    assert {"", "ap1", "api", "apx", "conformance", "core", "harness", "ledger"} <= packages


def test_a_test_outside_the_slow_list_is_marked_fast(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("fast") is not None
    assert request.node.get_closest_marker("slow") is None
