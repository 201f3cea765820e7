"""A report table of rows spooled to disk renders the same bytes as the same rows in a list."""

from __future__ import annotations

from pathlib import Path

from apconform.ap1.scoring.report.html import _table
from apconform.ap1.scoring.report.outline import Block, StreamedRows
from apconform.core.spooled import SpooledRows


def _cells(count: int) -> list[dict[str, str]]:
    """Non-outcome cells: most share two reasons (collapsed), a few have their own."""
    reasons = ["timeout", "refused", "timeout", "refused", "timeout"]
    cells = [
        {"cellKey": f"base/item-{n}/1", "status": "FAILED", "reason": reasons[n % 5]}
        for n in range(count)
    ]
    cells += [
        {"cellKey": f"other/item-{n}/2", "status": "VOID", "reason": f"r{n}"} for n in range(3)
    ]
    return cells


def _convert(c: dict[str, str]) -> list[str | bool]:
    return [c["cellKey"], c["status"], c["reason"]]


def _block(rows: object, limit: int | None) -> Block:
    return Block(
        "table",
        headers=("Cell", "Status", "Reason"),
        rows=rows,  # type: ignore[arg-type]
        limit=limit,
        group=(1, 2),
        noun="cells",
    )


def test_a_small_table_collapses_its_groups_and_cuts_the_rest() -> None:
    cells = _cells(10)
    html = _table(_block([_convert(c) for c in cells], 2))
    assert html == (
        '<div class="tw"><table><thead><tr><th>Cell</th><th>Status</th><th>Reason</th></tr>'
        '</thead><tbody><tr class="group"><td colspan="3"><span class="count">6 cells</span>: '
        "FAILED \u2014 timeout<details><summary>which cells</summary>"
        '<span class="nb">base/item-0/1,</span> <span class="nb">base/item-2/1,</span> '
        '<span class="nb">base/item-4/1,</span> <span class="nb">base/item-5/1,</span> '
        '<span class="nb">base/item-7/1,</span> <span class="nb">base/item-9/1</span>'
        "</details></td></tr>"
        '<tr><td><span class="nb">base/item-1/1</span></td><td>FAILED</td><td>refused</td></tr>'
        '<tr><td><span class="nb">base/item-3/1</span></td><td>FAILED</td><td>refused</td></tr>'
        "</tbody></table></div><p>(5 more row(s) in score-report.json.)</p>"
    )


def test_spooled_rows_render_as_the_list(tmp_path: Path) -> None:
    cells = _cells(5000)  # names of a collapsed group joined in pieces of 1,024 too
    spool = SpooledRows(str(tmp_path), memory_rows=100)
    spool.extend(cells)
    assert spool.spilled
    streamed = StreamedRows(spool, _convert)
    listed = [_convert(c) for c in cells]
    assert len(streamed) == len(listed) and list(streamed) == listed
    assert streamed[:3] == listed[:3] and streamed[-1] == listed[-1] and streamed[7] == listed[7]
    for limit in (None, 0, 2, 100):
        assert _table(_block(streamed, limit)) == _table(_block(listed, limit))
    spool.close()
