"""The generation command: deterministic output and a drift check that names every file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("linkml")

from apconform.dev import gen


@pytest.fixture(scope="module")
def generated(repo: Path) -> dict[str, str]:
    return gen.build_all(repo)


def test_generation_is_deterministic(repo: Path, generated: dict[str, str]) -> None:
    products = {"models", "json-schema", "clauses", "spec-pages", "error-codes"}
    again = gen.build_all(repo, only=products)
    assert again == {path: text for path, text in generated.items() if path in again}
    assert len(again) > 40


def test_committed_files_match_the_sources(repo: Path, generated: dict[str, str]) -> None:
    assert gen.check(repo, built=generated) == []


def test_every_product_produces_files(generated: dict[str, str]) -> None:
    assert "src/apconform/models/common.py" in generated
    assert "src/apconform/models/conformance.py" in generated
    assert "schemas/jsonschema/vector.schema.json" in generated
    assert "schemas/jsonschema/clause-registry.schema.json" in generated
    assert "spec/clauses.json" in generated
    assert "docs/reference/index.md" in generated
    assert "docs/spec/index.md" in generated


def test_hand_edit_is_named_by_check(repo_copy: Path) -> None:
    target = repo_copy / "src/apconform/models/common.py"
    target.write_text(target.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    (repo_copy / "schemas/jsonschema/vector.schema.json").unlink()
    (repo_copy / "docs/reference/classes/Stray.md").write_text("stray\n", encoding="utf-8")
    problems = gen.check(repo_copy, only={"models", "json-schema", "reference-docs"})
    assert problems == [
        "missing: schemas/jsonschema/vector.schema.json",
        "changed: src/apconform/models/common.py",
        "extra: docs/reference/classes/Stray.md",
    ]


def test_write_repairs_the_tree(repo_copy: Path) -> None:
    (repo_copy / "spec/clauses.json").write_text("{}\n", encoding="utf-8")
    (repo_copy / "docs/reference/classes/Stray.md").write_text("stray\n", encoding="utf-8")
    products = {"clauses", "reference-docs"}
    changed = gen.write(repo_copy, only=products)
    assert changed == ["removed: docs/reference/classes/Stray.md", "wrote: spec/clauses.json"]
    assert gen.check(repo_copy, only=products) == []


def test_schema_change_shows_up_as_drift(repo_copy: Path) -> None:
    schema = repo_copy / "schemas/common.yaml"
    text = schema.read_text(encoding="utf-8")
    edited = text.replace("A detached Ed25519 signature over", "A detached signature over")
    assert edited != text
    schema.write_text(edited, encoding="utf-8")
    problems = gen.check(repo_copy, only={"json-schema", "models"})
    # Every document schema embeds the shared definitions, so every one of them changes.
    schemas = sorted((repo_copy / "schemas/jsonschema").glob("*.schema.json"))
    assert "changed: schemas/jsonschema/vector.schema.json" in problems
    assert problems == [
        *(f"changed: schemas/jsonschema/{path.name}" for path in schemas),
        "changed: src/apconform/models/common.py",
    ]


def test_cli_check_exit_status_and_file_name(repo_copy: Path) -> None:
    target = repo_copy / "spec/clauses.json"
    target.write_text(
        target.read_text(encoding="utf-8").replace("MUST", "MAY", 1), encoding="utf-8"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "apconform.dev.cli",
            "gen",
            "--check",
            "--root",
            str(repo_copy),
            "clauses",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "changed: spec/clauses.json" in result.stdout
    assert "run `apconform-dev gen`" in result.stderr


def test_case_collisions_are_refused(repo_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clash = gen.Product(
        "clash", ("docs/clash",), lambda root: {"docs/clash/A.md": "a", "docs/clash/a.md": "b"}
    )
    monkeypatch.setattr(gen, "PRODUCTS", [clash])
    with pytest.raises(SystemExit, match="differ only in case"):
        gen.build_all(repo_copy)
