"""The results site says at the top what fails, uses the reports' words, and counts in English.

A ledger of three kit reports (one failing) is written to a site on an SQLite file; its
overview opens on the implementations whose latest report does not pass, calls a clause no
vector can test "untestable" (as every report does), and never writes "(s)".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from result_samples import PLANTED, conformance_records

from apconform.conformance.clauses import load_clause_registry
from apconform.ledger import Ledger, prepare
from apconform.results import ResultKind
from apconform.site import write_site


class _Ticks:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def _report(name: str, version: str, faults: dict[str, str] | None = None) -> object:
    records = conformance_records(faults, name=name, version=version)
    # dated before the ledger's (fixed) clock: a ledger refuses claims from its future
    made = datetime(2026, 12, 1, 11, 0, 0, tzinfo=UTC)
    return prepare(ResultKind.CONFORMANCE_REPORT, records, created_at=made)


def test_the_overview_names_what_fails_first_in_the_reports_words(tmp_path: Path) -> None:
    with Ledger.open(str(tmp_path / "ledger.db"), create=True, clock=_Ticks()) as ledger:
        ledger.append(_report("impl-a", "1.0.0"))  # type: ignore[arg-type]
        ledger.append(_report("impl-b", "2.0.0", {PLANTED: "wrong-value"}))  # type: ignore[arg-type]
        write_site(ledger, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    body = index[index.index("</h1>") :]
    # what fails is the first thing under the title
    assert body.startswith('</h1><div class="status bad"><b>Not passing now:</b><ul><li>')
    status = body[: body.index("</div>")]
    assert "<b>impl-b 2.0.0</b>: kit FAIL, 1 clause failing or erroring" in status
    assert "impl-a" not in status
    # no "(s)": one report each, two implementations
    assert "(s)" not in index
    assert "(1 report)</li>" in index
    assert "kit: 2 implementations \u00d7 " in index
    # a clause no vector can test says "untestable", like the reports
    untestable = [
        c.id
        for c in load_clause_registry().registry.clauses
        if c.protocol == "kit" and c.untestable
    ]
    assert untestable
    row = index[index.index(f"<code>{untestable[0]}</code>") :]
    row = row[: row.index("</tr>")]
    assert row.count('class="o-untestable"') == 2 and "untested" not in row
