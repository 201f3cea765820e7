"""An Inspect scorer that shows the per-execution AP-1 score of each sample in Inspect's viewer.

A convenience view, not the measurement: it builds the sample's execution
record the way the import does and scores it with the instrument's scorer
(``score_execution``), putting the figure outcome, D1 accuracy, D7.1, D7.2(a),
D7.2(b) and D7.3 in the score's value and the whole per-execution score in its
metadata, from which the ``ap1_rates`` metric counts the run's rates for the
eval summary. The profile, with bounds and evidence classes over the run,
comes only from ``apconform ap1 import inspect`` and then ``apconform ap1 score``.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import __version__ as inspect_version
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageTool
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from apconform.ap1.inspect.attachments import resolve
from apconform.ap1.inspect.context import METADATA_KEY, STORE_KEY, sealed_context
from apconform.ap1.inspect.metrics import EXECUTION_SCORE, ap1_rates
from apconform.ap1.inspect.record import InspectSample, SampleRefused, execution_record
from apconform.ap1.scoring.api import score_execution

__all__ = ["ap1_score", "verdicts"]


def verdicts(score: dict[str, Any]) -> dict[str, str | None]:
    """The headline of a per-execution score: one verdict per measurement, None when not made."""

    def outcome(member: str) -> str | None:
        value = score.get(member)
        return str(value["outcome"]) if isinstance(value, dict) and value.get("outcome") else None

    invocation = score.get("invocation") or {}
    calls = [c.get("outcome") for c in (score.get("operation") or {}).get("calls") or []]
    return {
        "status": str(score.get("status")),
        "figure": outcome("figure"),
        "D1": outcome("accuracy"),
        "D7.1": None
        if invocation.get("outcome") is None
        else f"{invocation['outcome']} ({invocation.get('evidenceClass')})",
        "D7.2(a)": outcome("provenance"),
        "D7.2(b)": ", ".join(str(c) for c in calls) if calls else None,
        "D7.3": outcome("transcription"),
        "answer": outcome("answer"),
    }


def _returns(state: TaskState) -> dict[str, str]:
    return {
        str(m.tool_call_id): m.content
        for m in state.messages
        if isinstance(m, ChatMessageTool) and isinstance(m.content, str)
    }


@scorer(metrics=[ap1_rates()], name="ap1_score")
def ap1_score(run_dir: str) -> Scorer:
    """The per-execution AP-1 score of each sample (see the module docstring)."""

    async def score(state: TaskState, target: Target) -> Score:
        context = sealed_context(run_dir)
        live = transcript()
        events = [
            resolve(e.model_dump(mode="json"), live.attachments)
            for e in live.events
            if e.event == "model"
        ]
        sample = InspectSample(
            metadata=state.metadata.get(METADATA_KEY) or {},
            store=state.store.get(STORE_KEY),
            model_events=events,
            tool_returns=_returns(state),
            source_record=f"sample {state.sample_id} epoch {state.epoch}",
            source_version=inspect_version,
            model=str(state.model),
        )
        try:
            record = execution_record(context, sample)
        except SampleRefused as exc:
            return Score(value={"status": "REFUSED"}, explanation=str(exc))
        result = score_execution(record, context.scoring)
        headline = verdicts(result)
        return Score(
            value=headline,
            answer=record["finalText"],
            explanation="; ".join(f"{k}: {v}" for k, v in headline.items() if v is not None),
            metadata={EXECUTION_SCORE: result},
        )

    return score
