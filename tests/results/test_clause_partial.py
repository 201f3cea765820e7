"""A clause some of whose cases passed while others did not run is "partial" everywhere.

The HTML report already said so; the ledger's clause outcomes (derived again from the
signed document on verify) and the results site's matrix said "pass", green. A real
report: the faulty implementation skips one of KIT-JCS-1's twelve vectors.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from result_samples import PLANTED, conformance_records

from apconform.ledger import Ledger, prepare, verify_ledger
from apconform.results import ResultKind, clause_outcome, clause_results
from apconform.site import write_site


class _Ticks:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def test_the_outcome_of_a_clause_follows_the_reports_order() -> None:
    assert clause_outcome(["pass", "skipped"]) == "partial"
    assert clause_outcome(["xfail", "skipped"]) == "partial"
    assert clause_outcome(["pass", "skipped", "errored"]) == "errored"
    assert clause_outcome(["pass", "skipped", "fail"]) == "fail"
    assert clause_outcome(["pass", "pass"]) == "pass"
    assert clause_outcome(["skipped"]) == "skipped"
    assert clause_outcome([]) == "untested"


def test_a_partly_skipped_clause_is_partial_in_the_ledger_and_on_the_site(tmp_path: Path) -> None:
    records = conformance_records({PLANTED: "skip"}, name="impl-s", version="1.0.0")
    jcs = [c["outcome"] for c in records[1:-1] if "KIT-JCS-1" in c["clauses"]]
    assert sorted(jcs) == ["pass"] * 11 + ["skipped"]
    [row] = [r for r in clause_results(records) if r["clause"] == "KIT-JCS-1"]
    assert (row["outcome"], row["cases"]) == ("partial", 12)
    made = datetime(2026, 12, 1, 11, 0, 0, tzinfo=UTC)
    with Ledger.open(str(tmp_path / "ledger.db"), create=True, clock=_Ticks()) as ledger:
        ledger.append(prepare(ResultKind.CONFORMANCE_REPORT, records, created_at=made))
        assert verify_ledger(ledger).intact
        write_site(ledger, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    row_html = index[index.index("<code>KIT-JCS-1</code>") :]
    row_html = row_html[: row_html.index("</tr>")]
    assert 'class="o-partial" title="partial"' in row_html
    assert "\u2713 pass" not in row_html
