"""Queries over the ledger: the implementations x clauses matrix, histories, AP-1 profiles.

"Latest" means the most recently appended entry that no later entry
supersedes. The matrix reads only indexed columns (no document is parsed),
so it stays fast for hundreds of implementations and clauses.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection

from apconform.ledger.store import EntryFilter, Ledger, entry_summary, superseding
from apconform.ledger.tables import clause_outcomes, entries, protocols, supersessions
from apconform.results import diff_outcomes

__all__ = [
    "build_matrix",
    "conformance_history",
    "latest_profiles",
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


def build_matrix(ledger: Ledger, protocol: str) -> dict[str, Any]:
    """The ``LedgerMatrix`` of one protocol."""
    with ledger.reading() as connection:
        columns = _latest(connection, protocol)
        position = {int(row.seq): i for i, row in enumerate(columns)}
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
    rows: dict[str, dict[str, Any]] = {}
    for cell in cells:
        row = rows.setdefault(
            str(cell.clause),
            {"clause": cell.clause, "level": cell.level, "outcomes": ["untested"] * len(columns)},
        )
        row["outcomes"][position[int(cell.seq)]] = cell.outcome
    return {
        "protocol": protocol,
        "columns": [
            {
                "implementation": {
                    "name": row.implementation_name,
                    "version": row.implementation_version,
                },
                "seq": int(row.seq),
                "entrySha256": row.entry_sha256,
                "verdict": row.verdict,
                "recordedAt": row.recorded_at,
            }
            for row in columns
        ],
        "rows": [rows[clause] for clause in sorted(rows)],
    }


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
    return [entry_summary(row, later.get(str(row.entry_sha256), [])) for row in rows]
