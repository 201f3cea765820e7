"""Progress for a person watching: a bar with rate and ETA on a terminal, plain lines otherwise."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import TextIO

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    return (
        f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:d}:{rest % 60:02d}"
    )


class Progress:
    """Counts finished cells; redraws at most ten times a second (terminal) or every tenth."""

    def __init__(self, total: int, done: int, stream: TextIO, *, tty: bool) -> None:
        self.total = total
        self.done = done
        self.start_done = done
        self.stream = stream
        self.tty = tty
        self.statuses: Counter[str] = Counter()
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._next_line = done
        self._step = max(1, total // 10)
        self._lock = threading.Lock()

    def _summary(self) -> str:
        made = self.done - self.start_done
        elapsed = time.monotonic() - self._started
        rate = made / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        counts = " ".join(f"{k.lower()} {v}" for k, v in sorted(self.statuses.items()))
        return f"{self.done}/{self.total} {rate:.1f}/s ETA {_clock(eta)}" + (
            f" | {counts}" if counts else ""
        )

    def update(self, status: str) -> None:
        with self._lock:
            self.done += 1
            self.statuses[status] += 1
            if self.tty:
                now = time.monotonic()
                if now - self._last_draw >= 0.1 or self.done == self.total:
                    self._last_draw = now
                    filled = int(30 * self.done / max(1, self.total))
                    bar = "#" * filled + "." * (30 - filled)
                    self.stream.write(f"\r[{bar}] {self._summary()}\x1b[K")
                    self.stream.flush()
            elif self.done >= self._next_line or self.done == self.total:
                self._next_line = self.done + self._step
                self.stream.write(f"progress: {self._summary()}\n")
                self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
