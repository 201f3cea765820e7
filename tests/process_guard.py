"""A pytest plugin: the session fails if a process it started is still running at its end.

At configure time the session's process puts a marker of its own in its environment;
every process the tests start inherits it (servers, endpoints, browsers, PostgreSQL,
pytest-xdist workers and whatever those start, even once re-parented). At the very end
the session looks through /proc for processes whose environment carries the marker,
gives them a few seconds to finish exiting, then names what is left, kills it, and makes
the session fail. A pytest run started by a test (the marker is already set) does not
check: the outer session does. Linux only (it reads /proc); elsewhere it does nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

import pytest

MARKER = "APCONFORM_TEST_SESSION"
GRACE = "APCONFORM_TEST_PROCESS_GRACE"  # seconds to let processes finish exiting (10)
_owner: bytes | None = None
_SESSION_HELPER = "from multiprocessing.resource_tracker import main"
"""The resource tracker multiprocessing starts for the session's own process the first
time a test uses a process pool in-process; it lives until that process exits (it reads
its end of a pipe), so it is part of the session, not something a test left behind."""


def pytest_configure(config: pytest.Config) -> None:
    global _owner
    if os.environ.get(MARKER) or not Path("/proc/self/environ").exists():
        return  # a nested session, or not Linux: the outer session (if any) checks
    value = f"{os.getpid()}-{uuid.uuid4().hex}"
    os.environ[MARKER] = value
    _owner = f"{MARKER}={value}".encode()


def started_by_this_session() -> dict[int, str]:
    """Process id to command line of every live process carrying this session's marker."""
    if _owner is None:
        return {}
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            if _owner not in environ.split(b"\0"):
                continue
            stat = (entry / "stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                continue  # a zombie has exited; its parent has not reaped it yet
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and _SESSION_HELPER in command:
            continue  # the session's own multiprocessing tracker: it exits with the session
        found[int(entry.name)] = command.strip()
    return found


@pytest.hookimpl(trylast=True)  # after pytest-xdist has shut its workers down
def pytest_sessionfinish(session: pytest.Session) -> None:
    if _owner is None:
        return
    deadline = time.monotonic() + float(os.environ.get(GRACE, "10"))
    left = started_by_this_session()
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = started_by_this_session()
    if not left:
        return
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    lines = [f"  {pid}: {command}" for pid, command in sorted(left.items())]
    message = (
        f"{len(left)} process(es) started by the tests were still running at the end of the "
        "session (now killed); stop what a test starts, in a finally block:\n" + "\n".join(lines)
    )
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "processes left behind", red=True)
        reporter.write_line(message)
    else:
        print(message)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
