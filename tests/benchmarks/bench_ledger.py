"""Benchmark: the results ledger on SQLite and on PostgreSQL.

Appends 1,000 conformance reports of 100 case records each (100,000 case
records: 100 implementations x 10 versions, each report quoting 200 clauses,
every case citing two), one transaction per report, then times verifying the
whole chain and the matrix query (100 implementations x 200 clauses). Goals:
append at least 5,000 case records per second on SQLite; the matrix in at
most 1 s. The PostgreSQL server is started here (initdb and pg_ctl in a
temporary folder, fsync on) and stopped afterwards.

Run: .venv/bin/python tests/benchmarks/bench_ledger.py [--reports N] [--sqlite-only] [--save]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from postgres_support import running_postgres
from result_samples import conformance_records
from results import figure, load_average, save

from apconform.conformance.summary import count_outcomes
from apconform.core.canonical import sha256_hex
from apconform.ledger import Ledger, build_matrix, prepare, verify_ledger
from apconform.results import ResultKind

IMPLEMENTATIONS, VERSIONS, CASES, CLAUSES = 100, 10, 100, 200
APPEND_GOAL, MATRIX_GOAL = 5_000.0, 1.0


def _template() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    records = conformance_records()
    return records[0], records[1], records[-1]


def report(implementation: int, version: int) -> list[dict[str, Any]]:
    """A valid report: 100 cases over 200 clauses; a few cases fail in later versions."""
    header, case, footer = (copy.deepcopy(part) for part in _TEMPLATE)
    clause_ids = [f"BENCH-C-{n:03d}" for n in range(CLAUSES)]
    header["implementation"].update(name=f"impl-{implementation:03d}", version=f"{version}.0.0")
    header["clauses"] = [
        {**header["clauses"][0], "id": clause, "anchor": clause, "protocol": "kit"}
        for clause in clause_ids
    ]
    cases = []
    for n in range(CASES):
        failing = version > 5 and (n + implementation) % 37 == 0
        cases.append(
            {
                **case,
                "seq": n + 1,
                "vector": f"bench-vector-{n:03d}",
                "vectorFile": f"kit/bench/bench-vector-{n:03d}.json",
                "clauses": clause_ids[2 * n : 2 * n + 2],
                "outcome": "fail" if failing else "pass",
            }
        )
    footer["counts"] = count_outcomes(cases)
    footer["protocols"] = [
        {**footer["protocols"][0], "counts": footer["counts"], "verdict": footer["verdict"]}
    ]
    footer["casesSha256"] = sha256_hex(cases)
    return [header, *cases, footer]


_TEMPLATE = _template()


def run(name: str, location: str, reports: int) -> dict[str, float]:
    documents = [report(i % IMPLEMENTATIONS, i // IMPLEMENTATIONS) for i in range(reports)]
    started = time.perf_counter()
    submissions = [prepare(ResultKind.CONFORMANCE_REPORT, document) for document in documents]
    checking = time.perf_counter() - started
    with Ledger.open(location, create=True) as ledger:
        started = time.perf_counter()
        for submission in submissions:
            ledger.append(submission)
        append = time.perf_counter() - started
        started = time.perf_counter()
        verification = verify_ledger(ledger)
        verify = time.perf_counter() - started
        assert verification.intact and verification.entries == reports
        timings = []
        for _ in range(5):
            started = time.perf_counter()
            matrix = build_matrix(ledger, "kit")
            timings.append(time.perf_counter() - started)
        assert len(matrix["rows"]) == CLAUSES
    cases = reports * CASES
    figures = {
        "append_s": append,
        "check_s": checking,
        "cases_per_s": cases / append,
        "reports_per_s": reports / append,
        "verify_s": verify,
        "matrix_s": min(timings),
        "columns": float(len(matrix["columns"])),
    }
    print(
        f"{name:<10} append {cases:,} case records in {reports:,} reports: {append:.1f} s "
        f"({figures['cases_per_s']:,.0f} case records/s, "
        f"{figures['reports_per_s']:.0f} reports/s); "
        f"checking and hashing them first {checking:.1f} s ({cases / checking:,.0f} case "
        f"records/s); verify {verify:.1f} s; matrix {len(matrix['columns'])} x {CLAUSES}: "
        f"{figures['matrix_s'] * 1000:.0f} ms (best of 5)"
    )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=IMPLEMENTATIONS * VERSIONS)
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as folder:
        sqlite = run("sqlite", str(Path(folder) / "ledger.db"), args.reports)
    print(
        f"sqlite goal: append >= {APPEND_GOAL:,.0f} case records/s: "
        f"{'met' if sqlite['cases_per_s'] >= APPEND_GOAL else 'NOT met'}; matrix <= "
        f"{MATRIX_GOAL:.0f} s: {'met' if sqlite['matrix_s'] <= MATRIX_GOAL else 'NOT met'}"
    )
    postgres: dict[str, float] | None = None
    if not args.sqlite_only:
        with running_postgres(fsync=True) as server:
            postgres = run("postgresql", server.create_database(), args.reports)
        print(
            f"postgresql matrix <= {MATRIX_GOAL:.0f} s: "
            f"{'met' if postgres['matrix_s'] <= MATRIX_GOAL else 'NOT met'}"
        )
    if args.save:
        rows = []
        for name, measured in (("SQLite", sqlite), ("PostgreSQL", postgres)):
            if measured is None:
                continue
            rows += [
                figure(
                    f"{name}: append {args.reports * CASES:,} case records, "
                    "one transaction per report",
                    f"{measured['cases_per_s']:,.0f} case records/s",
                    goal=f"at least {APPEND_GOAL:,.0f}/s" if name == "SQLite" else None,
                    met=measured["cases_per_s"] >= APPEND_GOAL if name == "SQLite" else None,
                ),
                figure(f"{name}: verify the whole chain", f"{measured['verify_s']:.1f} s"),
                figure(
                    f"{name}: the matrix, {int(measured['columns'])} x {CLAUSES}, best of 5",
                    f"{measured['matrix_s'] * 1000:.0f} ms",
                    goal=f"at most {MATRIX_GOAL:.0f} s",
                    met=measured["matrix_s"] <= MATRIX_GOAL,
                ),
            ]
        load = {"before": load_before, "after": load_average()}
        save("ledger", {"loadAverage": load, "reports": args.reports}, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
