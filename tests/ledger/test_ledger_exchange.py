"""Export and import as JSON lines: digests survive, a bad file imports nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from apconform.cli import main
from apconform.core.errors import ApconformError
from apconform.core.signing import generate_signing_key
from apconform.ledger import Ledger, export_records, import_records, verify_ledger

from .samples import apx, conformance, profile


def _export(ledger: Ledger, since: int = 1) -> list[bytes]:
    out = io.StringIO()
    export_records(ledger, out, since=since)
    return [line.encode("utf-8") for line in out.getvalue().splitlines()]


def test_an_export_rebuilds_the_same_chain(ledger: Ledger, tmp_path: Path) -> None:
    key = generate_signing_key()
    old = ledger.append(conformance(key=key))
    ledger.append(profile())
    ledger.append(conformance(key=key, supersedes=[old.digest], reason="rerun"))
    lines = _export(ledger)
    assert len(lines) == 3
    with Ledger.open(tmp_path / "copy.db", create=True) as copy:
        summary = import_records(copy, lines)
        assert (summary.appended, summary.skipped, summary.rechained) == (3, 0, False)
        assert [s["entrySha256"] for s in copy.summaries()] == [
            s["entrySha256"] for s in ledger.summaries()
        ]
        assert copy.summaries()[0]["supersededBy"] == [ledger.head().digest]
        assert verify_ledger(copy, trusted_keys=None).intact
        again = import_records(copy, lines)  # the same file twice: nothing new
        assert (again.appended, again.skipped) == (0, 3)
        ledger.append(apx())
        more = import_records(copy, _export(ledger, since=3))  # an increment continues it
        assert (more.appended, more.skipped) == (1, 1)
        assert copy.head() == ledger.head()


def test_another_history_needs_rechain(ledger: Ledger, tmp_path: Path) -> None:
    key = generate_signing_key()
    old = ledger.append(apx("one", key=key))
    ledger.append(apx("two", key=key))
    ledger.append(apx("three"))
    lines = _export(ledger)
    with Ledger.open(tmp_path / "other.db", create=True) as other:
        other.append(profile())
        with pytest.raises(ApconformError) as fork:
            import_records(other, lines)
        assert fork.value.code == "APC-LEDGER-IMPORT-FORK"
        assert other.head().seq == 1  # nothing imported
        summary = import_records(other, lines, rechain=True)
        assert (summary.appended, summary.rechained) == (3, True)
        moved = other.entry(2).entry
        assert moved["origin"] == {"seq": 1, "entrySha256": old.digest}
        assert moved["claim"] == old.entry["claim"]  # the signed claim is unchanged
        trusted = verify_ledger(other, trusted_keys=[key.public_key_hex])
        assert [(f["seq"], f["code"]) for f in trusted.findings] == [
            (1, "APC-LEDGER-CHAIN-SIGNATURE"),  # the profile is not signed
            (4, "APC-LEDGER-CHAIN-SIGNATURE"),  # nor is run three
        ]
        assert verify_ledger(other).intact


def test_an_edited_line_imports_nothing(ledger: Ledger, tmp_path: Path) -> None:
    ledger.append(apx("one"))
    ledger.append(apx("two"))
    lines = _export(ledger)
    record = json.loads(lines[1])
    record["document"]["AP"] = 1000
    broken = [lines[0], json.dumps(record).encode("utf-8")]
    with Ledger.open(tmp_path / "copy.db", create=True) as copy:
        with pytest.raises(ApconformError) as refused:
            import_records(copy, broken)
        assert refused.value.code == "APC-LEDGER-IMPORT"
        assert refused.value.message.startswith("line 2: APC-LEDGER-DIGEST")
        assert copy.head().seq == 0


def test_export_and_import_commands(
    ledger: Ledger, location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger.append(apx())
    target = tmp_path / "export.jsonl"
    assert main(["ledger", "export", "--ledger", location, "--output", str(target)]) == 0
    copy = tmp_path / "copy.db"
    assert main(["ledger", "import", str(target), "--ledger", str(copy)]) == 0
    assert "1 appended byte for byte" in capsys.readouterr().out
    with Ledger.open(copy) as opened:
        assert opened.head() == ledger.head()
