"""`ledger verify` names the first broken entry: a changed byte, a deleted entry, a swapped pair."""

from __future__ import annotations

import pytest

from apconform.cli import main
from apconform.core.signing import generate_signing_key
from apconform.ledger import Ledger, verify_ledger

from .samples import apx, conformance, profile
from .tampering import envelope, tamper


def _fill(ledger: Ledger) -> list[str]:
    return [ledger.append(s).digest for s in (conformance(), profile(), apx(), apx("demo-2"))]


def _first(ledger: Ledger) -> tuple[int, str]:
    report = verify_ledger(ledger)
    assert not report.intact
    first = report.findings[0]
    return first["seq"], first["code"]


def test_an_intact_ledger_verifies(
    ledger: Ledger, location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    digests = _fill(ledger)
    report = verify_ledger(ledger, anchors=[digests[1], digests[3]])
    assert report.intact and report.entries == 4 and report.head_digest == digests[3]
    assert main(["ledger", "verify", "--ledger", location]) == 0
    out = capsys.readouterr().out
    assert f"4 entries, head entry 4 ({digests[3][:16]}...)" in out
    assert "intact:" in out


def test_a_changed_byte_in_an_entry_names_it(
    ledger: Ledger, location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(ledger)
    original = envelope(ledger, 2)
    changed = original.replace(b'"subject":"mock-mixed"', b'"subject":"mock-mixeD"')
    assert changed != original and len(changed) == len(original)
    tamper(ledger, ("UPDATE ledger_entries SET envelope = :e WHERE seq = 2", {"e": changed}))
    assert _first(ledger) == (2, "APC-LEDGER-CHAIN-BYTES")
    assert main(["ledger", "verify", "--ledger", location]) == 1
    out = capsys.readouterr().out
    assert "BROKEN at entry 2: entry 2: its stored bytes hash to" in out
    assert "entry 3: APC-LEDGER-CHAIN-LINK" in out  # the next entry no longer links to it


def test_a_changed_byte_in_a_document_names_its_entry(ledger: Ledger) -> None:
    _fill(ledger)
    digest = ledger.entry(3).entry["claim"]["documentSha256"]
    tamper(
        ledger,
        (
            "UPDATE ledger_documents SET body_zlib = :b WHERE document_sha256 = :d",
            {"b": b'{"AP":10}', "d": digest},
        ),
    )
    assert _first(ledger) == (3, "APC-LEDGER-CHAIN-DOCUMENT")


def test_a_deleted_entry_is_named(
    ledger: Ledger, location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(ledger)
    tamper(
        ledger,
        ("DELETE FROM ledger_protocols WHERE seq = 2", {}),
        ("DELETE FROM ledger_entries WHERE seq = 2", {}),
    )
    report = verify_ledger(ledger)
    assert [(f["seq"], f["code"]) for f in report.findings] == [
        (3, "APC-LEDGER-CHAIN-GAP"),
        (3, "APC-LEDGER-CHAIN-LINK"),
    ]
    assert report.findings[0]["message"] == "entry 2 missing before entry 3"
    assert main(["ledger", "verify", "--ledger", location, "--format", "json"]) == 1
    assert '"intact": false' in capsys.readouterr().out


def test_a_swapped_pair_is_named(ledger: Ledger) -> None:
    digests = _fill(ledger)
    second, third = envelope(ledger, 2), envelope(ledger, 3)
    tamper(
        ledger,
        ("UPDATE ledger_entries SET entry_sha256 = 'x' WHERE seq = 2", {}),
        (
            "UPDATE ledger_entries SET envelope = :e, entry_sha256 = :d WHERE seq = 3",
            {"e": second, "d": digests[1]},
        ),
        (
            "UPDATE ledger_entries SET envelope = :e, entry_sha256 = :d WHERE seq = 2",
            {"e": third, "d": digests[2]},
        ),
    )
    report = verify_ledger(ledger)
    assert (report.findings[0]["seq"], report.findings[0]["code"]) == (
        2,
        "APC-LEDGER-CHAIN-ORDER",
    )
    assert report.findings[0]["message"] == "the entry stored at position 2 records position 3"


def test_a_removed_tail_is_found_only_against_an_anchor(ledger: Ledger) -> None:
    digests = _fill(ledger)
    tamper(
        ledger,
        ("DELETE FROM ledger_protocols WHERE seq = 4", {}),
        ("DELETE FROM ledger_entries WHERE seq = 4", {}),
    )
    assert verify_ledger(ledger).intact  # a chain cannot show its own missing tail...
    report = verify_ledger(ledger, anchors=[digests[3]])  # ...a kept head digest can
    assert [f["code"] for f in report.findings] == ["APC-LEDGER-CHAIN-ANCHOR"]


def test_an_edited_index_column_is_named(ledger: Ledger) -> None:
    _fill(ledger)
    tamper(
        ledger,
        ("UPDATE ledger_clause_outcomes SET outcome = 'fail' WHERE clause = 'KIT-JCS-1'", {}),
    )
    seq, code = _first(ledger)
    assert (seq, code) == (1, "APC-LEDGER-CHAIN-INDEX")
    assert "ledger_clause_outcomes" in verify_ledger(ledger).findings[0]["message"]


def test_signatures_against_trusted_keys(ledger: Ledger, location: str) -> None:
    mine, theirs = generate_signing_key(), generate_signing_key()
    ledger.append(apx("one", key=mine))
    ledger.append(apx("two", key=theirs))
    ledger.append(apx("three"))
    assert verify_ledger(ledger).intact  # integrity only: every signature matches its data
    report = verify_ledger(ledger, trusted_keys=[mine.public_key_hex])
    assert [(f["seq"], f["code"]) for f in report.findings] == [
        (2, "APC-LEDGER-CHAIN-SIGNATURE"),
        (3, "APC-LEDGER-CHAIN-SIGNATURE"),
    ]
    assert report.findings[1]["message"] == "entry 3 is not signed"
    assert report.signed == 1
    assert (
        main(["ledger", "verify", "--ledger", location, "--trusted-key", mine.public_key_hex]) == 1
    )
