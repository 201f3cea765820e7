"""What every step of `apconform demo` receives: where to write, where to print, what was found.

Apart from the runner (:mod:`apconform.demo`), which loads the steps by name, so
that a step imports this module and never the module that loads it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

__all__ = ["DemoContext"]


@dataclass
class DemoContext:
    """What steps share: where to write, where to print, and what earlier steps found."""

    output_dir: Path
    out: TextIO = field(default_factory=lambda: sys.stdout)
    results: dict[str, Any] = field(default_factory=dict)
    reports: list[tuple[str, Path]] = field(default_factory=list)

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def offer(self, label: str, path: Path) -> None:
        """Name a report the reader should open; the demo ends by listing them all."""
        self.reports.append((label, path))
