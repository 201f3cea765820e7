"""Check one submitted answer or refusal against one vector: the verdict `apconform check` gives.

The API's check route parses the body and renders the answer; the comparison
and the verdict are :func:`~apconform.conformance.runner.judge`'s, the one
`apconform check` gives each case of a run, so both faces agree by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NotRequired, TypedDict

from apconform.conformance.protocol import Reply
from apconform.conformance.runner import judge
from apconform.conformance.vectors import LoadedVector
from apconform.core.validation import validate_document
from apconform.models.api import CheckAnswerRequest, CheckRefusalRequest

__all__ = ["CheckResultJson", "check_submission"]


class CheckResultJson(TypedDict):
    """A ``check-result`` document (the API's answer to one submission)."""

    vectorId: str
    operation: str
    clauses: list[str]
    verdict: Literal["pass", "fail"]
    mismatches: list[dict[str, Any]]
    messageDifferences: NotRequired[list[dict[str, Any]]]


def check_submission(value: object, vector_of: Callable[[str], LoadedVector]) -> CheckResultJson:
    """The verdict on one submission (a body with ``answer``, or with ``refusal``).

    ``vector_of`` finds the vector a submission names (and refuses an unknown id).
    The body is checked against its schema first (APC-DOC-* naming the member).
    """
    if isinstance(value, dict) and "refusal" in value:
        refusal = validate_document(CheckRefusalRequest, value, what="refusal submission")
        vector_id = refusal.vectorId
        loaded = vector_of(vector_id)
        reply = Reply("refusal", code=refusal.refusal.code, message=refusal.refusal.message)
    else:
        answer = validate_document(CheckAnswerRequest, value, what="answer submission")
        vector_id = answer.vectorId
        loaded = vector_of(vector_id)
        reply = Reply("answer", document=answer.answer)
    outcome, mismatches, worded = judge(loaded, reply, None)
    result: CheckResultJson = {
        "vectorId": vector_id,
        "operation": loaded.vector.operation,
        "clauses": list(loaded.vector.clauses),
        "verdict": "fail" if outcome == "fail" else "pass",
        "mismatches": mismatches,
    }
    if worded:
        result["messageDifferences"] = worded
    return result
