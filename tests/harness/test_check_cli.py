"""`apconform check`, `vectors verify|lint|coverage|manifest` and `report verify` end to end."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from apconform.cli import main
from apconform.conformance.manifest import VECTOR_TEST_PUBLIC_KEY
from apconform.core.signing import generate_key_file

from .conftest import DIRECT, FAULTY_EXEC, REPO, VECTORS, plan


def _copy_vectors(tmp_path: Path, keep: list[str] | None = None) -> Path:
    target = tmp_path / "vectors"
    shutil.copytree(REPO / "vectors", target)
    if keep is not None:
        for path in target.rglob("*.json"):
            if path.name != "MANIFEST.json" and path.stem not in keep:
                path.unlink()
    return target


def _sign(folder: Path) -> None:
    assert main(["vectors", "manifest", "--vectors", str(folder), "--test-key"]) == 0


def test_check_writes_every_format_and_badges(tmp_path: Path) -> None:
    formats = ["json", "junit", "markdown", "html"]
    args = ["check", "--impl", DIRECT, "--badge", str(tmp_path / "badges")]
    for fmt in formats:
        args += ["--format", fmt, "--output", str(tmp_path / f"report.{fmt}")]
    assert main(args) == 0
    for fmt in formats:
        assert (tmp_path / f"report.{fmt}").stat().st_size > 400
    assert json.loads((tmp_path / "badges/kit.json").read_text())["color"] == "brightgreen"


def test_one_changed_byte_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy_vectors(tmp_path)
    target = folder / "kit/parse/kit-load-depth-32.json"
    data = bytearray(target.read_bytes())
    data[data.index(b"[[")] = ord("(")
    target.write_bytes(bytes(data))
    (folder / "kit/parse/stray.txt").write_text("x", encoding="utf-8")
    (folder / "kit/canonical/kit-jcs-negative-zero.json").unlink()
    assert main(["vectors", "verify", "--vectors", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "altered: kit/parse/kit-load-depth-32.json" in err
    assert "added: kit/parse/stray.txt" in err
    assert "removed: kit/canonical/kit-jcs-negative-zero.json" in err
    assert main(["check", "--impl", DIRECT, "--vectors", str(folder)]) == 2
    assert "APC-MANIFEST-MISMATCH" in capsys.readouterr().err


def test_manifest_signed_by_another_key_needs_trust(tmp_path: Path) -> None:
    folder = _copy_vectors(tmp_path)
    key = generate_key_file(tmp_path / "my.key")
    assert (
        main(["vectors", "manifest", "--vectors", str(folder), "--key", str(tmp_path / "my.key")])
        == 0
    )
    assert main(["vectors", "verify", "--vectors", str(folder)]) == 2
    trusted = ["--trusted-key", key.public_key_hex]
    assert main(["vectors", "verify", "--vectors", str(folder), *trusted]) == 0
    assert main(["check", "--impl", DIRECT, "--vectors", str(folder), *trusted]) == 0


def _xfail(tmp_path: Path, entries: list[dict[str, Any]]) -> str:
    path = tmp_path / "xfail.json"
    path.write_text(json.dumps({"schemaVersion": "apconform-xfail/1", "entries": entries}))
    return str(path)


def test_xfail_is_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = f"{FAULTY_EXEC} {plan({'kit-jcs-number-exponent': 'wrong-value'})}"
    listed = _xfail(tmp_path, [{"id": "kit-jcs-number-exponent", "reason": "exponent bug"}])
    out = tmp_path / "r.jsonl"
    args = ["check", "--impl", impl, "--xfail", listed, "--format", "json", "--output", str(out)]
    assert main(args) == 0
    case = next(
        json.loads(line) for line in out.read_text().splitlines() if "number-exponent" in line
    )
    assert (case["outcome"], case["xfailReason"]) == ("xfail", "exponent bug")
    stale = _xfail(tmp_path, [{"id": "KIT-LOAD-3", "reason": "was broken once"}])
    assert main(["check", "--impl", DIRECT, "--xfail", stale]) == 1
    assert "passed although listed as expected failures" in capsys.readouterr().out
    unknown = _xfail(tmp_path, [{"id": "kit-no-such-vector", "reason": "x"}])
    assert main(["check", "--impl", DIRECT, "--xfail", unknown]) == 1
    assert "APC-XFAIL-UNKNOWN" in capsys.readouterr().err
    no_reason = _xfail(tmp_path, [{"id": "kit-load-bom"}])
    assert main(["check", "--impl", DIRECT, "--xfail", no_reason]) == 1
    assert "$.entries[0].reason" in capsys.readouterr().err


def test_vacuous_runs_are_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy_vectors(tmp_path, keep=["kit-jcs-number-exponent"])
    _sign(folder)
    assert main(["check", "--impl", DIRECT, "--vectors", str(folder)]) == 3
    out = capsys.readouterr().out
    assert "kit: 14 MUST clause(s) had no executed vector: KIT-ERR-1" in out
    assert out.endswith("verdict: INCOMPLETE (exit status 3)\n")
    skip_all = ",".join(f"skip={k}" for k in plan(dict.fromkeys(VECTORS, "skip")).split(",") if k)
    impl = f"{FAULTY_EXEC} {skip_all.replace('skip=skip=', 'skip=')}"
    assert main(["check", "--impl", impl]) == 3
    assert "no case executed: the run checked nothing" in capsys.readouterr().out
    assert main(["check", "--impl", DIRECT, "--only", "KIT-NOPE-1"]) == 2


def test_report_signature_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = generate_key_file(tmp_path / "report.key")
    report = tmp_path / "report.jsonl"
    args = ["check", "--impl", DIRECT, "--format", "json", "--output", str(report)]
    assert main([*args, "--sign-key", str(tmp_path / "report.key")]) == 0
    trusted = ["--trusted-key", key.public_key_hex]
    assert main(["report", "verify", str(report), *trusted]) == 0
    assert "is valid; " in capsys.readouterr().out
    assert main(["report", "verify", str(report), "--trusted-key", VECTOR_TEST_PUBLIC_KEY]) == 2
    assert main(["report", "verify", str(report)]) == 2  # none named: the TEST key alone
    assert "only the kit's published TEST key is trusted" in capsys.readouterr().err
    report.write_text(report.read_text().replace('"pass"', '"fail"', 1))
    assert main(["report", "verify", str(report), *trusted]) == 1
    assert "has changed since it was signed" in capsys.readouterr().err


def test_lint_and_coverage_find_every_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy_vectors(tmp_path)
    assert main(["vectors", "lint", "--vectors", str(folder)]) == 0
    assert main(["vectors", "coverage", "--vectors", str(folder)]) == 0
    capsys.readouterr()
    for path in folder.glob("kit/signatures/*.json"):
        if "key-id" in path.name:
            path.unlink()  # KIT-SIG-2 loses its negative vector
    source = json.loads((folder / "kit/vectors/kit-vec-valid.json").read_text())
    source["input"]["vector"]["protocolVersion"] = 1  # a positive vector with a broken document
    (folder / "kit/vectors/kit-vec-valid.json").write_text(json.dumps(source))
    duplicate = dict(source, clauses=["KIT-NOPE-1"])
    (folder / "kit/other").mkdir()
    (folder / "kit/other/kit-vec-valid.json").write_text(json.dumps(duplicate))
    assert main(["vectors", "lint", "--vectors", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "kit/vectors/kit-vec-valid.json: APC-LINT-INPUT at $.input/vector" in out
    assert "kit/other/kit-vec-valid.json: APC-VEC-CLAUSE-UNKNOWN at $.clauses[0]" in out
    assert "APC-LINT-COVERAGE at KIT-SIG-2: MUST clause KIT-SIG-2 (kit): missing negative" in out
    shutil.rmtree(folder / "kit/other")
    assert main(["vectors", "coverage", "--vectors", str(folder)]) == 1
    assert re.search(r"^KIT-SIG-2 +MUST +1 +0 +MISSING negative$", capsys.readouterr().out, re.M)


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--impl", DIRECT, "--format", "json", "--format", "html"]) == 2
    assert "only one format can go to standard output" in capsys.readouterr().err
    assert main(["check", "--impl", "bogus"]) == 2
    assert main(["check", "--impl", DIRECT, "--timeout", "0"]) == 2
