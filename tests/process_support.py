"""Child processes in tests: started as a terminal would start them, and never left behind.

CI runners and scripts (`nohup pytest &`) often start the suite with SIGINT ignored, and
every child inherits that: a test that stops a child with SIGINT (Ctrl-C) then waits for
a process that cannot hear it. A test about what Ctrl-C does starts its child through
`from_a_terminal`, which gives the child the default SIGINT a foreground command in a
terminal has (`in_the_background` starts one with SIGINT ignored, to test that case).
`stop` sends the signal, and if the child outlives the wait it is killed before the test
fails, so a failing test leaves no server running.
"""

from __future__ import annotations

import signal
import subprocess
import sys

# Set SIGINT's disposition, then become the command (exec keeps the process id, and a
# disposition of "ignored" or "default" survives exec).
_WITH_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, getattr(signal, sys.argv[1])); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def from_a_terminal(command: list[str]) -> list[str]:
    """``command`` started with SIGINT at its default, as a foreground command in a terminal."""
    return _with_sigint(command, "SIG_DFL")


def in_the_background(command: list[str]) -> list[str]:
    """``command`` started with SIGINT ignored, as a script's background job (`cmd &`)."""
    return _with_sigint(command, "SIG_IGN")


def _with_sigint(command: list[str], disposition: str) -> list[str]:
    if sys.platform == "win32":
        return command
    executable = command[0] if "/" in command[0] else _which(command[0])
    return [sys.executable, "-c", _WITH_SIGINT, disposition, executable, *command[1:]]


def _which(name: str) -> str:
    import shutil

    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(name)
    return found


def stop(
    process: subprocess.Popen[bytes],
    signal_number: int = signal.SIGINT,
    timeout: float = 30,
) -> int:
    """Send ``signal_number`` and wait; a child still running after ``timeout`` is killed.

    Returns the exit status. A child that had to be killed fails the test (AssertionError),
    after it is gone.
    """
    if process.poll() is None:
        process.send_signal(signal_number)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        name = signal.Signals(signal_number).name
        raise AssertionError(
            f"process {process.pid} ({process.args!r}) ignored {name} for {timeout} s; killed"
        ) from None
