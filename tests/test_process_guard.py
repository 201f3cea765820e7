"""The session-end check (tests/process_guard.py) names, kills and fails on a leftover process,
in a serial session and in one run by pytest-xdist workers (as README's test command runs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import process_guard
import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/environ").exists(), reason="the check reads /proc (Linux)"
)

_TESTS = """
import subprocess, sys
from pathlib import Path

def test_starts_a_child(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    Path(PIDFILE).write_text(str(child.pid))
    if STOP:
        child.kill()
        child.wait()
"""


XDIST = ("-n", "2")
"""The nested session run as README's test command runs the suite: the test runs in a
pytest-xdist worker, which has exited (and its child been re-parented) by the time the
controller checks."""


def _session(
    tmp_path: Path, *, stop: bool, extra: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess[str], int]:
    pid_file = tmp_path / "child.pid"
    (tmp_path / "test_child.py").write_text(
        f"PIDFILE = {str(pid_file)!r}\nSTOP = {stop}\n" + _TESTS, encoding="utf-8"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != process_guard.MARKER}
    env["PYTHONPATH"] = str(Path(__file__).parent)
    env[process_guard.GRACE] = "0.5"
    command = [sys.executable, "-m", "pytest", "-p", "process_guard", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, *extra, "."],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, int(pid_file.read_text())


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("extra", [(), XDIST], ids=["serial", "xdist"])
def test_a_process_left_running_fails_the_session_and_is_killed(
    tmp_path: Path, extra: tuple[str, ...]
) -> None:
    done, pid = _session(tmp_path, stop=False, extra=extra)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("2 workers [1 item]" in done.stdout) == bool(extra)
    assert "1 passed" in done.stdout  # the test itself passed; the session did not
    assert "processes left behind" in done.stdout
    assert f"  {pid}: " in done.stdout and "time.sleep(300)" in done.stdout
    assert not _running(pid)


@pytest.mark.parametrize("extra", [(), XDIST], ids=["serial", "xdist"])
def test_a_session_that_stops_what_it_starts_passes(tmp_path: Path, extra: tuple[str, ...]) -> None:
    done, pid = _session(tmp_path, stop=True, extra=extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("2 workers [1 item]" in done.stdout) == bool(extra)
    assert "processes left behind" not in done.stdout
    assert not _running(pid)
