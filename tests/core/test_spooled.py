"""Spooled rows come back equal, in order and by position, and are written as a list."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from apconform.core.indented import indented_text
from apconform.core.spooled import EncodedRows, SpooledRows, plain_rows


def _rows(count: int) -> list[dict[str, object]]:
    return [
        {
            "n": str(n),
            "text": "caf\u00e9 \u2014 \ud800 lone surrogate" if n % 7 == 0 else f"row {n}",
            "calls": [{"name": "calc", "arguments": '{"expression": "1+2"}'}] if n % 3 else [],
            "flag": n % 2 == 0,
            "none": None,
            "count": n,
            "big": 2**70 + n if n % 5 == 0 else -(2**63) + n,  # past 64 bits or not
            "ratio": n / 7,
        }
        for n in range(count)
    ]


def test_rows_past_the_threshold_move_to_an_unlinked_file_and_come_back_equal(
    tmp_path: Path,
) -> None:
    rows = _rows(50)
    spool = SpooledRows(str(tmp_path), memory_rows=10)
    for row in rows[:10]:
        spool.append(row)
    assert not spool.spilled and plain_rows(spool) == rows[:10]
    spool.extend(rows[10:])
    assert spool.spilled and len(spool) == 50
    assert os.listdir(tmp_path) == []  # the file has no name: nothing is left behind
    assert list(spool) == rows
    assert [list(r) for r in spool] == [list(r) for r in rows]  # key order kept
    assert list(spool.at([49, 0, 17, 17, 3])) == [rows[49], rows[0], rows[17], rows[17], rows[3]]
    assert spool.head(3) == rows[:3]
    spool.append({"n": "late"})  # appending after reading goes on
    assert list(spool)[-1] == {"n": "late"} and len(spool) == 51
    assert list(spool.at([50, 49])) == [{"n": "late"}, rows[49]]
    with pytest.raises(IndexError):
        list(spool.at([51]))
    with pytest.raises(IndexError):
        list(spool.at([-1]))
    assert plain_rows(spool) is spool
    spool.close()
    assert len(spool) == 0


def test_a_spooled_listing_is_written_as_the_list_it_stands_for() -> None:
    rows = _rows(30)
    spool = SpooledRows(memory_rows=4)
    spool.extend(rows)
    document = {"a": "x", "rows": spool, "mapped": spool.map(lambda r: r["n"]), "empty": []}
    expected = {"a": "x", "rows": rows, "mapped": [r["n"] for r in rows], "empty": []}
    assert indented_text(document) == json.dumps(expected, indent=2, ensure_ascii=False)
    assert indented_text(SpooledRows()) == "[]"


def test_encoded_rows_are_taken_as_they_are_and_read_as_the_rows(tmp_path: Path) -> None:
    rows = _rows(40)
    encoded = EncodedRows()
    encoded.extend(rows)
    assert len(encoded) == 40 and list(encoded) == rows
    assert plain_rows(encoded) == rows
    direct = SpooledRows(str(tmp_path), memory_rows=10)
    direct.extend(rows[:5])
    direct.extend(rows[5:])
    merged = SpooledRows(str(tmp_path), memory_rows=10)
    first, second = EncodedRows(), EncodedRows()
    first.extend(rows[:5])
    second.extend(rows[5:])
    merged.extend_encoded(first)  # in memory: the rows themselves
    merged.extend_encoded(second)  # spills past 10, then lines as they are
    assert merged.spilled and len(merged) == 40
    assert list(merged) == rows == list(direct)
    assert list(merged.at([39, 0, 12])) == [rows[39], rows[0], rows[12]]
    merged.extend_encoded(second)
    assert len(merged) == 75 and list(merged)[40:] == rows[5:]


def test_a_spilled_spool_holds_no_memory_per_row(tmp_path: Path) -> None:
    """Rows appended past the threshold leave nothing behind in memory once their batch is
    written: the same traced memory after 20,011 rows as after 200,011 (the rows' offsets go
    to a file too; in memory they were eight bytes a row, 1.4 MB more)."""
    spool = SpooledRows(str(tmp_path), memory_rows=10)
    held = []
    tracemalloc.start()
    try:
        for n in range(200_011):
            spool.append({"cellKey": f"base/item-{n % 50}/{n}"})
            if n + 1 in (20_011, 200_011):  # 11 rows spilled, then batches of 2,000 written
                held.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert held[1] - held[0] < 50_000, held
    assert list(spool.at([200_010, 0, 123_456])) == [
        {"cellKey": "base/item-10/200010"},
        {"cellKey": "base/item-0/0"},
        {"cellKey": "base/item-6/123456"},
    ]
    spool.close()
