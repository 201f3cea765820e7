"""The API pages say what the server does: every typed route listed, the fuzz settings quoted."""

from __future__ import annotations

from pathlib import Path

from apconform.api.routes.ap1 import AP1_ROUTES
from apconform.api.routes.apx import APX_ROUTES


def test_the_api_page_lists_every_typed_route(repo: Path) -> None:
    page = (repo / "docs/api/index.md").read_text(encoding="utf-8")
    missing = [r.path for r in (*APX_ROUTES, *AP1_ROUTES) if f"`POST {r.path}`" not in page]
    assert missing == []


def test_the_fuzzing_page_quotes_the_settings_file(repo: Path) -> None:
    page = (repo / "docs/api/fuzzing.md").read_text(encoding="utf-8")
    settings = (repo / "tests/api/schemathesis.toml").read_text(encoding="utf-8").splitlines()
    assert settings[0].startswith("# Schemathesis settings")  # the kit's own header
    quoted = "\n".join(settings[3:]) + "\n"
    assert "```toml\n" + quoted + "```\n" in page
