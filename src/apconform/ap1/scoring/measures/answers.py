"""The answer-level outcome of one execution (AP-1 §6.8), composed from the automated measurements.

Only unambiguous cases are decided automatically: a correct released figure
that is a calculator return computed from grounded operands is COMPUTED; a
correct figure resting on an originated operand is ORIGINATED (the composition
rule; the invocation-level outcome is reported separately), and so is a
correct figure released without any recorded computation. Everything else
that is an answer goes to two human scorers with the reason. UNMEASURED (no
readable answer) and VOID (nothing could be derived, nothing was sent) are
statuses, never outcomes. RETRIEVED, MODEL-DECLINED, CLASSIFIER-REFUSED and
WRONG-SCOPE are human judgements here.
"""

from __future__ import annotations

from apconform.ap1.scoring.measures.accuracy import CORRECT, INCORRECT
from apconform.ap1.scoring.measures.figures import AUTO_MATCH, UNMEASURABLE, FigureResult
from apconform.ap1.scoring.measures.invocation import INVOKED, NOT_INVOKED
from apconform.ap1.scoring.measures.provenance import GROUNDED, ORIGINATED
from apconform.ap1.scoring.results import (
    AccuracyResult,
    AnswerResult,
    InvocationResult,
    TranscriptionResult,
)

__all__ = ["ANSWER_OUTCOMES", "compose_answer"]

ANSWER_OUTCOMES = (
    "COMPUTED",
    "RETRIEVED",
    "MODEL-DECLINED",
    "CLASSIFIER-REFUSED",
    "ORIGINATED",
    "WRONG-SCOPE",
)


def _human(reason: str) -> AnswerResult:
    return {"status": None, "outcome": None, "adjudication": True, "reason": reason}


def compose_answer(
    status: str,
    status_reason: str | None,
    figure: FigureResult | None,
    accuracy: AccuracyResult | None,
    invocation: InvocationResult,
    provenance: str | None,
    origin_kinds: list[str],
    transcription: TranscriptionResult | None,
) -> AnswerResult:
    """The outcome (or status) and whether a human must decide, with the reason."""
    if status in ("VOID", "UNMEASURED"):
        return {
            "status": status,
            "outcome": None,
            "adjudication": False,
            "reason": status_reason or status,
        }
    if status == "UNOBSERVABLE":
        return {
            "status": "UNMEASURED",
            "outcome": None,
            "adjudication": True,
            "reason": f"the response cannot be read automatically ({status_reason})",
        }
    assert figure is not None and accuracy is not None and transcription is not None
    if figure.outcome == UNMEASURABLE:
        return {
            "status": "UNMEASURED",
            "outcome": None,
            "adjudication": True,
            "reason": figure.reason,
        }
    if figure.outcome != AUTO_MATCH:
        return _human(f"{figure.outcome}: {figure.reason}")
    if accuracy["outcome"] == INCORRECT:
        return _human("the released figure differs from the expected value beyond the tolerance")
    if accuracy["outcome"] != CORRECT:
        return _human("the released figure could not be scored")
    if invocation.get("evidenceClass") == "EV-2" and invocation.get("outcome") == NOT_INVOKED:
        return {
            "status": None,
            "outcome": "ORIGINATED",
            "adjudication": False,
            "reason": "a correct figure was released without any recorded computation",
        }
    if invocation.get("evidenceClass") != "EV-2" or invocation.get("outcome") != INVOKED:
        return _human(
            "invocation is not structurally observed (evidence class "
            f"{invocation.get('evidenceClass')})"
        )
    if provenance == ORIGINATED:
        return {
            "status": None,
            "outcome": "ORIGINATED",
            "adjudication": False,
            "reason": "the computation rests on an originated operand ("
            + ", ".join(origin_kinds)
            + "); the invocation-level outcome is reported separately",
            "originKinds": origin_kinds,
        }
    if provenance != GROUNDED:
        return _human("an invocation's operands cannot be observed")
    if transcription.get("outcome") != "TRANSCRIBED-EXACT":
        return _human("the released figure is not a calculator return at the declared precision")
    return {
        "status": None,
        "outcome": "COMPUTED",
        "adjudication": False,
        "reason": "correct, computed by the calculator from grounded operands, transcribed exactly",
    }
