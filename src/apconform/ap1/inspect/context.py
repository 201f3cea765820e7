"""The sealed run an Inspect evaluation executes, opened once per process and shared.

The task, its solver and its scorer each take the run directory as a plain
argument (Inspect logs task and solver arguments, so they must be text); each
opens the run through :func:`sealed_context`, which verifies the seal the
first time and hands every later caller the same verified context.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from apconform import __version__
from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.inputs.items import render_user_message
from apconform.ap1.inputs.plan import CONDITIONS, Cell, plan_cells
from apconform.ap1.inspect.sampling import generate_settings
from apconform.ap1.run.request import initial_messages
from apconform.ap1.rundir import INPUT_FILES, SEAL_FILE
from apconform.ap1.scoring.api import prepare_inputs
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.seal.verify import SealedRun, open_sealed_run

__all__ = ["METADATA_KEY", "STORE_KEY", "TASK_NAME", "SealedContext", "sealed_context"]

TASK_NAME = "apconform/ap1"
METADATA_KEY = "apconform"
"""The key of the task's and each sample's metadata, and of the solver's store entry."""
STORE_KEY = "apconform:ap1"

_LOCK = threading.Lock()
_OPENED: dict[tuple[Path, tuple[tuple[int, int], ...]], SealedContext] = {}


@dataclass(frozen=True)
class SealedContext:
    """A verified sealed run and what the task derives from it."""

    run: SealedRun

    @property
    def seal_hash(self) -> str:
        return self.run.seal_hash

    @cached_property
    def cells(self) -> list[Cell]:
        return plan_cells(self.run.inputs)

    @cached_property
    def calculator(self) -> Calculator:
        return Calculator(self.run.inputs.config.rounding)

    @cached_property
    def scoring(self) -> ScoringInputs:
        return prepare_inputs({**self.run.inputs.documents, "ap1Text": self.run.inputs.ap1_text})

    @property
    def max_turns(self) -> int:
        return int(self.run.inputs.config.model.transport.maxTurns)

    def sample_id(self, cell: Cell) -> str:
        """The Inspect sample id of a cell: its key with ``:`` for ``/`` (ids become file names)."""
        return cell.key.replace("/", ":")

    def opening_messages(self, cell: Cell) -> list[dict[str, Any]]:
        """The opening messages of a cell exactly as the native engine sends them."""
        inputs = self.run.inputs
        item = inputs.items[cell.item_id]
        view = inputs.config.condition(cell.condition)
        message = inputs.config.model.request.message
        user = render_user_message(
            inputs.fixture,
            item,
            heading=message.contextHeading,
            question_prefix=message.questionPrefix,
            preamble=view.user_preamble,
        )
        return initial_messages(view, user)

    def task_metadata(self) -> dict[str, Any]:
        """What the task records about the run in Inspect's log (read back by the import)."""
        sampling = {}
        for name in CONDITIONS:
            settings = generate_settings(self.run.inputs.config.condition(name))
            sampling[name] = {
                "generateConfig": settings.config,
                "toolChoice": settings.tool_choice,
                "notApplied": settings.unapplied,
            }
        return {
            "sealHash": self.seal_hash,
            "planSha256": self.run.seal["plan"]["planSha256"],
            "plannedCells": str(len(self.cells)),
            "instrumentVersion": __version__,
            "sampling": sampling,
        }


def _stamp(path: Path) -> tuple[tuple[int, int], ...]:
    """(mtime, size) of the seal and every sealed copy: a changed file means verifying again."""
    out = []
    for rel in (SEAL_FILE, *INPUT_FILES.values()):
        try:
            info = (path / rel).stat()
        except OSError:
            return ()
        out.append((info.st_mtime_ns, info.st_size))
    return tuple(out)


def sealed_context(run_dir: str | Path) -> SealedContext:
    """The verified context of ``run_dir``; a broken seal is refused (AP1-SEAL-BROKEN)."""
    path = Path(run_dir).resolve()
    key = (path, _stamp(path))
    with _LOCK:
        known = _OPENED.get(key) if key[1] else None
    if known is not None:
        return known
    context = SealedContext(open_sealed_run(path))
    with _LOCK:
        _OPENED[key] = context
    return context
