"""A signed seal covers its sealing time, and a changed signed document says what changed.

Finding 10 of the trust review: an unsigned seal's `sealedAt` could be edited
undetected, and a changed manifest or signed document was reported only as
APC-SIG-INVALID, without naming what changed. (The manifest case is in
tests/harness/test_trust_anchors.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apconform.cli import main
from apconform.core.signing import generate_key_file


def _seal(tmp_path: Path, name: str, *extra: str) -> Path:
    run_dir = tmp_path / name
    assert main(["ap1", "seal", "--example", "--output-dir", str(run_dir), *extra]) == 0
    return run_dir


def _edit_sealed_at(run_dir: Path) -> None:
    seal = json.loads((run_dir / "seal.json").read_text(encoding="utf-8"))
    seal["sealedAt"] = "2020-01-01T00:00:00.000000Z"
    (run_dir / "seal.json").write_text(json.dumps(seal, indent=2), encoding="utf-8")


def test_a_signed_seal_names_an_edited_sealing_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_key_file(tmp_path / "seal.key")
    run_dir = _seal(tmp_path, "signed", "--sign-key", str(tmp_path / "seal.key"))
    trusted = ["--trusted-key", key.public_key_hex]
    capsys.readouterr()
    assert main(["ap1", "verify-seal", str(run_dir), *trusted]) == 0
    out = capsys.readouterr().out
    assert f"note signature: valid, by {key.key_id}; verified against the trusted key" in out
    assert "it covers every member, sealedAt included" in out
    _edit_sealed_at(run_dir)
    assert main(["ap1", "verify-seal", str(run_dir), *trusted]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH signature: the signature by" in out
    assert "changed: sealedAt (every other member still matches sealHash" in out
    assert out.rstrip().endswith("does NOT verify")


def test_an_unsigned_seal_says_its_sealing_time_is_not_covered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _seal(tmp_path, "unsigned")
    _edit_sealed_at(run_dir)
    capsys.readouterr()
    assert main(["ap1", "verify-seal", str(run_dir)]) == 0  # nothing covers it: cannot be told
    out = capsys.readouterr().out
    assert (
        "note sealedAt: not covered; sealHash leaves the sealing time out and this seal is "
        "unsigned, so the time is the record's word only"
    ) in out


def test_a_changed_signed_document_says_what_can_be_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_key_file(tmp_path / "doc.key")
    document = tmp_path / "doc.json"
    document.write_text('{"result": {"AP": 9}}', encoding="utf-8")
    capsys.readouterr()
    assert main(["sign", "--key", str(tmp_path / "doc.key"), str(document)]) == 0
    signed = json.loads(capsys.readouterr().out)
    signed["result"]["AP"] = 10
    document.write_text(json.dumps(signed), encoding="utf-8")
    assert main(["verify", str(document), "--trusted-key", key.public_key_hex]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-SIG-INVALID")
    assert "which member changed cannot be determined: the signature covers the document" in err
