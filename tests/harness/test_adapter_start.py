"""The exit table holds for an implementation that cannot start: `check` exits with 2
(a setup error; 1 is reserved for findings) and shows the tail of its standard error.

A real adapter script is run: it writes to standard error and exits with 3 at once,
before reading the start message. A command naming no executable is the other case.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from apconform.cli import main

POSIX = pytest.mark.skipif(os.name != "posix", reason="the adapter is a POSIX shell script")


def _adapter(folder: Path, lines: int) -> Path:
    script = folder / "adapter.sh"
    said = "".join(f"echo 'adapter: line {n} of {lines}' >&2\n" for n in range(1, lines + 1))
    script.write_text(f"#!/bin/sh\n{said}exit 3\n", encoding="utf-8")
    script.chmod(0o755)
    return script


@POSIX
def test_an_adapter_that_exits_at_once_is_exit_2_with_its_stderr_tail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _adapter(tmp_path, 20)
    report = tmp_path / "report.html"
    check = ["check", "--impl", f"exec:{script}", "--protocol", "kit"]
    status = main([*check, "--format", "html", "--output", str(report)])
    assert status == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    assert err.startswith(f"error APC-ADAPTER-START: exec:{script}: ")
    assert "the implementation exited with status 3\n" in err
    tail = err.split("the implementation's standard error ended with:\n", 1)[1]
    shown = [line for line in tail.splitlines() if line.startswith("  | ")]
    # the last lines it wrote, in order; the earlier ones are left out
    assert shown == [f"  | adapter: line {n} of 20" for n in range(9, 21)]
    assert f"hint: The command ran {script}." in err
    assert "Traceback" not in err
    assert not report.exists()  # nothing was written


@POSIX
def test_in_json_mode_the_tail_is_in_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _adapter(tmp_path, 2)
    assert main(["check", "--impl", f"exec:{script}", "--format", "json"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["exitStatus"] == 2 and error["error"]["code"] == "APC-ADAPTER-START"
    assert error["error"]["message"].endswith(
        "the implementation exited with status 3\n"
        "the implementation's standard error ended with:\n"
        "  | adapter: line 1 of 2\n"
        "  | adapter: line 2 of 2"
    )


@pytest.mark.parametrize("command", ["./no-such-adapter", "/nonexistent/bin/adapter --flag"])
def test_a_missing_executable_is_exit_2(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--impl", f"exec:{command}", "--protocol", "kit"]) == 2
    err = capsys.readouterr().err
    program = command.split()[0]
    assert err.startswith(
        f"error APC-ADAPTER-TARGET: exec:{command}: {program!r} is not an executable file or a "
        "command on PATH\n"
    )


@POSIX
def test_an_adapter_whose_interpreter_is_missing_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "adapter"
    script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    assert main(["check", "--impl", f"exec:{script}", "--protocol", "kit"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error APC-ADAPTER-START: exec:{script}: cannot start {str(script)!r}")
