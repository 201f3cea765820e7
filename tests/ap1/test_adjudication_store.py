"""The web store of marks: claims, blind scorers, hash chain and signatures, tampering refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apconform.ap1.scoring.adjudication.exchange import export_sheets, load_sheet
from apconform.ap1.scoring.adjudication.store import STORE_SCHEMA
from apconform.ap1.scoring.adjudication.workspace import AdjudicationWorkspace
from apconform.core.canonical import canonical_text, sha256_bytes
from apconform.core.errors import ApconformError
from apconform.core.signing import generate_signing_key

from .adjudication_support import copy_run, key_rows, planned_marks, sheet_with


@pytest.fixture
def run(demo: tuple[Path, str], tmp_path: Path) -> Path:
    return copy_run(demo[0], tmp_path / "run")


def _code(call: object) -> str:
    with pytest.raises(ApconformError) as caught:
        call()  # type: ignore[operator]
    return caught.value.code


def test_two_scorers_claim_a_store_each_and_only_by_their_name(run: Path) -> None:
    ws = AdjudicationWorkspace.open(run)
    assert (ws.claim("Ada"), ws.claim("Bo"), ws.claim("Ada")) == (1, 2, 1)
    assert _code(lambda: ws.claim("Cy")) == "AP1-ADJ-SCORER"
    row = ws.order(1)[0]
    assert _code(lambda: ws.put_mark(1, "Bo", row, {"outcome": "COMPUTED"})) == "AP1-ADJ-SCORER"
    assert _code(lambda: ws.put_mark(1, "Ada", "R-000000000000", {})) == "AP1-ADJ-ITEM"
    assert _code(lambda: ws.put_mark(1, "Ada", row, {"outcome": "MAYBE"})) == "AP1-ADJ-MARK"
    assert _code(lambda: ws.put_mark(1, "Ada", row, {"outcom": "COMPUTED"})) == "AP1-ADJ-MARK"
    assert _code(lambda: ws.put_mark(1, "Ada", row, {"selectedValue": "3"})) == "AP1-ADJ-MARK"
    assert _code(lambda: ws.put_mark(1, "Ada", row, {"notes": "a\x00b"})) == "AP1-ADJ-MARK"
    entry, written = ws.put_mark(1, "Ada", row, {"outcome": " computed ", "notes": "sure"})
    assert entry == {"outcome": "COMPUTED", "accuracy": "", "selectedValue": "", "notes": "sure"}
    assert written is True
    assert ws.put_mark(1, "Ada", row, dict(entry)) == (entry, False)  # no change, no record
    assert ws.progress(1).sentence("Ada").startswith("Ada: 67 of 67 row(s) not fully marked")
    again = AdjudicationWorkspace.open(run)  # what a reload reads back
    assert (again.stores[1].name, again.stores[1].records) == ("Ada", 2)
    assert again.stores[1].mark(row) == entry and again.stores[1].last_row == row
    assert again.stores[2].entries == {}  # Bo's store holds nothing of Ada's


def test_reconciliation_waits_for_both_and_then_closes_the_scorers_stores(run: Path) -> None:
    rows = key_rows(run)
    ws = AdjudicationWorkspace.open(run)
    assert _code(ws.open_reconciliation) == "AP1-ADJ-NOT-READY"
    blank = run / "report/adjudication"
    for slot, name in ((1, "Ada"), (2, "Bo")):
        sheet = sheet_with(blank / f"scorer-{slot}.csv", planned_marks(rows, slot))
        assert load_sheet(ws, name, sheet.encode()) == (slot, 67)
    assert _code(lambda: ws.settle(rows[4]["rowId"], {})) == "AP1-ADJ-NOT-READY"
    ws.open_reconciliation()
    disputes = ws.disagreements()
    assert [d["rowId"] for d in disputes][:2] == [rows[4]["rowId"], rows[7]["rowId"]]
    assert disputes[0]["disputed"] == ["outcome"] and disputes[1]["disputed"] == ["accuracy"]
    first = rows[0]["rowId"]
    assert _code(lambda: ws.put_mark(1, "Ada", first, {"outcome": "COMPUTED"})) == "AP1-ADJ-CLOSED"
    settle = {"outcome": "ORIGINATED", "settledBy": "Cy", "reason": "the operand is invented"}
    assert _code(lambda: ws.settle(first, settle)) == "AP1-ADJ-SETTLE"  # not in dispute
    wrong_field = {"accuracy": "CORRECT", "settledBy": "Cy"}
    assert _code(lambda: ws.settle(rows[4]["rowId"], wrong_field)) == "AP1-ADJ-SETTLE"
    nobody = {"outcome": "ORIGINATED"}
    assert _code(lambda: ws.settle(rows[4]["rowId"], nobody)) == "AP1-ADJ-MARK"
    assert ws.settle(rows[4]["rowId"], settle)["settledBy"] == "Cy"
    merged = ws.preview()
    row = next(r for r in merged["rows"] if r["rowId"] == rows[4]["rowId"])
    assert (row["agreedOutcome"], row["settlement"]["settledBy"]) == ("ORIGINATED", "Cy")
    outcome = next(a for a in merged["agreement"] if a["measure"] == "D1 outcome")
    assert outcome["agreed"] == str(67 - len([n for n in range(67) if n % 9 == 4]))


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(canonical_text(r) + "\n" for r in records), encoding="utf-8")


def _rehash(record: dict[str, object]) -> None:
    body = {k: v for k, v in record.items() if k != "sha256"}
    record["sha256"] = sha256_bytes(canonical_text(body).encode())


@pytest.fixture
def marked(run: Path) -> Path:
    ws = AdjudicationWorkspace.open(run, signing_key=None)
    ws.claim("Ada")
    for row_id in ws.order(1)[:3]:
        ws.put_mark(1, "Ada", row_id, {"outcome": "ORIGINATED", "accuracy": "INCORRECT"})
    return run / "adjudication/scorer-1.marks.jsonl"


def _refused(run: Path) -> str:
    with pytest.raises(ApconformError) as caught:
        AdjudicationWorkspace.open(run)
    assert caught.value.code == "AP1-ADJ-STORE"
    return caught.value.message


def test_the_store_is_a_hash_chain_of_rfc8785_records(marked: Path) -> None:
    records = _records(marked)
    assert [r["kind"] for r in records] == ["opened", "mark", "mark", "mark"]
    assert records[0]["schemaVersion"] == STORE_SCHEMA
    assert records[0]["opened"] == {  # type: ignore[comparison-overlap]
        "store": "scorer-1",
        "name": "Ada",
        "rows": "67",
        "signingKey": None,
    }
    previous = "0" * 64
    for n, record in enumerate(records):
        body = {k: v for k, v in record.items() if k != "sha256"}
        assert record["sha256"] == sha256_bytes(canonical_text(body).encode())
        assert (record["prevSha256"], record["seq"]) == (previous, str(n))
        previous = str(record["sha256"])
    assert marked.read_text(encoding="utf-8").splitlines()[1] == canonical_text(records[1])


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        ("edit", "record 3: its sha256 does not match its content"),
        ("edit-and-rehash", "record 4: prevSha256 is not the previous record's sha256"),
        ("drop", "record 3: prevSha256 is not the previous record's sha256"),
        ("swap", "record 3: prevSha256 is not the previous record's sha256"),
        ("foreign-row", "record 4: row 'R-000000000000' is not a row of this run"),
        ("bad-mark", "record 4: row"),
        ("other-seal", "record 1: it names another run's seal"),
        ("cut", "record 4: the last record is incomplete"),
        ("reindent", "record 2: its bytes are not the record's RFC 8785 form"),
    ],
)
def test_a_tampered_store_is_refused_naming_the_record(
    marked: Path, tamper: str, named: str
) -> None:
    run = marked.parents[1]
    records = _records(marked)
    if tamper == "edit":
        records[2]["mark"]["outcome"] = "COMPUTED"  # type: ignore[index]
    elif tamper == "edit-and-rehash":
        records[2]["mark"]["outcome"] = "COMPUTED"  # type: ignore[index]
        _rehash(records[2])
    elif tamper == "drop":
        del records[2]
    elif tamper == "swap":
        records[2], records[3] = records[3], records[2]
    elif tamper in ("foreign-row", "bad-mark"):
        mark = records[3]["mark"]
        if tamper == "foreign-row":
            mark["rowId"] = "R-000000000000"  # type: ignore[index]
        else:
            mark["outcome"] = "MAYBE"  # type: ignore[index]
        _rehash(records[3])
    elif tamper == "other-seal":
        records[0]["sealHash"] = "0" * 64
        _rehash(records[0])
    if tamper == "cut":
        marked.write_bytes(marked.read_bytes()[:-5])
    elif tamper == "reindent":
        text = marked.read_text(encoding="utf-8").splitlines()
        text[1] = json.dumps(json.loads(text[1]), indent=1).replace("\n", "")
        marked.write_text("\n".join(text) + "\n", encoding="utf-8")
    else:
        _write(marked, records)
    assert named in _refused(run)


def test_a_signed_store_keeps_its_key(run: Path) -> None:
    key, other = generate_signing_key(), generate_signing_key()
    ws = AdjudicationWorkspace.open(run, signing_key=key)
    ws.claim("Ada")
    row = ws.order(1)[0]
    ws.put_mark(1, "Ada", row, {"outcome": "COMPUTED", "accuracy": "CORRECT"})
    path = run / "adjudication/scorer-1.marks.jsonl"
    records = _records(path)
    assert all("signature" in r for r in records)
    assert records[0]["opened"]["signingKey"]["keyId"] == key.key_id  # type: ignore[index]
    assert AdjudicationWorkspace.open(run).stores[1].signer == key.key_id
    unsigned = AdjudicationWorkspace.open(run)
    assert _code(lambda: unsigned.claim("Ada")) == "AP1-ADJ-KEY"
    assert _code(lambda: AdjudicationWorkspace.open(run, signing_key=other).claim("Ada")) == (
        "AP1-ADJ-KEY"
    )
    records[1]["signature"]["signature"] = "0" * 128  # type: ignore[index]
    _rehash(records[1])
    _write(path, records)
    assert "record 2: the signature does not hold" in _refused(run)
    records = _records(path)
    del records[1]["signature"]
    _rehash(records[1])
    _write(path, records)
    assert "record 2: unsigned, in a store opened signed" in _refused(run)


def test_sheets_go_out_of_and_into_the_web_store(run: Path, tmp_path: Path) -> None:
    rows = key_rows(run)
    ws = AdjudicationWorkspace.open(run)
    marks = planned_marks(rows, 1)
    marks[rows[0]["rowId"]]["notes"] = 'quoted, "with" a comma\nand a line'
    blank = run / "report/adjudication/scorer-1.csv"
    assert load_sheet(ws, "Ada", sheet_with(blank, marks).encode()) == (1, 67)
    assert load_sheet(ws, "Ada", sheet_with(blank, marks).encode()) == (1, 0)  # nothing new
    written = export_sheets(ws, tmp_path / "out")
    assert written == [tmp_path / "out/scorer-1.csv"]  # scorer 2 has not started
    assert written[0].read_text(encoding="utf-8") == sheet_with(blank, marks)
    with pytest.raises(ApconformError) as caught:
        export_sheets(ws, tmp_path / "out")
    assert caught.value.code == "AP1-RUN-FILE"  # an exported sheet is never replaced
    bad = sheet_with(blank, {rows[0]["rowId"]: {"outcome": "MAYBE"}})
    with pytest.raises(ApconformError) as refused:
        load_sheet(ws, "Ada", bad.encode())
    assert refused.value.code == "AP1-ADJ-SHEET" and "line" in refused.value.message
