"""A forged copy: an entry's index rewritten, the chain re-hashed around it (issue 27, findings 1
and 4). The victim's signature still verifies, since it covers the claim, not the index; what
gives the forgery away is the index derived again from the signed document."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from apconform.cli import main
from apconform.core.errors import ApconformError
from apconform.core.signing import Ed25519Key, generate_signing_key
from apconform.ledger import Ledger, export_records, import_records, verify_ledger
from apconform.site import write_site

from .samples import PLANTED, apx, conformance
from .tampering import forge_export, forged_ledger, pass_as


def _victim_export(ledger: Ledger) -> tuple[Ed25519Key, list[bytes]]:
    """A ledger whose entry 1 is the victim's signed, failing report; entry 2 follows it."""
    victim = generate_signing_key()
    ledger.append(conformance("victim-impl", "2.0.0", {PLANTED: "wrong-value"}, key=victim))
    ledger.append(apx("after", key=victim))
    assert ledger.summaries()[0]["verdict"] == "fail"
    return victim, [line.encode("utf-8") for line in _lines(ledger)]


def _lines(ledger: Ledger) -> list[str]:
    out = io.StringIO()
    export_records(ledger, out)
    return out.getvalue().splitlines()


def test_import_refuses_a_rewritten_index(
    ledger: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim, lines = _victim_export(ledger)
    forged = forge_export(lines, 1, pass_as("competitor-impl"))
    assert forged[1] != lines[1]  # entry 2 was re-hashed to follow the rewritten entry 1
    with Ledger.open(tmp_path / "copy.db", create=True) as copy:
        with pytest.raises(ApconformError) as refused:
            import_records(copy, forged, trusted_keys=[victim.public_key_hex])
        assert copy.head().seq == 0  # nothing imported
    assert refused.value.code == "APC-LEDGER-IMPORT-FACTS"
    assert refused.value.path == "$.entry.index.subject"
    assert refused.value.message.startswith(
        "line 1 (entry 1): index.subject is 'competitor-impl', but its signed document says "
        "'victim-impl' (and "
    )
    export = tmp_path / "forged.jsonl"
    export.write_bytes(b"\n".join(forged) + b"\n")
    command = ["ledger", "import", str(export), "--ledger", str(tmp_path / "copy2.db")]
    assert main([*command, "--trusted-key", victim.public_key_hex]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error APC-LEDGER-IMPORT-FACTS at $.entry.index.subject: line 1")
    with Ledger.open(tmp_path / "copy3.db", create=True) as copy:  # the faithful export imports
        assert import_records(copy, lines, trusted_keys=[victim.public_key_hex]).appended == 2


def test_verify_refuses_a_rewritten_index(
    ledger: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim, copy = _forged_copy(ledger, tmp_path)
    with Ledger.open(copy) as opened:
        listed = opened.summaries()[0]  # the query columns say what the forger wrote...
        assert (listed["implementation"]["name"], listed["verdict"]) == ("competitor-impl", "pass")
        assert listed["signer"] == victim.key_id
        report = verify_ledger(opened, trusted_keys=[victim.public_key_hex])
    assert report.signed == 2  # ...the victim's signatures still verify...
    assert [(f["seq"], f["code"]) for f in report.findings] == [(1, "APC-LEDGER-CHAIN-FACTS")]
    assert report.findings[0]["message"].startswith(  # ...and the signed document says otherwise
        "entry 1: index.subject is 'competitor-impl', but its signed document says 'victim-impl'"
    )
    command = ["ledger", "verify", "--ledger", str(copy), "--trusted-key", victim.public_key_hex]
    assert main(command) == 1
    assert "BROKEN at entry 1: entry 1: index.subject is 'competitor-impl'" in (
        capsys.readouterr().out
    )
    faithful = tmp_path / "faithful.db"  # the same way, with the true export: it verifies
    forged_ledger(faithful, [line.encode("utf-8") for line in _lines(ledger)])
    with Ledger.open(faithful) as opened:
        assert verify_ledger(opened, trusted_keys=[victim.public_key_hex]).intact


def _forged_copy(ledger: Ledger, tmp_path: Path) -> tuple[Ed25519Key, Path]:
    """The victim's ledger, its entry 1 rewritten to say competitor-impl passed, as a file."""
    victim, lines = _victim_export(ledger)
    copy = tmp_path / "copy.db"
    forged_ledger(copy, forge_export(lines, 1, pass_as("competitor-impl")))
    return victim, copy


def test_the_site_refuses_a_ledger_that_does_not_verify(
    ledger: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim, copy = _forged_copy(ledger, tmp_path)
    site = tmp_path / "site"
    assert main(["ledger", "site", "--ledger", str(copy), str(site)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "error APC-LEDGER-SITE-BROKEN: the ledger does not verify: entry 1: APC-LEDGER-CHAIN-FACTS"
    )
    assert "nothing was written" in err and "--publish-broken" in err
    assert not site.exists()
    with Ledger.open(copy) as opened, pytest.raises(ApconformError) as refused:
        write_site(opened, site, trusted_keys=[victim.public_key_hex])
    assert refused.value.code == "APC-LEDGER-SITE-BROKEN"
    assert not site.exists()


def test_a_broken_ledger_published_anyway_says_so_on_every_page(
    ledger: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim, copy = _forged_copy(ledger, tmp_path)
    site = tmp_path / "site"
    command = ["ledger", "site", "--ledger", str(copy), str(site), "--publish-broken"]
    assert main([*command, "--trusted-key", victim.public_key_hex]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"wrote 5 pages to {site}")
    assert "does not verify (1 findings); every page says so" in captured.err
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 5  # overview, one history, two entries, one full report
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "This ledger does not verify." in text, page
        assert "The first broken entry is entry 1: <code>APC-LEDGER-CHAIN-FACTS</code>" in text
        # the forged name appears only where the finding is quoted: in the banner, and on the
        # broken entry's page in its list of findings
        assert text.count("competitor-impl") == (2 if page.name == "1.html" else 1), page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert [p.name[: len("victim-impl")] for p in (site / "implementations").iterdir()] == [
        "victim-impl"
    ]
    assert "kit: 1 implementation \u00d7" in index and "\u2717 FAIL" in index  # the signed report's
    assert f"fail<br>signed by {victim.key_id}" in index
    entry = (site / "entries" / "1.html").read_text(encoding="utf-8")
    assert "<code>victim-impl 2.0.0</code>" in entry and "<code>fail</code>" in entry
