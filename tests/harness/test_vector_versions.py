"""A versioned vector set: the version moves with the expectations, and diffs name every change.

The history fixture (``data/vector-history/``) holds, byte for byte, seven
vectors whose expectations changed between commits 447dbff and d370f68 of
this repository, three that did not change (or were added), and each
commit's clause registry cut down to the clauses those vectors cite. It was
extracted with ``git show COMMIT:vectors/PATH`` (see ``test_the_fixture_is_
the_history``, which checks it against git when the history is present).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from apconform.cli import main
from apconform.conformance.manifest import build_manifest, load_vector_test_key
from apconform.conformance.releases import (
    next_history,
    render_changelog,
    set_state,
)
from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError
from apconform.resources import data_path

HISTORY = Path(__file__).parent / "data" / "vector-history"
OLD, NEW = HISTORY / "447dbff", HISTORY / "d370f68"
REPO = Path(__file__).resolve().parents[2]


def _diff(capsys: pytest.CaptureFixture[str], old: Path, new: Path) -> dict[str, Any]:
    assert main(["vectors", "diff", str(old), str(new), "--format", "json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def _documents(root: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in root.rglob("*.json")}


def test_diff_between_two_commits_names_each_changed_expectation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    diff = _diff(capsys, OLD / "vectors", NEW / "vectors")
    old, new = _documents(OLD / "vectors"), _documents(NEW / "vectors")
    changed_expectations = {
        i for i in set(old) & set(new) if old[i]["expected"] != new[i]["expected"]
    }
    assert len(changed_expectations) == 7
    named = {entry["id"]: entry for entry in diff["vectorsChanged"]}
    assert set(named) == changed_expectations
    for vector_id in changed_expectations:
        entry = named[vector_id]
        assert entry["clauses"] == new[vector_id]["clauses"]
        assert "expected" in entry["members"]
        assert entry["differences"], vector_id
    assert [d for d in named["kit-load-bom"]["differences"]] == [
        {"member": "expected", "path": "/path", "after": "$"}
    ]
    assert named["ap1-opn-division-by-zero"]["differences"] == [
        {
            "member": "expected",
            "path": "/matchers/1",
            "after": {"path": "/operation/calls/0/reason", "present": True},
        }
    ]
    assert {e["id"] for e in diff["vectorsAdded"]} == set(new) - set(old)
    assert diff["vectorsRemoved"] == []
    assert diff["clausesCompared"] is True
    assert diff["clausesAdded"] == ["AP1-D2-4"]
    assert diff["requires"] == "major"


def test_the_text_diff_names_vectors_with_their_clauses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "diff", str(OLD / "vectors"), str(NEW / "vectors")]) == 0
    text = capsys.readouterr().out
    assert "  changed vector kit-load-bom [KIT-LOAD-4]: expected\n" in text
    assert '    expected /path: (absent) -> "$"\n' in text
    assert "  added vector ap1-d2-no-cap [AP1-D2-4]\n" in text
    assert text.endswith(
        "7 changed, 2 added, 0 removed vector(s); 0 changed, 1 added, 0 removed clause(s); "
        "needs a major version\n"
    )


def test_the_fixture_is_the_history() -> None:
    probe = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", "447dbff^{commit}"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip("this checkout has no history to compare the fixture with")
    for commit in ("447dbff", "d370f68"):
        for path in (HISTORY / commit / "vectors").rglob("*.json"):
            rel = path.relative_to(HISTORY / commit).as_posix()
            shown = subprocess.run(
                ["git", "-C", str(REPO), "show", f"{commit}:{rel}"], capture_output=True, check=True
            )
            assert path.read_bytes() == shown.stdout, rel


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The newer fixture with one expectation and one clause quote changed."""
    root = tmp_path / "planted"
    shutil.copytree(NEW, root)
    bom = root / "vectors" / "kit" / "parse" / "kit-load-bom.json"
    document = json.loads(bom.read_text(encoding="utf-8"))
    document["expected"]["errorCode"] = "APC-JSON-SYNTAX"
    bom.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    registry_path = root / "spec" / "clauses.json"
    registry = json.loads(registry_path.read_text(encoding="utf-8"))
    clause = next(c for c in registry["clauses"] if c["id"] == "APX-QTY-4")
    clause["quote"] += " Planted."
    clause["quoteSha256"] = sha256_hex(clause["quote"])
    registry_path.write_text(json.dumps(registry, indent=2) + "\n", encoding="utf-8")
    return root


def test_a_planted_change_is_named(capsys: pytest.CaptureFixture[str], planted: Path) -> None:
    diff = _diff(capsys, NEW / "vectors", planted / "vectors")
    assert diff["vectorsChanged"] == [
        {
            "id": "kit-load-bom",
            "clauses": ["KIT-LOAD-4"],
            "members": ["expected"],
            "differenceCounts": {"expected": 1},
            "differences": [
                {
                    "member": "expected",
                    "path": "/errorCode",
                    "before": "APC-JSON-BOM",
                    "after": "APC-JSON-SYNTAX",
                }
            ],
        }
    ]
    assert diff["clausesChanged"] == [
        {
            "id": "APX-QTY-4",
            "what": ["quoteSha256"],
            "citedBy": ["apx-exponent-4", "apx-power-refuses-overflow"],
        }
    ]
    assert diff["vectorsAdded"] == diff["vectorsRemoved"] == []
    assert diff["requires"] == "major"


def _manifest(root: Path, out: Path) -> Path:
    registry = json.loads((root / "spec" / "clauses.json").read_text(encoding="utf-8"))
    document = build_manifest(
        root / "vectors",
        clause_registry_digest=sha256_hex(registry),
        schema_digests={},
        key=load_vector_test_key(),
        clause_registry=registry,
    )
    out.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return out


