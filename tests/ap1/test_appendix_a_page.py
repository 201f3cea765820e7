"""The Appendix A page in docs/ap1 names, for every case, exactly the vectors tagged with it."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_appendix_a_table_matches_the_vector_tags() -> None:
    tagged: dict[str, set[str]] = defaultdict(set)
    for path in sorted((REPO / "vectors/ap1").rglob("*.json")):
        vector = json.loads(path.read_text(encoding="utf-8"))
        for tag in vector.get("tags", []):
            if tag.startswith("appendix-a-"):
                tagged[tag.removeprefix("appendix-a-")].add(
                    path.relative_to(REPO / "vectors/ap1").as_posix()
                )
    page = (REPO / "docs/ap1/appendix-a.md").read_text(encoding="utf-8")
    listed: dict[str, set[str]] = {}
    for line in page.splitlines():
        row = re.fullmatch(r"\| (B\d+|T\d+|E\d+|Q\d+|guard) \| .+ \| (.+) \|", line)
        if row:
            listed[row[1]] = set(re.findall(r"`([^`]+\.json)`", row[2]))
    assert len(listed) == 57
    assert listed == dict(tagged)
