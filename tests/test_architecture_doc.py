"""docs/architecture.md stays true: its package map names every package and module family, and
only those."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
SRC = ROOT / "src" / "apconform"


def map_rows(page: str) -> set[str]:
    """The paths named in the first column of the package map (``core/``, ``demo.py``...)."""
    section = page.split("## The package map", 1)[1].split("\n## ", 1)[0]
    named = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            named.update(re.findall(r"`([^`]+)`", first))
    return named


def on_disk(src: Path) -> set[str]:
    """Every package (``path/``) and every module at the top of the package (``name.py``)."""
    packages = {f"{init.parent.relative_to(src).as_posix()}/" for init in src.rglob("__init__.py")}
    packages.discard("./")
    return packages | {path.name for path in src.glob("*.py")}


def map_problems(page: str, src: Path) -> list[str]:
    named, present = map_rows(page), on_disk(src)
    return [f"missing from the map: {p}" for p in sorted(present - named)] + [
        f"in the map but not in src: {p}" for p in sorted(named - present)
    ]


def test_the_package_map_names_every_package_and_nothing_else() -> None:
    assert map_problems(PAGE.read_text(encoding="utf-8"), SRC) == []


def test_the_map_is_read() -> None:
    named = map_rows(PAGE.read_text(encoding="utf-8"))
    assert {"core/", "cli/", "cli/ap1/", "results/", "site/", "demo_context.py"} <= named
    assert len(named) >= 30


def test_self_test_a_stale_map_is_reported(tmp_path: Path) -> None:
    for package in ("core", "cli", "cli/ap1", "gone_soon"):
        (tmp_path / package).mkdir(parents=True)
        (tmp_path / package / "__init__.py").write_text('"""x"""\n', encoding="utf-8")
    (tmp_path / "__init__.py").write_text('"""x"""\n', encoding="utf-8")
    (tmp_path / "demo.py").write_text('"""x"""\n', encoding="utf-8")
    page = (
        "# A\n\n## The package map\n\n| Package | What |\n|---|---|\n"
        "| `__init__.py`, `demo.py` | top |\n| `core/` | core |\n| `cli/` | cli |\n"
        "| `old/` | moved away |\n\n## Layers\n\n| `cli/ap1/` | not in the map section |\n"
    )
    assert map_problems(page, tmp_path) == [
        "missing from the map: cli/ap1/",
        "missing from the map: gone_soon/",
        "in the map but not in src: old/",
    ]
