"""`apconform mcp` typed at a terminal says what it is and how to stop it; a client sees
nothing but MCP (its input is a pipe, so the note is never written there)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from apconform.cli.mcp import TERMINAL_NOTE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")


def test_at_a_terminal_it_says_what_it_is_and_ctrl_d_stops_it() -> None:
    controller, terminal = os.openpty()
    try:
        server = subprocess.Popen(
            [sys.executable, "-m", "apconform.cli", "mcp"],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.close(terminal)
        assert server.stderr is not None
        first = server.stderr.readline().decode("utf-8")
        assert first == TERMINAL_NOTE
        assert "Press Ctrl-D to stop." in first
        os.write(controller, b"\x04")  # Ctrl-D: the end of input, as a person stops it
        out, err = server.communicate(timeout=60)
    finally:
        os.close(controller)
    assert server.returncode == 0, err
    assert out == b""  # nothing but MCP messages on standard output


def test_through_a_pipe_it_writes_no_note() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "apconform.cli", "mcp"],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
