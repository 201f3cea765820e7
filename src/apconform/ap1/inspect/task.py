"""The AP-1 task for Inspect: one sample per planned cell of a sealed run directory.

``inspect eval apconform/ap1 --model PROVIDER/MODEL -T run_dir=RUN`` runs it
(the package registers it through Inspect's ``inspect_ai`` entry point), and
``inspect_ai.eval(ap1(run_dir=...), model=...)`` does the same from Python.
Each sample carries the delivered context and question exactly as the
instrument renders them (system message when the condition has one, then the
user message); VOID cells are samples too, for which nothing is sent. The task
only reads the run directory: the transcript is written later, by
``apconform ap1 import inspect``. A missing ``run_dir`` or a seal that does not
verify is refused with a coded error (:class:`TaskRefused`), which Inspect's
command line prints without a traceback.
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from apconform.ap1.inputs.plan import Cell
from apconform.ap1.inspect.context import METADATA_KEY, SealedContext, sealed_context
from apconform.ap1.inspect.refused import RUN_DIR_MISSING, TaskRefused
from apconform.ap1.inspect.scorer import ap1_score
from apconform.ap1.inspect.solver import ap1_tool_loop
from apconform.core.errors import ApconformError

__all__ = ["ap1"]


def _sample(context: SealedContext, cell: Cell) -> Sample:
    opening: list[ChatMessage] = [
        ChatMessageSystem(content=m["content"])
        if m["role"] == "system"
        else ChatMessageUser(content=m["content"])
        for m in context.opening_messages(cell)
    ]
    return Sample(
        id=context.sample_id(cell),
        input=opening,
        metadata={
            METADATA_KEY: {
                "cellKey": cell.key,
                "condition": cell.condition,
                "itemId": cell.item_id,
                "repeat": str(cell.repeat),
                "void": cell.void,
                "sealHash": context.seal_hash,
            }
        },
    )


@task(name="ap1")
def ap1(run_dir: str | None = None) -> Task:
    """AP-1 over the sealed run in ``run_dir`` (refused unless its seal verifies)."""
    try:
        if not run_dir:
            raise ApconformError(
                RUN_DIR_MISSING, "no run directory was given (-T run_dir=RUN is required)"
            )
        context = sealed_context(run_dir)
    except ApconformError as exc:
        raise TaskRefused(exc) from None
    return Task(
        dataset=MemoryDataset(
            [_sample(context, cell) for cell in context.cells],
            name=f"ap1-{context.seal_hash[:16]}",
        ),
        solver=ap1_tool_loop(run_dir=run_dir),
        scorer=ap1_score(run_dir=run_dir),
        epochs=Epochs(1, "mode"),  # the value is verdict text: never averaged as numbers
        metadata={METADATA_KEY: context.task_metadata()},
        headline_metric=HeadlineMetric(scorer="ap1_score", metric="D1 correct"),
    )
