"""Channels carry adapter-protocol messages to an implementation: in process or over a pipe.

A channel sends one message and returns the parsed reply, or raises
:class:`ChannelFailure` when the implementation crashed, hung past the timeout
or wrote something that is not a JSON line. After a failure the channel is
discarded; :mod:`apconform.conformance.adapters.base` starts a fresh one for the
next case, so one bad case never takes the rest of the run with it.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any

from apconform.conformance.protocol import MESSAGE_LIMITS
from apconform.core.errors import ApconformError
from apconform.core.jsonload import check_value, loads

__all__ = ["Channel", "ChannelFailure", "DirectChannel", "ExecChannel", "load_callable"]

_STDERR_KEEP = 8192
_EXIT_GRACE = 2.0


class ChannelFailure(Exception):
    """The implementation gave no usable reply; ``context`` holds what helps to see why."""

    def __init__(
        self, message: str, *, timed_out: bool = False, program: str = "", **context: Any
    ) -> None:
        super().__init__(message)
        self.message = message
        self.timed_out = timed_out
        self.program = program
        """What an exec channel ran (a bare name with the file PATH gave), for start errors."""
        self.context = {key: value for key, value in context.items() if value}


class Channel:
    """One live connection to an implementation."""

    def exchange(self, message: dict[str, Any], timeout: float) -> Any:
        raise NotImplementedError

    def close(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send stop and end the connection; for a process, how it exited (a StopCheck)."""
        raise NotImplementedError


def load_callable(spec: str) -> Callable[[dict[str, Any]], Any]:
    """Import ``MODULE:ATTRIBUTE`` (the attribute may be dotted)."""
    module_name, _, attribute = spec.partition(":")
    module = importlib.import_module(module_name)
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{spec} is not callable")
    return target  # type: ignore[no-any-return]


class DirectChannel(Channel):
    """Calls a Python callable in this process, in a worker thread so a hang is bounded.

    A call that overstays the timeout is abandoned (Python cannot stop a
    thread): it keeps running in the background while the run goes on.
    """

    def __init__(self, handler: Callable[[dict[str, Any]], Any]) -> None:
        self.handler = handler

    def exchange(self, message: dict[str, Any], timeout: float) -> Any:
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["reply"] = self.handler(copy.deepcopy(message))
            except BaseException as exc:  # the implementation's crash is data here
                box["error"] = exc
                box["trace"] = traceback.format_exc(limit=20)

        worker = threading.Thread(target=call, name="apconform-direct", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise ChannelFailure(
                f"no answer within {timeout:g} s (the in-process call was abandoned)",
                timed_out=True,
            )
        if "error" in box:
            error = box["error"]
            raise ChannelFailure(
                f"the implementation raised {type(error).__name__}: {error}",
                traceback=box["trace"],
            )
        reply = box.get("reply")
        try:
            check_value(reply, MESSAGE_LIMITS)
        except ApconformError as exc:
            raise ChannelFailure(
                f"the reply is not a JSON value the kit accepts: {exc}", protocolViolation=True
            ) from None
        return copy.deepcopy(reply)

    def close(self, message: dict[str, Any]) -> dict[str, Any] | None:
        with contextlib.suppress(Exception):
            self.exchange(message, 2.0)
        return None


class ExecChannel(Channel):
    """A subprocess speaking JSON lines on stdin/stdout; stderr is kept for diagnostics."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        found = shutil.which(argv[0]) if argv else None
        self.program = (
            f"{argv[0]} (found on PATH as {found})"
            if found and os.sep not in argv[0] and found != argv[0]
            else argv[0]
            if argv
            else ""
        )
        """What ran, for messages: a bare name is shown with the file PATH resolved it to."""
        self._stderr_done = threading.Event()
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            raise ChannelFailure(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        limit = MESSAGE_LIMITS.max_bytes + 2
        try:
            while True:
                line = stream.readline(limit)
                if not line:
                    break
                self._lines.put(line)
                if not line.endswith(b"\n") and len(line) >= limit:
                    break  # an over-long line: the reader stops, the exchange refuses it
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        try:
            with contextlib.suppress(OSError, ValueError):
                for chunk in iter(lambda: stream.read1(4096), b""):  # type: ignore[attr-defined]
                    self._stderr.append(chunk)
                    self._stderr_size += len(chunk)
                    while self._stderr_size > _STDERR_KEEP and len(self._stderr) > 1:
                        self._stderr_size -= len(self._stderr.popleft())
        finally:
            self._stderr_done.set()

    def stderr_tail(self) -> str:
        return b"".join(self._stderr)[-_STDERR_KEEP:].decode("utf-8", errors="replace")

    def _send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(data)
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._fail_exited("the implementation closed its input")

    def _fail_exited(self, what: str) -> None:
        try:
            status = self.process.wait(timeout=_EXIT_GRACE)
        except subprocess.TimeoutExpired:
            status = None
        if status is not None:  # the pipe is at its end: let the reader take the last words
            self._stderr_done.wait(_EXIT_GRACE)
        self.kill()
        exited = f"exited with status {status}" if status is not None else "stopped answering"
        raise ChannelFailure(
            f"{what}: the implementation {exited}",
            stderr=self.stderr_tail(),
            program=self.program,
        )

    def exchange(self, message: dict[str, Any], timeout: float) -> Any:
        self._send(message)
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                self.kill()
                raise ChannelFailure(
                    f"no answer within {timeout:g} s; the implementation was stopped",
                    timed_out=True,
                    stderr=self.stderr_tail(),
                ) from None
            if line is None:
                self._fail_exited("no answer")
                raise AssertionError("unreachable")
            if line.strip():
                break
        if not line.endswith(b"\n") and len(line) > MESSAGE_LIMITS.max_bytes:
            self.kill()
            raise ChannelFailure(
                "the answer line is longer than the message limit", protocolViolation=True
            )
        try:
            return loads(line.rstrip(b"\r\n"), limits=MESSAGE_LIMITS, source="answer line")
        except ApconformError as exc:
            self.kill()
            raise ChannelFailure(
                f"the answer is not a JSON document the kit accepts: {exc}",
                protocolViolation=True,
                offending=line[:300].decode("utf-8", errors="replace"),
                stderr=self.stderr_tail(),
            ) from None

    def kill(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                if os.name == "posix":
                    os.killpg(self.process.pid, signal.SIGKILL)
                else:
                    self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=_EXIT_GRACE)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def close(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send stop, close stdin and wait for the exit the protocol requires (status 0)."""
        with contextlib.suppress(ChannelFailure):
            self._send(message)
        with contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        status: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            status = self.process.wait(timeout=_EXIT_GRACE)
        self.kill()
        if status is None:
            return {
                "exitedCleanly": False,
                "stopDetail": f"the implementation did not exit within {_EXIT_GRACE:g} s of stop "
                "and was killed; it must exit with status 0 when it reads stop",
            }
        if status != 0:
            tail = self.stderr_tail().strip().splitlines()[-3:]
            said = f" (stderr: {' | '.join(tail)})" if tail else ""
            return {
                "processExitStatus": status,
                "exitedCleanly": False,
                "stopDetail": f"the implementation exited with status {status} after stop; the "
                f"adapter protocol requires status 0{said}",
            }
        return {
            "processExitStatus": 0,
            "exitedCleanly": True,
            "stopDetail": "exited with status 0 after stop",
        }
