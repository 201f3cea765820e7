"""Shared fixtures: the repository root and a disposable copy of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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
