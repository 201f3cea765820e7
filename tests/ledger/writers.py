"""A writer process for the parallel-append tests (importable by spawned processes)."""

from __future__ import annotations

from apconform.apx import evaluate_document
from apconform.apx.tutorial import tutorial_campaign
from apconform.ledger import Ledger, prepare
from apconform.results import ResultKind


def append_many(location: str, writer: int, count: int) -> list[int]:
    """Append ``count`` APx results labelled with the writer's number; return their positions."""
    manifest, run = tutorial_campaign()
    result = evaluate_document(manifest, run)
    seqs = []
    with Ledger.open(location, create=True) as ledger:
        for number in range(count):
            document = {**result, "runId": f"writer-{writer}-{number}"}
            seqs.append(ledger.append(prepare(ResultKind.APX_RESULT, document)).seq)
    return seqs
