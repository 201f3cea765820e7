"""The scoring operations over whole documents and the statistics, for the vectors.

``ap1.score_execution``, ``ap1.rescore`` and ``ap1.adjudication_sheets`` take
the sealed documents themselves; the others take small values.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from apconform.ap1.operations.answers import AdjudicationSheets, Agreement
from apconform.ap1.operations.vector_inputs import (
    RUN_DOCUMENTS,
    STAT_INPUT,
    guarded,
    member,
    optional,
)
from apconform.ap1.scoring.adjudication.merge import merge_sheets
from apconform.ap1.scoring.adjudication.sheets import COLUMNS, sheet_csv, sheet_key
from apconform.ap1.scoring.api import prepare_inputs, rescore, score_execution
from apconform.ap1.scoring.rates import rate
from apconform.core.errors import ApconformError
from apconform.core.stats import cohen_kappa

__all__: list[str] = []

_MAX_N = 100_000


def _documents(value: object) -> Mapping[str, object]:
    """The input, which holds the sealed documents by name (the scorer checks each)."""
    if not isinstance(value, dict):
        raise TypeError("the input is not an object")  # the guard refuses it, as it always did
    return value


def _seal(value: object) -> dict[str, object] | None:
    """The input's "seal" record, or None without one."""
    seal = optional(value, "seal")
    if seal is not None and not isinstance(seal, dict):
        raise TypeError("the seal is not an object")  # the guard refuses it
    return seal


@guarded("ap1.score_execution", inputs=RUN_DOCUMENTS)
def score_execution_op(value: object) -> Mapping[str, object]:
    """Input: the sealed documents and "record"; the execution's scores."""
    return score_execution(member(value, "record", dict), prepare_inputs(_documents(value)))


@guarded("ap1.rescore", inputs={**RUN_DOCUMENTS, "/seal": "ap1-seal"})
def rescore_op(value: object) -> Mapping[str, object]:
    """Input: the sealed documents, "records" (the transcript) and "seal"?; the report."""
    report = rescore(
        member(value, "records", list), prepare_inputs(_documents(value)), seal=_seal(value)
    )
    return report.document


@guarded("ap1.proportion")
def proportion_op(value: object) -> Mapping[str, object] | None:
    """Input {"k", "n", "failures"}; the rate document with every interval."""
    k, n = int(member(value, "k", str)), int(member(value, "n", str))
    if n < 1 or not 0 <= k <= n or n > _MAX_N:
        raise ApconformError(
            STAT_INPUT, f"k = {k} of n = {n} is not a rate (n from 1 to {_MAX_N})", path="$.n"
        )
    return rate(k, n, failures=member(value, "failures", bool))


@guarded("ap1.cohen_kappa")
def cohen_kappa_op(value: object) -> Agreement:
    """Input {"pairs": [[mark of scorer 1, mark of scorer 2], ...]}; agreement and kappa."""
    pairs = [(str(a), str(b)) for a, b in member(value, "pairs", list)]
    if not pairs:
        raise ApconformError(STAT_INPUT, "no row was marked by both scorers", path="$.pairs")
    kappa = cohen_kappa(pairs)
    ten = Decimal("1E-10")
    return {
        "n": str(kappa.n),
        "agreed": str(kappa.agreed),
        "rawAgreement": format(kappa.raw_agreement.quantize(ten), "f"),
        "kappa": None if kappa.kappa is None else format(kappa.kappa.quantize(ten), "f"),
        "caveat": kappa.caveat,
    }


@guarded("ap1.merge_adjudication")
def merge_adjudication_op(value: object) -> Mapping[str, object]:
    """Input {"key", "sheet1", "sheet2" (CSV texts), "names", "settled"?, "acceptUnmarked"?,
    "completed"?}; the merged adjudication."""
    names = member(value, "names", list)
    settled = optional(value, "settled")
    completed = optional(value, "completed")
    return merge_sheets(
        member(value, "key", dict),
        member(value, "sheet1", str).encode("utf-8"),
        member(value, "sheet2", str).encode("utf-8"),
        (str(names[0]), str(names[1])),
        settled=settled.encode("utf-8") if isinstance(settled, str) else None,
        completed=completed if isinstance(completed, str) else None,
        accept_unmarked=optional(value, "acceptUnmarked") is True,
    )


@guarded("ap1.adjudication_sheets", inputs=RUN_DOCUMENTS)
def adjudication_sheets_op(value: object) -> AdjudicationSheets:
    """Input: the sealed documents and "records"; the key and scorer 1's sheet of routed rows."""
    report = rescore(member(value, "records", list), prepare_inputs(_documents(value)))
    rows = report.sheet_rows
    return {
        "rows": str(len(rows)),
        "columns": list(COLUMNS),
        "key": sheet_key(rows, report.seal_hash),
        "scorer1Csv": sheet_csv(rows, 1),
    }
