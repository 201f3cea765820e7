"""A comparison in words, for the terminal: the regressions first, then everything else."""

from __future__ import annotations

from typing import Any

__all__ = ["render_diff_text"]

_LABELS = {
    "newly-failing": "NEWLY FAILING",
    "newly-passing": "newly passing",
    "changed": "changed",
    "added": "added",
    "removed": "removed",
}


def _side(side: dict[str, Any]) -> str:
    impl = side["implementation"]
    text = f"{side['subject']} ({impl['name']} {impl['version']}"
    if "runDate" in side:
        text += f", {side['runDate']}"
    return text + f", {side['documentSha256'][:12]})"


def _section(title: str, changes: list[dict[str, Any]]) -> list[str]:
    if not changes:
        return []
    lines = [f"{title}:"]
    for change in changes:
        move = f"{change.get('before', '-')} -> {change.get('after', '-')}"
        line = f"  {_LABELS[change['change']]:<14} {change['item']}  {move}"
        if change.get("detail"):
            line += f"  ({change['detail']})"
        lines.append(line)
    return lines


_ITEMS = (("vectors", "vector"), ("clauses", "clause"), ("dimensions", "dimension"))


def _breakdown(diff: dict[str, Any], kind: str) -> str:
    """ " (3 vectors, 4 clauses)": a count of several kinds of item never reads as one number."""
    parts = []
    for section, noun in _ITEMS:
        n = sum(1 for change in diff[section] if change["change"] == kind)
        if n:
            parts.append(f"{n} {noun}" + ("" if n == 1 else "s"))
    return f" ({', '.join(parts)})" if parts else ""


def render_diff_text(diff: dict[str, Any]) -> str:
    """The comparison as readable text ending in one line that says whether it regressed."""
    lines = [
        f"{diff['kind']}:",
        f"  before: {_side(diff['before'])}",
        f"  after:  {_side(diff['after'])}",
    ]
    old, new = diff["before"].get("verdict"), diff["after"].get("verdict")
    if old is not None or new is not None:
        lines.append(f"  verdict: {old} -> {new}")
    lines += _section("clauses", diff["clauses"])
    lines += _section("vectors", diff["vectors"])
    lines += _section("dimensions", diff["dimensions"])
    counts = diff["counts"]
    tally = ", ".join(
        f"{counts[member]} {words}{_breakdown(diff, kind)}"
        for member, kind, words in (
            ("newlyFailing", "newly-failing", "newly failing"),
            ("newlyPassing", "newly-passing", "newly passing"),
            ("changed", "changed", "changed"),
            ("added", "added", "added"),
            ("removed", "removed", "removed"),
        )
    )
    lines.append(("REGRESSION: " if diff["regression"] else "no regression: ") + tally)
    return "\n".join(lines) + "\n"
