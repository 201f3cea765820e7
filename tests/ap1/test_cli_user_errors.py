"""A user's mistake is a usage error with a stable code (exit 2), never an internal error (70).

Finding 9 of the trust review: `serve-mock --stall-seconds abc`, `serve-mock`
on a busy port, and `ap1 seal --output-dir` naming an existing file,
`/proc/self/x` or a directory with a dangling `seal.json` link all ended with
exit 70 and no code; `--output-dir ''` sealed into the current directory.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def _apconform(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "apconform.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def _expect(done: subprocess.CompletedProcess[str], code: str, words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error {code}"), done.stderr
    assert words in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_serve_mock_refuses_a_bad_stall_and_a_busy_port(tmp_path: Path) -> None:
    done = _apconform("ap1", "serve-mock", "--stall-seconds", "abc", cwd=tmp_path)
    _expect(done, "APC-USAGE", "--stall-seconds 'abc' is not a number of seconds")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _apconform("ap1", "serve-mock", "--port", str(port), cwd=tmp_path)
    _expect(done, "AP1-MOCK-PORT", f"port {port} on 127.0.0.1 is already in use")
    assert "Choose another --port" in done.stderr


@pytest.mark.parametrize(
    ("target", "code", "words"),
    [
        ("a-file", "AP1-RUN-DIR", "a-file: it exists and is not a directory"),
        ("a-file/below", "AP1-RUN-DIR", "a part of the path is a file, not a directory"),
        ("/proc/self/x", "AP1-RUN-DIR", "/proc/self/x: cannot create it"),
        ("planted", "AP1-RUN-LINK", "planted/seal.json is a symbolic link"),
        ("", "APC-USAGE", "--output-dir is empty"),
    ],
)
def test_seal_output_dir_mistakes_are_usage_errors(
    tmp_path: Path, target: str, code: str, words: str
) -> None:
    if target.startswith("/proc") and not Path("/proc/self").is_dir():
        pytest.skip("no /proc on this system")
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    (tmp_path / "planted").mkdir()
    if hasattr(os, "symlink"):
        (tmp_path / "planted" / "seal.json").symlink_to(tmp_path / "nowhere.json")
    done = _apconform("ap1", "seal", "--example", "--output-dir", target, cwd=tmp_path)
    _expect(done, code, words)
    assert not (tmp_path / "seal.json").exists() and not (tmp_path / "nowhere.json").exists()
    assert not (tmp_path / "inputs").exists()
