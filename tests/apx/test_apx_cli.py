"""`apconform apx ...`: JSON by default, tables on request, every violation on a refusal."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from apconform.apx.tutorial import tutorial_campaign, tutorial_manifest, tutorial_pairs
from apconform.cli import main


def _write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    manifest, run = tutorial_campaign()
    return _write(tmp_path, "request.json", {"manifest": manifest, "run": run})


def test_evaluate_prints_the_result(request_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apx", "evaluate", str(request_file)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["AP"] == 9 and result["APx"] == 3.169925001442312
    assert '"AP": 9,' in json.dumps(result, indent=2)


def test_evaluate_table(request_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apx", "evaluate", "--format", "table", str(request_file)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("run demo-1: ELIGIBLE, synthetic, certified false\n")
    assert "AP 9   APx 3.169925001442312" in out
    assert "financial-reconciliation  1.5" in out


def test_validate_variants(
    request_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["apx", "validate", str(request_file)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is True
    assert report["calibration"]["source-prioritization"]["accepted"] == 1
    manifest = tutorial_manifest()
    assert (
        main(["apx", "validate", "--format", "table", str(_write(tmp_path, "m.json", manifest))])
        == 0
    )
    assert capsys.readouterr().out.startswith("valid manifest\n")


def test_multi_fault_document_lists_every_violation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest, run = tutorial_campaign()
    del run["assistanceMode"]
    run["costUSD"] = -1
    run["outcomes"][0]["quality"] = 1.1
    run["outcomes"][1]["artifactHash"] = "abc"
    manifest["evaluator"]["qualityThreshold"] = 0.1
    path = _write(tmp_path, "bad.json", {"manifest": manifest, "run": run})
    assert main(["apx", "validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[:6] == [
        "refused: 5 violation(s)",
        "  APX-MAN-HASH at $.manifest.evaluator.hash: APx validation: evaluator frozen hash "
        "mismatch",
        "  APX-VAL-ENUM at $.run.assistanceMode: APx validation: assistanceMode must be one of "
        "autonomous, evaluation-only, supervised, collaborative",
        "  APX-VAL-NUMBER at $.run.costUSD: APx validation: costUSD must be finite in "
        "[0, 1000000000000]",
        "  APX-VAL-NUMBER at $.run.outcomes[0].quality: APx validation: outcome.quality must be "
        "finite in [0, 1]",
        "  APX-VAL-DIGEST at $.run.outcomes[1].artifactHash: APx validation: artifactHash must be "
        "a SHA-256 lowercase hex digest",
    ]
    error = json.loads(lines[6])["error"]
    assert error["code"] == "APX-MAN-HASH"
    assert len(error["violations"]) == 5
    assert "Traceback" not in captured.err


def test_freeze_rebinds_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest, run = tutorial_campaign()
    manifest["evaluator"]["qualityThreshold"] = 0.5
    path = _write(tmp_path, "edited.json", {"manifest": manifest, "run": run})
    assert main(["apx", "evaluate", str(path)]) == 1
    capsys.readouterr()
    assert main(["apx", "freeze", str(path)]) == 0
    frozen = json.loads(capsys.readouterr().out)
    assert frozen["run"]["evaluatorHash"] == frozen["manifest"]["evaluator"]["hash"]
    assert main(["apx", "evaluate", str(_write(tmp_path, "frozen.json", frozen))]) == 0


def test_promote_with_flags_and_signature(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from apconform.apx import verify
    from apconform.core.signing import generate_key_file

    manifest = tutorial_manifest()
    pairs = tutorial_pairs(manifest, [0.5, 0.6, 0.45, 0.5, 0.55], [0.3, 0.25, 0.4, 0.2, 0.35])
    path = _write(tmp_path, "pairs.json", {"manifest": manifest, "comparison": {"pairs": pairs}})
    key = generate_key_file(tmp_path / "key")
    assert (
        main(
            [
                "apx",
                "promote",
                "--iterations",
                "100",
                "--seed",
                "7",
                "--sign",
                str(tmp_path / "key"),
                str(path),
            ]
        )
        == 0
    )
    promotion = json.loads(capsys.readouterr().out)
    assert promotion["interval"]["lower"] == 0.3846638502353248
    assert promotion["interval"]["upper"] == 1.0285691521967708
    verify(promotion, trusted_public_keys=[key.public_key_hex])
    assert main(["apx", "promote", "--format", "table", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "PROMOTE (synthetic; deployAuthorized false)"
    assert "[0.4629719763425457, 1.1699250014423126] (2000 resamples, seed 20260907)" in out


def test_demo_pipes_into_evaluate() -> None:
    demo = subprocess.run(
        [sys.executable, "-m", "apconform.cli", "apx", "demo"], capture_output=True, check=True
    )
    assert json.loads(demo.stdout)["result"]["AP"] == 9
    scored = subprocess.run(
        [sys.executable, "-m", "apconform.cli", "apx", "evaluate", "-"],
        input=demo.stdout,
        capture_output=True,
        check=False,
    )
    assert scored.returncode == 0
    assert json.loads(scored.stdout)["APx"] == 3.169925001442312


def test_demo_writes_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apx", "demo", "--format", "table", "--output-dir", str(tmp_path / "out")]) == 0
    assert "AP 9   APx 3.169925001442312" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "manifest.json",
        "request.json",
        "result.json",
        "run.json",
    ]


@pytest.mark.parametrize(
    "data,status,start",
    [
        (b"{bad", 2, "error APC-JSON-SYNTAX"),
        (b"[1]", 1, "refused: 2 violation(s)"),
        (b'{"manifest": {"__proto__": {}}, "run": {}}', 1, "refused: 1 violation(s)"),
    ],
)
def test_stdin_refusals(
    data: bytes,
    status: int,
    start: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["apx", "evaluate", "-"]) == status
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(start)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["apx"]) == 2
    assert main(["apx", "evaluate"]) == 2
    assert main(["apx", "promote", "--iterations", "many", "x.json"]) == 2
    assert "error APC-USAGE" in capsys.readouterr().err
