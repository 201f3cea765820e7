"""The command line: a loader refusal is a code and a message with exit status 2, no trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apconform.cli import main

MIB = 1_048_576

BAD_INPUTS = {
    "size": (b"[" + b" " * MIB + b"]", "APC-JSON-SIZE"),
    "depth": (b"[" * 33 + b"0" + b"]" * 33, "APC-JSON-DEPTH"),
    "deep-flood": (b"[" * 1_000_000, "APC-JSON-DEPTH"),
    "nodes": (b"[" + b",".join([b"0"] * 100_000) + b"]", "APC-JSON-NODES"),
    "duplicate": (b'{"a": 1, "a": 2}', "APC-JSON-DUPLICATE-KEY"),
    "bom": (b'\xef\xbb\xbf{"a": 1}', "APC-JSON-BOM"),
    "encoding": (b'{"a": "\xff"}', "APC-JSON-ENCODING"),
    "syntax": (b'{"a": 1,}', "APC-JSON-SYNTAX"),
    "nan": (b"[NaN]", "APC-JSON-NONFINITE"),
    "infinity": (b"[-Infinity]", "APC-JSON-NONFINITE"),
    "overflow": (b"[1e400]", "APC-JSON-NUMBER"),
    "underflow": (b"[1e-400]", "APC-JSON-NUMBER"),
    "long-number": (b"[" + b"1" * 10_000 + b"]", "APC-JSON-NUMBER"),
    "surrogate": (b'["\\ud800"]', "APC-JSON-SURROGATE"),
    "surrogate-key": (b'{"\\udc00": 1}', "APC-JSON-SURROGATE"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_loader_refusals_at_the_cli(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, code = BAD_INPUTS[name]
    path = tmp_path / "input.json"
    path.write_bytes(data)
    assert main(["canonicalize", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error {code}")
    assert "hint: " in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "args,code",
    [
        (["canonicalize", "/nonexistent/file.json"], "APC-FILE-NOT-FOUND"),
        (["canonicalize", "/"], "APC-FILE-NOT-REGULAR"),
        (["validate", "--type", "nope", "/dev/null"], "APC-USAGE"),
        (["no-such-command"], "APC-USAGE"),
        (["validate", "x.json"], "APC-USAGE"),
    ],
)
def test_usage_and_file_errors(
    args: list[str], code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error {code}")
    assert "Traceback" not in err


def test_canonicalize_and_hash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{"b": 1.0, "a": [1e21, 1e-7]}', encoding="utf-8")
    assert main(["canonicalize", str(path)]) == 0
    assert capsys.readouterr().out == '{"a":[1e+21,1e-7],"b":1}\n'
    assert main(["hash", str(path)]) == 0
    import hashlib

    expected = hashlib.sha256(b'{"a":[1e+21,1e-7],"b":1}').hexdigest()
    assert capsys.readouterr().out == expected + "\n"


def test_hash_text_normalises_line_endings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crlf, lf = tmp_path / "crlf.txt", tmp_path / "lf.txt"
    crlf.write_bytes(b"line one\r\nline two\r\n")
    lf.write_bytes(b"line one\nline two\n")
    assert main(["hash", "--text", str(crlf)]) == 0
    first = capsys.readouterr().out
    assert main(["hash", "--text", str(lf)]) == 0
    assert capsys.readouterr().out == first
    import hashlib

    assert first.strip() == hashlib.sha256(b"line one\nline two\n").hexdigest()


def test_validate_lists_every_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "vector.json"
    path.write_text(
        json.dumps({"schemaVersion": "apconform-vector/7", "id": "Bad", "protocol": "kit"}),
        encoding="utf-8",
    )
    assert main(["validate", "--type", "vector", str(path)]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0] == "refused: 8 violation(s)"
    assert "  APC-SCHEMA-VIOLATION at $.schemaVersion: unsupported value; " in err
    assert "  APC-SCHEMA-VIOLATION at $.clauses: this required field is missing" in err
    report = json.loads(lines[-1])
    assert report["error"]["code"] == "APC-DOC-REFUSED"
    assert len(report["error"]["violations"]) == 8


def test_validate_accepts_a_committed_vector(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = repo / "vectors/kit/canonical/kit-jcs-number-exponent.json"
    assert main(["validate", "--type", "vector", str(path)]) == 0
    assert capsys.readouterr().out == "valid vector document\n"


def test_sign_and_verify_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "my.key"
    assert main(["key", "generate", str(key)]) == 0
    generated = json.loads(capsys.readouterr().out)
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert key.read_text(encoding="ascii").strip() not in json.dumps(generated)
    doc = tmp_path / "doc.json"
    doc.write_text('{"result": {"AP": 9}}', encoding="utf-8")
    assert main(["sign", "--key", str(key), str(doc)]) == 0
    signed_text = capsys.readouterr().out
    signed = json.loads(signed_text)
    assert signed["signature"]["keyId"] == generated["keyId"]
    signed_path = tmp_path / "signed.json"
    signed_path.write_text(signed_text, encoding="utf-8")
    assert main(["verify", str(signed_path), "--trusted-key", generated["publicKey"]]) == 0
    assert capsys.readouterr().out.startswith(f"signature valid: key {generated['keyId']}")
    signed["result"]["AP"] = 10
    signed_path.write_text(json.dumps(signed), encoding="utf-8")
    assert main(["verify", str(signed_path)]) == 2
    assert capsys.readouterr().err.startswith("error APC-SIG-INVALID")


def test_loose_key_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "loose.key"
    key.write_text("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60\n")
    key.chmod(0o644)
    doc = tmp_path / "doc.json"
    doc.write_text("{}", encoding="utf-8")
    assert main(["sign", "--key", str(key), str(doc)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-KEY-PERMISSIONS")
    assert "chmod 600" in err
    assert "9d61b19d" not in err


def test_subprocess_reads_stdin_and_exits_2_without_traceback() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "apconform.cli", "canonicalize", "-"],
        input=b'{"a": 1, "a": 2}',
        capture_output=True,
        env=env,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode().startswith("error APC-JSON-DUPLICATE-KEY at $.a")
    assert b"Traceback" not in result.stderr


def test_demo_runs_every_step_and_ends_with_the_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--output-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "not built yet" not in out
    tail = out.splitlines()[-6:]
    assert tail[0] == "reports to open (offline):"
    assert tail[1].split() == [
        "AP-1",
        "profile",
        "report",
        "(HTML)",
        str(tmp_path / "ap1-run" / "report" / "report.html"),
    ]
    assert tail[2].split()[-1] == str(tmp_path / "ap1-run" / "report" / "report.md")
    assert tail[3].split()[-1] == str(tmp_path / "conformance" / "report.html")
    assert tail[4].split()[:3] == ["results", "site", "(HTML)"]
    assert tail[4].split()[-1] == str(tmp_path / "results-site" / "index.html")
    assert tail[5] == "demo finished"
    assert "chain intact" in out
    for line in tail[1:5]:
        assert Path(line.split()[-1]).is_file()
    assert "clause registry:" in out
    assert "vectors: " in out
    assert (tmp_path / "signed-sample.json").is_file()
    signed = json.loads((tmp_path / "signed-sample.json").read_text(encoding="utf-8"))
    public = signed["signature"]["publicKey"]
    assert f"apconform verify {tmp_path / 'signed-sample.json'} --trusted-key {public}" in out
    assert main(["verify", str(tmp_path / "signed-sample.json"), "--trusted-key", public]) == 0
    assert main(["verify", str(tmp_path / "signed-sample.json")]) == 2  # the TEST key alone
