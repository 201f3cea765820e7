"""`apconform ledger info` and the migrations under Alembic's own commands, on both backends
(issue 27, finding 6: nothing reported the schema revision, and `alembic current` failed with
KeyError: 'connection')."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apconform.cli import main
from apconform.core.validation import validate_document
from apconform.ledger import Ledger
from apconform.ledger.info import ALEMBIC_CONFIG, describe_ledger
from apconform.ledger.location import resolve_location
from apconform.models.ledger import LedgerInfo

from .samples import apx, conformance

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
