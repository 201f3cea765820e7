"""`apconform ledger info` and the migrations under Alembic's own commands, on both backends
(issue 27, finding 6: nothing reported the schema revision, and `alembic current` failed with
KeyError: 'connection')."""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from apconform.cli import main
from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import ApconformError
from apconform.core.validation import validate_document
from apconform.ledger import Ledger, make_claim, prepare, verify_ledger
from apconform.ledger.backends import backend_for
from apconform.ledger.derivation import index_of
from apconform.ledger.entry import build_entry
from apconform.ledger.info import ALEMBIC_CONFIG, describe_ledger
from apconform.ledger.location import resolve_location
from apconform.ledger.store import entry_columns
from apconform.ledger.tables import documents, entries, protocols
from apconform.models.ledger import LedgerInfo
from apconform.results import ResultKind

from .conftest import Ticks
from .samples import apx, apx_result, conformance

ALEMBIC = Path(sys.executable).with_name("alembic")


def _alembic(config: Path, location: str, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ALEMBIC), "-c", str(config), "-x", f"ledger={location}", *command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _fresh(location: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Another empty database on the same backend as ``location``."""
    if location.startswith("postgresql"):
        return str(request.getfixturevalue("postgres").create_database())
    return str(tmp_path / "fresh.db")


def test_info_reports_backend_revision_head_and_counts(
    ledger: Ledger, location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger.append(conformance())
    ledger.append(apx())
    last = ledger.append(apx("demo-2"))
    assert main(["ledger", "info", "--ledger", location, "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    validate_document(LedgerInfo, info, what="ledger info")
    backend = "postgresql" if location.startswith("postgresql") else "sqlite"
    assert info == {
        "location": resolve_location(location).display(),
        "backend": backend,
        "schemaRevision": "r0002",
        "releaseRevision": "r0002",
        "headSeq": 3,
        "headSha256": last.digest,
        "entries": 3,
        "documents": 3,
    }
    assert main(["ledger", "info", "--ledger", location]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[1] == f"backend          {backend}"
    assert text[-1] == "entries          3 (3 documents)"
    assert main(["ledger", "info", "--alembic-config"]) == 0
    assert capsys.readouterr().out.strip() == str(ALEMBIC_CONFIG)


def test_alembic_commands_run_the_ledger_migrations(
    location: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    Ledger.open(location, create=True).close()
    # A configuration a user writes, naming the packaged migrations...
    own = tmp_path / "alembic.ini"
    own.write_text(
        "[alembic]\nscript_location = apconform.ledger:migrations\npath_separator = os\n",
        encoding="utf-8",
    )
    current = _alembic(own, location, "current")
    assert current.returncode == 0, current.stderr
    assert current.stdout.strip() == "r0002 (head)"
    # ...and the packaged one (`ledger info --alembic-config`), on a database Alembic creates.
    fresh = _fresh(location, tmp_path, request)
    upgraded = _alembic(ALEMBIC_CONFIG, fresh, "upgrade", "r0001")
    assert upgraded.returncode == 0, upgraded.stderr
    assert describe_ledger(fresh)["schemaRevision"] == "r0001"  # read, not upgraded
    with Ledger.open(fresh) as ledger:  # opening an older ledger upgrades it
        ledger.append(apx())
    assert describe_ledger(fresh)["schemaRevision"] == "r0002"
    assert _alembic(ALEMBIC_CONFIG, fresh, "current").stdout.strip() == "r0002 (head)"
    history = _alembic(ALEMBIC_CONFIG, fresh, "history")
    assert [line.split(",")[0] for line in history.stdout.splitlines()] == [
        "r0001 -> r0002 (head)",
        "<base> -> r0001",
    ]


def test_alembic_without_a_ledger_says_what_to_give(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(ALEMBIC), "-c", str(ALEMBIC_CONFIG), "current"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode != 0
    assert done.stdout == (
        "FAILED: no ledger given: pass -x ledger=PATH-OR-URL (or set sqlalchemy.url in the "
        "configuration, or APCONFORM_LEDGER)\n"
    )
    assert "Traceback" not in done.stderr
    missing = tmp_path / "folder" / "none.db"
    done = subprocess.run(
        [str(ALEMBIC), "-c", str(ALEMBIC_CONFIG), "-x", f"ledger={missing}", "current"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0 and done.stdout.startswith("FAILED: APC-LEDGER-UNAVAILABLE")


def test_a_ledger_of_the_first_revision_is_upgraded_and_still_verifies(
    location: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Entries written before claims were dated (revision r0001) keep verifying after the
    upgrade, and a new result of their subject is ordered against when they were recorded."""
    fresh = _fresh(location, tmp_path, request)
    assert _alembic(ALEMBIC_CONFIG, fresh, "upgrade", "r0001").returncode == 0
    document = apx_result("legacy")
    data = canonical_bytes(document)
    claim = make_claim(ResultKind.APX_RESULT, sha256_bytes(data))  # no createdAt, as then
    entry = build_entry(
        seq=1,
        previous=None,
        recorded_at="2026-12-01T06:00:00.000Z",
        claim=claim,
        index=index_of(ResultKind.APX_RESULT, document),
    )
    row = entry_columns(entry)
    assert row.pop("created_at") is None  # a column r0001 does not have
    where = resolve_location(fresh)
    engine = backend_for(where).engine(where)
    with engine.begin() as connection:
        connection.execute(
            documents.insert().values(
                document_sha256=claim["documentSha256"], body_zlib=zlib.compress(data)
            )
        )
        connection.execute(entries.insert().values(**row))
        connection.execute(protocols.insert().values(seq=1, protocol="apx", verdict=None))
    engine.dispose()
    assert describe_ledger(fresh)["schemaRevision"] == "r0001"
    with Ledger.open(fresh, clock=Ticks()) as ledger:
        assert describe_ledger(fresh)["schemaRevision"] == "r0002"
        assert verify_ledger(ledger).intact
        before = datetime(2026, 12, 1, 5, 0, tzinfo=UTC)  # earlier than entry 1 was recorded
        with pytest.raises(ApconformError) as again:
            ledger.append(prepare(ResultKind.APX_RESULT, document, created_at=before))
        assert again.value.code == "APC-LEDGER-DUPLICATE"  # the same document: kept once
        other = {**apx_result("legacy"), "costUSD": 0.2}  # the same run, measured again
        with pytest.raises(ApconformError) as stale:
            ledger.append(prepare(ResultKind.APX_RESULT, other, created_at=before))
        assert stale.value.code == "APC-LEDGER-STALE"
        assert "(recorded 2026-12-01T06:00:00.000Z)" in stale.value.message
        after = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)
        assert ledger.append(prepare(ResultKind.APX_RESULT, other, created_at=after)).seq == 2
        assert verify_ledger(ledger).intact
