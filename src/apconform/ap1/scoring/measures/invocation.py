"""D7.1 invocation and its evidence class (AP-1 D7.7), read from structure, never from prose.

EV-2 (platform-structural) is the instrument's own record of the calls it
executed: the required tool was called (INVOKED) or it was not (NOT-INVOKED).
An execution whose responses could not all be read, or that offered no tool,
is EV-0 (unobservable) and has no invocation outcome. An attestation carried
in a response is the system's claim about itself: EV-1, whatever it says and
however it is signed, because the instrument verifies no signature and no
ledger (a signature does not cure self-report); it decides the class only when
no call was recorded. EV-3 is never emitted. A sentence such as "I used the
calculator" is recorded as a self-report and changes nothing.
"""

from __future__ import annotations

import json

from apconform.ap1.scoring.record import ExecutionView
from apconform.ap1.scoring.results import Attestation, InvocationResult

__all__ = ["INVOKED", "NOT_INVOKED", "classify_invocation"]

INVOKED = "INVOKED"
NOT_INVOKED = "NOT-INVOKED"
_SELF_REPORTS = (
    "i used the calculator",
    "using the calculator",
    "i used the tool",
    "using the tool",
    "with the calculator",
    "the calculator gives",
    "the calculator returned",
    "calculator tool",
)
_ATTESTATION_REASON = (
    "the response carries an attestation; the instrument verified neither a signature nor a "
    "ledger entry, so it is the system's own claim (a signature does not cure self-report)"
)


def _attestation(view: ExecutionView) -> Attestation | None:
    for number, body in view.response_bodies():
        if '"attestation"' not in body:
            continue
        try:
            parsed = json.loads(body)
            found = parsed["choices"][0]["message"]["metadata"]["attestation"]
        except (ValueError, KeyError, IndexError, TypeError):
            continue
        signed = isinstance(found, dict) and "signature" in found
        return {"round": str(number), "signed": signed}
    return None


def _self_report(text: str | None) -> str | None:
    lowered = (text or "").casefold()
    return next((phrase for phrase in _SELF_REPORTS if phrase in lowered), None)


def classify_invocation(view: ExecutionView, required_operation: str) -> InvocationResult:
    """The evidence class, the invocation outcome and why (see the module docstring)."""
    self_report = _self_report(view.final_text)
    if view.status in ("VOID", "UNMEASURED"):
        return {
            "selfReport": self_report,
            "evidenceClass": None,
            "outcome": None,
            "reason": f"{view.status}: {view.status_reason or 'no reason recorded'}",
        }
    if view.status == "UNOBSERVABLE" or not view.all_rounds_readable:
        reason = view.status_reason or "a response could not be read"
        return {
            "selfReport": self_report,
            "evidenceClass": "EV-0",
            "outcome": None,
            "reason": reason,
        }
    if not view.tools_offered:
        return {
            "selfReport": self_report,
            "evidenceClass": "EV-0",
            "outcome": None,
            "reason": "no tool was offered, so invocation cannot be observed",
        }
    attestation = _attestation(view)
    called = [c for c in view.tool_calls if c.name == required_operation]
    if called:
        out: InvocationResult = {
            "selfReport": self_report,
            "evidenceClass": "EV-2",
            "outcome": INVOKED,
            "reason": f"{len(called)} call(s) of {required_operation} recorded by the instrument",
        }
    elif attestation is not None:
        out = {
            "selfReport": self_report,
            "evidenceClass": "EV-1",
            "outcome": INVOKED,
            "reason": _ATTESTATION_REASON,
        }
    else:
        others = sorted({c.name for c in view.tool_calls})
        why = f"no call of {required_operation} was recorded"
        if others:
            why += " (other tools called: " + ", ".join(others) + ")"
        out = {
            "selfReport": self_report,
            "evidenceClass": "EV-2",
            "outcome": NOT_INVOKED,
            "reason": why,
        }
    if attestation is not None:
        out["attestation"] = {
            "round": attestation["round"],
            "signed": attestation["signed"],
            "evidenceClass": "EV-1",
            "reason": _ATTESTATION_REASON,
        }
    return out
