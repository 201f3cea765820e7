"""Queries over the ledger: the implementations x clauses matrix, histories, AP-1 profiles.

"Latest" means the most recently appended entry that no later entry
supersedes. The queries read only indexed columns (no document is parsed),
so they stay fast for hundreds of implementations and clauses; the columns
are what the documents say as long as the ledger verifies. The results site
builds the same documents from the documents themselves, through
:func:`matrix_document` and :func:`history_document`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection

from apconform.ledger.store import EntryFilter, Ledger, entry_summary, superseding
from apconform.ledger.tables import clause_outcomes, entries, protocols, supersessions
from apconform.results import diff_outcomes

__all__ = [
    "build_matrix",
    "conformance_history",
    "history_document",
    "latest_profiles",
    "matrix_column",
    "matrix_document",
    "matrix_protocols",
]

_CONFORMANCE = "conformance-report"


def _current() -> Any:
    return entries.c.entry_sha256.not_in(select(supersessions.c.superseded_sha256))


def matrix_protocols(ledger: Ledger) -> list[str]:
    """The protocols some conformance report in the ledger covers, sorted."""
    with ledger.reading() as connection:
        rows = connection.execute(
            select(protocols.c.protocol)
            .join(entries, entries.c.seq == protocols.c.seq)
            .where(entries.c.kind == _CONFORMANCE)
            .distinct()
            .order_by(protocols.c.protocol)
        ).all()
    return [str(row.protocol) for row in rows]


def _latest(connection: Connection, protocol: str) -> list[Any]:
    latest = (
        select(entries.c.implementation_name, func.max(entries.c.seq).label("seq"))
        .join(protocols, protocols.c.seq == entries.c.seq)
        .where(entries.c.kind == _CONFORMANCE, protocols.c.protocol == protocol, _current())
        .group_by(entries.c.implementation_name)
        .subquery()
    )
    return list(
        connection.execute(
            select(
                entries.c.seq,
                entries.c.entry_sha256,
                entries.c.implementation_name,
                entries.c.implementation_version,
                entries.c.recorded_at,
                entries.c.signer_key_id,
                protocols.c.verdict,
            )
            .join(latest, latest.c.seq == entries.c.seq)
            .join(
                protocols,
                and_(protocols.c.seq == entries.c.seq, protocols.c.protocol == protocol),
            )
            .order_by(entries.c.implementation_name)
        ).all()
    )


def matrix_column(
    name: str,
    version: str,
    seq: int,
    digest: str,
    verdict: str,
    recorded_at: str,
    signer: str | None,
) -> dict[str, Any]:
    """One ``MatrixColumn``: an implementation's latest report and who signed it."""
    column: dict[str, Any] = {
        "implementation": {"name": name, "version": version},
        "seq": seq,
        "entrySha256": digest,
        "verdict": verdict,
        "recordedAt": recorded_at,
    }
    if signer is not None:
        column["signer"] = signer
    return column


def matrix_document(
    protocol: str,
    columns: Sequence[dict[str, Any]],
    cells: Iterable[tuple[int, str, str, str]],
) -> dict[str, Any]:
    """The ``LedgerMatrix`` of ``columns`` and their cells (column position, clause, level,
    outcome); a clause a column's report does not quote is untested there."""
    rows: dict[str, dict[str, Any]] = {}
    for position, clause, level, outcome in cells:
        row = rows.setdefault(
            clause, {"clause": clause, "level": level, "outcomes": ["untested"] * len(columns)}
        )
        row["outcomes"][position] = outcome
    return {
        "protocol": protocol,
        "columns": list(columns),
        "rows": [rows[clause] for clause in sorted(rows)],
    }


def build_matrix(ledger: Ledger, protocol: str) -> dict[str, Any]:
    """The ``LedgerMatrix`` of one protocol."""
    with ledger.reading() as connection:
        latest = _latest(connection, protocol)
        position = {int(row.seq): i for i, row in enumerate(latest)}
        cells = connection.execute(
            select(
                clause_outcomes.c.seq,
                clause_outcomes.c.clause,
                clause_outcomes.c.level,
                clause_outcomes.c.outcome,
            ).where(
                clause_outcomes.c.protocol == protocol,
                clause_outcomes.c.seq.in_(list(position)),
            )
        ).all()
    columns = [
        matrix_column(
            row.implementation_name,
            row.implementation_version,
            int(row.seq),
            row.entry_sha256,
            row.verdict,
            row.recorded_at,
            row.signer_key_id,
        )
        for row in latest
    ]
    return matrix_document(
        protocol,
        columns,
        ((position[int(c.seq)], str(c.clause), str(c.level), str(c.outcome)) for c in cells),
    )


def conformance_history(ledger: Ledger, implementation: str) -> list[dict[str, Any]]:
    """An implementation's conformance entries, oldest first, each compared with the one before.

    Each item is the entry's summary plus ``regressions`` (clauses newly failing
    since the previous current entry) and ``fixed`` (clauses newly passing);
    superseded entries are listed but skipped as a basis of comparison.
    """
    summaries = ledger.summaries(EntryFilter(kind=_CONFORMANCE, implementation=implementation))
    with ledger.reading() as connection:
        outcomes: dict[int, dict[str, str]] = {}
        for row in connection.execute(
            select(clause_outcomes.c.seq, clause_outcomes.c.clause, clause_outcomes.c.outcome)
            .join(entries, entries.c.seq == clause_outcomes.c.seq)
            .where(entries.c.kind == _CONFORMANCE, entries.c.implementation_name == implementation)
        ):
            outcomes.setdefault(int(row.seq), {})[str(row.clause)] = str(row.outcome)
    return history_document(summaries, outcomes)


def history_document(
    summaries: Iterable[dict[str, Any]], outcomes: Mapping[int, dict[str, str]]
) -> list[dict[str, Any]]:
    """Each summary with the clauses newly failing and newly passing since the previous current
    entry (``outcomes``: each entry's clause outcomes, by sequence number)."""
    history = []
    basis: dict[str, str] | None = None
    for summary in summaries:
        mine = outcomes.get(summary["seq"], {})
        changes = diff_outcomes(basis, mine) if basis is not None else []
        history.append(
            {
                **summary,
                "regressions": [c["item"] for c in changes if c["change"] == "newly-failing"],
                "fixed": [c["item"] for c in changes if c["change"] == "newly-passing"],
            }
        )
        if not summary["supersededBy"]:
            basis = mine
    return history


def latest_profiles(ledger: Ledger) -> list[dict[str, Any]]:
    """The latest current AP-1 score report entry per subject (the model, and for a run imported
    from another harness such as Inspect AI, who ran it), by model name."""
    with ledger.reading() as connection:
        latest = (
            select(func.max(entries.c.seq).label("seq"))
            .where(entries.c.kind == "ap1-score-report", _current())
            .group_by(entries.c.subject)
            .subquery()
        )
        rows = connection.execute(
            select(entries)
            .join(latest, latest.c.seq == entries.c.seq)
            .order_by(entries.c.model, entries.c.seq)
        ).all()
        later = superseding(connection, [str(row.entry_sha256) for row in rows])
    return [entry_summary(row._mapping, later.get(str(row.entry_sha256), [])) for row in rows]
