"""How a long-running command is stopped: Ctrl-C in a terminal, SIGTERM from everything else.

`kill PID`, service managers, container runtimes and CI runners cancelling a job send
SIGTERM, which by default ends Python at once, skipping the clean stop Ctrl-C gets (a
run's `run-stopped` record, a server's closed socket). Inside `stop_signals()` SIGTERM
raises KeyboardInterrupt in the main thread, so both take the same path.

A process started with SIGINT ignored (a background job of a script, many CI launchers)
keeps it ignored unless the caller is a server (`interrupt=True`): a shell ignores SIGINT
for its background jobs so that Ctrl-C meant for the foreground command leaves them
running, and a batch job such as `ap1 run` honours that; a server, like `apconform
serve`, stops on SIGINT however it was started, because whoever sends it one means it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["stop_signals"]


@contextmanager
def stop_signals(*, interrupt: bool = False) -> Iterator[None]:
    """SIGTERM (and SIGINT, even if inherited ignored, when ``interrupt``) act as Ctrl-C.

    The previous handlers come back on exit, so calling a command in-process (the tests,
    the demo) leaves the caller's handlers as they were. Outside the main thread, where
    Python cannot set handlers, nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [signal.SIGTERM]
    if interrupt:
        wanted.append(signal.SIGINT)
    previous = {number: signal.getsignal(number) for number in wanted}
    try:
        for number in wanted:
            signal.signal(number, signal.default_int_handler)
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
