"""The ledger's submit route: a real result under a claim that names it.

The submission's document is free-form in the schema (the ledger tells its kind from its
content), so a generated one is never a result and every positive body was refused
(APC-RESULT-UNKNOWN, or the digest or date that cannot agree with a random document).
The repair puts in the APx result of the ledger's own example, its run named after the
generated body (a new subject each time: neither a duplicate nor older than a result of
its subject), under an unsigned claim that names its digest, dated at a fixed moment in
the past. The fuzz server accepts unsigned results (``--open-submission --allow-unsigned``).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from functools import cache
from typing import Any

from apconform.api.example_runs import LEDGER_VECTOR
from apconform.api.examples import vector_input
from apconform.ledger import prepare
from apconform.results import ResultKind

from .shared import Body, _digest

MOMENT = datetime(2026, 12, 1, tzinfo=UTC)
"""When every repaired claim says it was made."""


@cache
def _result() -> dict[str, Any]:
    document = vector_input(LEDGER_VECTOR)["document"]
    assert isinstance(document, dict)
    return document


def _submission(body: Body) -> None:
    """The example's APx result for a run named by the generated body, claimed unsigned."""
    document = copy.deepcopy(_result())
    document["runId"] = f"fuzz-{_digest(body)}"
    submission = prepare(ResultKind.APX_RESULT, document, created_at=MOMENT)
    body["claim"], body["document"] = submission.claim, submission.document
