"""The ledger on both backends: append, read, supersede, sign, determinism, parallel writers."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from apconform.core.canonical import canonical_bytes
from apconform.core.errors import ApconformError
from apconform.core.signing import generate_signing_key
from apconform.ledger import EntryFilter, Ledger, verify_ledger
from apconform.ledger.entry import ENTRY_VERSION, entry_bytes

from .samples import PLANTED, apx, conformance, profile
from .writers import append_many


def test_entries_are_chained_and_read_back(ledger: Ledger) -> None:
    first = ledger.append(conformance())
    second = ledger.append(profile())
    third = ledger.append(apx())
    assert [first.seq, second.seq, third.seq] == [1, 2, 3]
    assert first.entry["previous"] is None
    assert second.entry["previous"] == first.digest
    assert third.entry["previous"] == second.digest
    assert first.entry["schemaVersion"] == ENTRY_VERSION
    for stored in (first, second, third):  # the fast serialiser writes exactly RFC 8785 bytes
        assert stored.data == canonical_bytes(stored.entry)
    assert entry_bytes({"b": 1.5, "a": [1e21]}) == canonical_bytes({"b": 1.5, "a": [1e21]})
    assert first.entry["recordedAt"] == "2026-12-01T12:00:01.000Z"
    head = ledger.head()
    assert (head.seq, head.digest) == (3, third.digest)
    summaries = ledger.summaries()
    assert [(s["kind"], s["subject"], s.get("verdict")) for s in summaries] == [
        ("conformance-report", "impl-a", "pass"),
        ("ap1-score-report", "mock-mixed", None),
        ("apx-result", "apx-toy-tutorial run demo-1", "ELIGIBLE"),
    ]
    assert summaries[1]["model"] == "mock-mixed"
    assert summaries[1]["implementation"]["name"] == "apconform-ap1-scorer"
    assert ledger.entry(2).entry == second.entry
    assert ledger.entry(second.digest[:10]).digest == second.digest
    stored = ledger.document(first.entry["claim"]["documentSha256"])
    assert stored == conformance().document
    index = first.entry["index"]
    assert index["verdicts"] == [{"protocol": "kit", "verdict": "pass"}]
    outcomes = {c["clause"]: c["outcome"] for c in index["clauses"]}
    assert outcomes["KIT-JCS-1"] == "pass"
    assert verify_ledger(ledger).intact


def test_listing_filters(ledger: Ledger) -> None:
    ledger.append(conformance("impl-a", "1.0.0"))
    ledger.append(conformance("impl-b", "2.0.0", {PLANTED: "wrong-value"}))
    ledger.append(profile("model-x"))
    by = ledger.summaries
    assert [s["seq"] for s in by(EntryFilter(implementation="impl-b"))] == [2]
    assert [s["seq"] for s in by(EntryFilter(verdict="fail"))] == [2]
    assert [s["seq"] for s in by(EntryFilter(protocol="ap1"))] == [3]
    assert [s["seq"] for s in by(EntryFilter(model="model-x"))] == [3]
    assert [s["seq"] for s in by(EntryFilter(clause="KIT-JCS-1"))] == [1, 2]
    assert [s["seq"] for s in by(EntryFilter(kind="conformance-report"), limit=1, after=1)] == [2]


def test_the_same_inputs_give_the_same_bytes_on_either_backend(
    ledger: Ledger, tmp_path: Path
) -> None:
    from .conftest import Ticks

    submissions = [conformance(), profile(), apx()]
    here = [ledger.append(s).digest for s in submissions]
    with Ledger.open(tmp_path / "other.db", create=True, clock=Ticks()) as other:
        there = [other.append(s).digest for s in submissions]
    assert here == there


def test_a_correction_supersedes_and_keeps_the_old_entry(ledger: Ledger) -> None:
    key = generate_signing_key()
    old = ledger.append(conformance(version="1.0.0", key=key))
    with pytest.raises(ApconformError) as missing_reason:
        conformance(version="1.0.0", key=key, supersedes=[old.digest])
    assert missing_reason.value.code == "APC-LEDGER-REASON"
    with pytest.raises(ApconformError) as foreign:
        ledger.append(
            conformance(
                version="1.0.0",
                key=generate_signing_key(),
                supersedes=[old.digest],
                reason="rerun",
            )
        )
    assert foreign.value.code == "APC-LEDGER-SUPERSEDES-SIGNER"
    with pytest.raises(ApconformError) as unknown:
        ledger.append(conformance(key=key, supersedes=["0" * 64], reason="rerun"))
    assert unknown.value.code == "APC-LEDGER-SUPERSEDES-UNKNOWN"
    assert ledger.head().seq == 1  # nothing was appended by the refused corrections
    new = ledger.append(
        conformance(version="1.0.0", key=key, supersedes=[old.digest], reason="flaky runner")
    )
    summaries = ledger.summaries()
    assert summaries[0]["supersededBy"] == [new.digest]
    assert [s["seq"] for s in ledger.summaries(EntryFilter(current=True))] == [2]
    assert ledger.entry(1).digest == old.digest  # the old entry stays, unchanged
    assert verify_ledger(ledger, trusted_keys=[key.public_key_hex]).intact


def test_rows_cannot_be_updated_or_deleted(ledger: Ledger) -> None:
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    ledger.append(apx())
    for statement in (
        "UPDATE ledger_entries SET verdict = 'INELIGIBLE'",
        "DELETE FROM ledger_entries",
        "DELETE FROM ledger_documents",
        "UPDATE ledger_protocols SET verdict = 'pass'",
    ):
        with pytest.raises(DBAPIError, match="append-only"), ledger.engine.begin() as connection:
            connection.execute(text(statement))
    assert verify_ledger(ledger).intact


def test_a_missing_ledger_is_not_created_by_reading(tmp_path: Path) -> None:
    with pytest.raises(ApconformError) as missing:
        Ledger.open(tmp_path / "none.db")
    assert missing.value.code == "APC-LEDGER-MISSING"
    assert not (tmp_path / "none.db").exists()
    with pytest.raises(ApconformError) as location:
        Ledger.open("mysql://somewhere/db")
    assert location.value.code == "APC-LEDGER-LOCATION"


def test_a_newer_schema_is_refused(ledger: Ledger, location: str) -> None:
    from sqlalchemy import text

    with ledger.engine.begin() as connection:
        connection.execute(text("UPDATE ledger_schema_version SET version_num = 'r9999'"))
    with pytest.raises(ApconformError) as newer:
        Ledger.open(location)
    assert newer.value.code == "APC-LEDGER-SCHEMA"
    assert "'r9999'" in newer.value.message


def test_parallel_writers_keep_one_linear_chain(location: str) -> None:
    Ledger.open(location, create=True).close()
    writers, each = 4, 12
    context = multiprocessing.get_context("spawn")
    with context.Pool(writers) as pool:
        results = pool.starmap(append_many, [(location, w, each) for w in range(writers)])
    seqs = sorted(seq for result in results for seq in result)
    assert seqs == list(range(1, writers * each + 1))  # nothing lost, nothing doubled
    with Ledger.open(location) as ledger:
        report = verify_ledger(ledger)
        assert report.intact, report.findings
        assert report.entries == writers * each
        runs = sorted(s["subject"] for s in ledger.summaries())
    assert runs == sorted(
        f"apx-toy-tutorial run writer-{w}-{n}" for w in range(writers) for n in range(each)
    )