def test_two_manifests_are_compared_by_vector_and_clause(
    capsys: pytest.CaptureFixture[str], planted: Path, tmp_path: Path
) -> None:
    before = _manifest(NEW, tmp_path / "before.json")
    after = _manifest(planted, tmp_path / "after.json")
    diff = _diff(capsys, before, after)
    assert diff["vectorsChanged"] == [{"id": "kit-load-bom", "clauses": ["KIT-LOAD-4"]}]
    assert [c["id"] for c in diff["clausesChanged"]] == ["APX-QTY-4"]
    assert diff["requires"] == "major"


def test_a_manifest_without_expectations_is_refused_with_what_to_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = json.loads(_manifest(NEW, tmp_path / "m.json").read_text(encoding="utf-8"))
    del document["expectations"]
    (tmp_path / "old.json").write_text(json.dumps(document), encoding="utf-8")
    status = main(["vectors", "diff", str(tmp_path / "old.json"), str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert status == 2
    assert "APC-VECTOR-DIFF-INPUT" in err
    assert "compare the two vector folders instead" in err


def _state(root: Path) -> dict[str, Any]:
    return set_state(
        root / "vectors", json.loads((root / "spec" / "clauses.json").read_text(encoding="utf-8"))
    )


def test_an_expectation_cannot_change_without_the_version_moving(planted: Path) -> None:
    history = next_history(None, "1.0.0", _state(NEW))
    assert next_history(history, "1.0.0", _state(NEW)) is history
    with pytest.raises(ApconformError) as same:
        next_history(history, "1.0.0", _state(planted))
    assert same.value.code == "APC-VECTOR-VERSION"
    assert "vectors changed in expectation: kit-load-bom" in same.value.message
    assert "clauses changed: APX-QTY-4" in same.value.message
    assert same.value.message.endswith("these changes need at least 2.0.0")
    with pytest.raises(ApconformError, match=r"need at least 2\.0\.0"):
        next_history(history, "1.1.0", _state(planted))
    with pytest.raises(ApconformError, match=r"must be at least 1\.0\.1"):
        next_history(history, "0.9.0", _state(NEW))
    moved = next_history(history, "2.0.0", _state(planted))
    assert [r["version"] for r in moved["releases"]] == ["1.0.0", "2.0.0"]
    release = moved["releases"][-1]
    assert release["requires"] == "major"
    assert release["vectorsChanged"] == [{"id": "kit-load-bom", "clauses": ["KIT-LOAD-4"]}]
    assert release["clausesChanged"] == ["APX-QTY-4"]
    changelog = render_changelog(moved)
    assert changelog.index("## 2.0.0") < changelog.index("## 1.0.0")
    assert "- `kit-load-bom` (KIT-LOAD-4)" in changelog


def test_added_vectors_need_a_minor_version(tmp_path: Path) -> None:
    history = next_history(None, "1.0.0", _state(OLD))
    grown = tmp_path / "grown"
    shutil.copytree(OLD, grown)
    source = NEW / "vectors" / "ap1" / "reproducibility" / "ap1-d2-no-cap.json"
    target = grown / "vectors" / "ap1" / "reproducibility" / "ap1-d2-no-cap.json"
    target.parent.mkdir(parents=True)
    shutil.copy2(source, target)
    with pytest.raises(ApconformError, match=r"vectors added: ap1-d2-no-cap.*at least 1\.1\.0"):
        next_history(history, "1.0.1", _state(grown))
    assert next_history(history, "1.1.0", _state(grown))["releases"][-1]["requires"] == "minor"


def test_generation_refuses_a_changed_expectation_under_the_same_version(tmp_path: Path) -> None:
    from apconform.dev.gen import build_vector_releases

    root = tmp_path / "repo"
    shutil.copytree(data_path("vectors"), root / "vectors")
    clauses = data_path("spec", "clauses.json").read_text(encoding="utf-8")
    built = build_vector_releases(root, {"spec/clauses.json": clauses})
    assert built["vectors/RELEASES.json"] == (root / "vectors" / "RELEASES.json").read_text(
        encoding="utf-8"
    )
    bom = root / "vectors" / "kit" / "parse" / "kit-load-bom.json"
    bom.write_text(bom.read_text(encoding="utf-8").replace("APC-JSON-BOM", "APC-JSON-SYNTAX"))
    with pytest.raises(SystemExit) as refused:
        build_vector_releases(root, {"spec/clauses.json": clauses})
    version = (root / "vectors" / "VERSION").read_text(encoding="utf-8").strip()
    assert f"vectors/VERSION still says {version}" in str(refused.value.code)
    assert "kit-load-bom" in str(refused.value.code)


def test_check_reports_the_vector_set_version(capsys: pytest.CaptureFixture[str]) -> None:
    version = data_path("vectors", "VERSION").read_text(encoding="utf-8").strip()
    releases = json.loads(data_path("vectors", "RELEASES.json").read_text(encoding="utf-8"))
    manifest = json.loads(data_path("vectors", "MANIFEST.json").read_text(encoding="utf-8"))
    assert releases["releases"][-1]["version"] == manifest["vectorSetVersion"] == version
    status = main(
        [
            "check",
            "--impl",
            "direct:apconform.conformance.reference:adapter",
            "--only",
            "kit-load-bom",
            "--format",
            "json",
        ]
    )
    captured = capsys.readouterr()
    header = json.loads(captured.out.splitlines()[0])
    assert header["vectorSetVersion"] == version
    assert f"vectors: vector set {version}; " in captured.err
    assert status != 2
