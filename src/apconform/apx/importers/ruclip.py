"""ruClip receipts: orchestration context (job, issue, employee, budget, approval) as evidence.

A ruClip receipt is provenance, not proof that a task was done well: it is
imported only when it carries an accepted human adjudication with a reviewer
and an evidence hash, and an approval that is not granted becomes a policy
violation of the run. Job completion or approval alone is never enough.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from apconform.apx.checks import MISSING, is_text
from apconform.apx.guard import guard
from apconform.apx.hashing import digest
from apconform.apx.importers.meter import import_meter
from apconform.core.errors import ApconformError, define_code

__all__ = ["IMPORT_RUCLIP", "attach_ruclip", "import_ruclip_receipt"]

IMPORT_RUCLIP = define_code(
    "APX-IMP-RUCLIP",
    "A ruClip receipt lacks a field the import needs",
    "Give jobId, issueId and employeeId, a budget with limitUSD >= 0, an accepted "
    "adjudication with reviewerId and a SHA-256 evidenceHash, and an approval status.",
    exit_status=1,
    http_status=422,
)

ADAPTER = {"name": "ruClip", "mode": "APx contract adapter", "nativeIntegration": False}
LIMITATION = (
    "Caller must include returned policy violations in its run. Governance approval alone "
    "does not establish quality or safety. Evidence authenticity is external."
)
_HEX = re.compile(r"[a-f0-9]{64}")
_BLANK = "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
_BLANK += "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _fail(message: str) -> ApconformError:
    return ApconformError(IMPORT_RUCLIP, message)


def _finite_at_least_zero(value: Any) -> bool:
    return type(value) in (int, float) and value - value == 0 and value >= 0


def import_ruclip_receipt(receipt: Any) -> dict[str, Any]:
    """Check a ruClip receipt and turn it into governance, evidence, violations and a cost meter."""
    if type(receipt) not in (dict, list):  # arrays pass here, as they do in the contract
        raise _fail("ruClip receipt object required")
    fields = receipt if type(receipt) is dict else {}
    for key in ("jobId", "issueId", "employeeId"):
        if not is_text(fields.get(key, MISSING)):
            raise _fail(f"ruClip {key} required")
    budget = fields.get("budget")
    if type(budget) is not dict or not _finite_at_least_zero(budget.get("limitUSD")):
        raise _fail("ruClip nonnegative budget required")
    verdict = fields.get("adjudication")
    reviewer = verdict.get("reviewerId") if type(verdict) is dict else None
    evidence = verdict.get("evidenceHash") if type(verdict) is dict else None
    if (
        type(verdict) is not dict
        or verdict.get("status") != "accepted"
        or type(reviewer) is not str
        or not reviewer.strip(_BLANK)
        or type(evidence) is not str
        or _HEX.fullmatch(evidence) is None
    ):
        raise _fail(
            "Independent human adjudication and evidence hash required; job completion or "
            "approval alone is insufficient"
        )
    approval = fields.get("approval")
    status = approval.get("status") if type(approval) is dict else None
    if status not in ("approved", "rejected", "pending"):
        raise _fail("ruClip approval status required")
    guard(receipt)
    return {
        "adapter": dict(ADAPTER),
        "governance": {
            "jobId": fields["jobId"],
            "issueId": fields["issueId"],
            "employeeId": fields["employeeId"],
            "budgetLimitUSD": budget["limitUSD"],
            "approvalStatus": status,
            "receiptHash": digest(receipt),
        },
        "provenance": {
            "id": f"ruclip-{fields['jobId']}",
            "kind": "ruclip-adjudication",
            "verification": "verified",
            "reviewerId": reviewer,
            "hash": evidence,
        },
        "policyViolations": [] if status == "approved" else ["ruClip approval not granted"],
        "cost": import_meter(fields.get("costUSD", MISSING), fields.get("costStatus", MISSING)),
        "limitation": LIMITATION,
    }


def attach_ruclip(
    run: Mapping[str, Any], slot_id: str, imported: Mapping[str, Any], *, independent: bool
) -> dict[str, Any]:
    """A copy of ``run`` carrying an imported ruClip receipt for one slot.

    The receipt's evidence joins the slot's provenance, its policy violations
    join the run's, and its cost meter is added to the run's cost (an unknown
    meter makes the cost unknown, so the run cannot be scored). A ruClip
    receipt does not say whether its reviewer was independent: the caller
    declares it. In a measured run the entry is also bound to the slot, the
    artifact, the frozen evaluator and the run, as the rules require.
    """
    out = {key: value for key, value in run.items()}
    outcomes = [dict(outcome) for outcome in run["outcomes"]]
    target = next((o for o in outcomes if o.get("slotId") == slot_id), None)
    if target is None:
        raise _fail(f"ruClip receipt names slot {slot_id!r}, which the run has no outcome for")
    entry = dict(imported["provenance"])
    entry["independent"] = independent
    if run.get("kind") == "measured":
        entry.update(
            {
                "decision": "accepted",
                "slotId": slot_id,
                "artifactHash": target.get("artifactHash"),
                "evaluatorHash": run.get("evaluatorHash"),
                "runId": run.get("id"),
            }
        )
    target["provenance"] = [*target.get("provenance", []), entry]
    out["outcomes"] = outcomes
    out["policyViolations"] = [*run.get("policyViolations", []), *imported["policyViolations"]]
    cost = imported["cost"]
    if cost["value"] is None or run.get("costUSD") is None:
        out["costUSD"] = None
        out["unmeteredFields"] = sorted({*run.get("unmeteredFields", []), "costUSD"})
    else:
        out["costUSD"] = run["costUSD"] + cost["value"]
    return out
