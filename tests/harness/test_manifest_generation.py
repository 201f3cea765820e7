"""`apconform-dev gen` keeps vectors/MANIFEST.json current, and `--check` names it when stale."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("linkml")

from apconform.dev import gen


def test_manifest_is_reproducible_and_drift_is_named(repo_copy: Path) -> None:
    assert gen.check(repo_copy, only={"vector-manifest", "conformance-suite"}) == []
    vector = repo_copy / "vectors/kit/parse/kit-load-bom.json"
    vector.write_text(vector.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert gen.check(repo_copy, only={"vector-manifest"}) == ["changed: vectors/MANIFEST.json"]
    assert gen.write(repo_copy, only={"vector-manifest"}) == ["wrote: vectors/MANIFEST.json"]
    assert gen.check(repo_copy, only={"vector-manifest"}) == []
