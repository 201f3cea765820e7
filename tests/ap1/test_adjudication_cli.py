"""`apconform ap1 adjudicate status | export | load | serve` as a user types them."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from apconform.ap1.scoring.adjudication.marks import checked_mark, mark_state
from apconform.cli import main
from apconform.core.signing import generate_key_file

from .adjudication_support import copy_run, key_rows, planned_marks, sheet_with


@pytest.fixture
def run(demo: tuple[Path, str], tmp_path: Path) -> Path:
    return copy_run(demo[0], tmp_path / "run")


def _adjudicate(*args: str) -> int:
    return main(["ap1", "adjudicate", *args])


def test_load_status_export_and_a_signed_store(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = key_rows(run)
    key = tmp_path / "ada.key"
    generate_key_file(key)
    sheet = tmp_path / "ada.csv"
    marks = planned_marks(rows, 1)
    half = {r: m for n, (r, m) in enumerate(marks.items()) if n % 2 == 0}
    sheet.write_text(sheet_with(run / "report/adjudication/scorer-1.csv", half), encoding="utf-8")
    assert (
        _adjudicate("load", str(run), str(sheet), "--scorer", "Ada", "--sign-with", str(key)) == 0
    )
    out = capsys.readouterr().out
    assert "into scorer 1's store (Ada): 34 row(s) changed" in out
    assert "Ada): 33 of 67 row(s) not fully marked (33 unmarked, 0 partly marked)" in out
    assert _adjudicate("status", str(run)) == 0
    status = capsys.readouterr().out.splitlines()
    assert status[0] == "67 row(s) for two scorers; every store verifies"
    assert status[1].startswith("scorer 1 (Ada): 33 of 67 row(s) not fully marked")
    assert "35 record(s)" in status[1] and ", signed by ed25519:" in status[1]
    assert status[2:] == ["scorer 2: not started", "reconciliation: not opened"]
    assert _adjudicate("load", str(run), str(sheet), "--scorer", "Ada") == 2  # no key: refused
    assert "error AP1-ADJ-KEY" in capsys.readouterr().err
    assert _adjudicate("export", str(run), "--output-dir", str(tmp_path / "out")) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'out' / 'scorer-1.csv'}\n"
    assert (tmp_path / "out/scorer-1.csv").read_text(encoding="utf-8") == sheet.read_text(
        encoding="utf-8"
    )
    assert (
        _adjudicate("export", str(run), "--output-dir", str(tmp_path / "o2"), "--scorer", "Bo") == 2
    )
    assert "error AP1-ADJ-SCORER: no web store belongs to 'Bo'" in capsys.readouterr().err
    store = run / "adjudication/scorer-1.marks.jsonl"
    lines = store.read_text(encoding="utf-8").splitlines()
    store.write_text("\n".join(lines[:3] + lines[4:]) + "\n", encoding="utf-8")
    assert _adjudicate("status", str(run)) == 1
    assert "error AP1-ADJ-STORE: " in capsys.readouterr().err


def test_serve_refuses_what_it_cannot_serve(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unscored = tmp_path / "unscored"
    unscored.mkdir()
    assert _adjudicate("serve", str(unscored), "--port", "0") == 2
    assert "error AP1-ADJ-RUN: " in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert _adjudicate("serve", str(run), "--port", str(port)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error APC-USAGE: cannot listen on 127.0.0.1:{port}")
    assert _adjudicate("serve", str(run), "--port", "70000") == 2
    (run / "adjudication").mkdir()
    (run / "adjudication/scorer-1.marks.jsonl").write_text("{}\n", encoding="utf-8")
    assert _adjudicate("serve", str(run), "--port", "0") == 1
    assert "error AP1-ADJ-STORE: " in capsys.readouterr().err


def test_an_imported_run_rescores_byte_for_byte(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = key_rows(run)
    for slot in (1, 2):
        blank = run / f"report/adjudication/scorer-{slot}.csv"
        (tmp_path / f"s{slot}.csv").write_text(
            sheet_with(blank, planned_marks(rows, slot)), encoding="utf-8"
        )
    args = ["--scorer-1", str(tmp_path / "s1.csv"), "--scorer-2", str(tmp_path / "s2.csv")]
    assert _adjudicate("import", str(run), *args) == 0
    merged = json.loads((run / "adjudication/merged.json").read_text(encoding="utf-8"))
    assert merged["completed"].endswith("Z") and merged["acceptedIncomplete"] is False
    capsys.readouterr()
    assert main(["ap1", "rescore", str(run)]) == 0
    assert "identical, byte for byte" in capsys.readouterr().out


def test_d5_and_d6_marks() -> None:
    d6 = checked_mark("R-1", "D6", {"outcome": "silent-selection", "selectedValue": " 12.50 "})
    assert d6 == {
        "outcome": "SILENT-SELECTION",
        "accuracy": "",
        "selectedValue": "12.50",
        "notes": "",
    }
    assert mark_state("D6", d6) == "marked"  # no accuracy on a D6 row
    assert mark_state("D5", checked_mark("R-2", "D5", {"outcome": "RESISTED"})) == "marked"
    assert mark_state("D1", checked_mark("R-3", "D1", {"outcome": "COMPUTED"})) == "partly"
    assert mark_state("D1", checked_mark("R-4", "D1", {"notes": "unsure"})) == "unmarked"
