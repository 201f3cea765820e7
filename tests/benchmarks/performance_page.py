"""Write docs/performance.md from the benchmarks' saved runs (tests/benchmarks/results/).

    python tests/benchmarks/performance_page.py           # write the page
    python tests/benchmarks/performance_page.py --check   # exit 1 when the page is stale

The page's prose is ``performance_page.md`` beside this script: it holds no figure (a
test checks that no digit is left outside code), and each ``<!-- figures NAME -->`` line in
it becomes the table of ``results/NAME.json``: the commit measured, the date, the load
average, and one row per headline figure with its baseline, ratio and goal. A benchmark
with no saved run says so and names the command that saves one. So every number on the page
is one a benchmark printed and saved, never one typed in by hand.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TEMPLATE = HERE / "performance_page.md"
RESULTS = HERE / "results"
PAGE = REPO / "docs" / "performance.md"
MARKER = re.compile(r"^<!-- figures (?P<name>[a-z0-9_]+)(?: (?P<script>\S.*?))? -->$")
"""``<!-- figures NAME [SCRIPT ARGS] -->``: the saved run to show, and how it is saved when the
script is not ``bench_NAME.py`` or needs arguments."""
GENERATED = (
    "<!-- Written by tests/benchmarks/performance_page.py from tests/benchmarks/results/:"
    " edit performance_page.md or save a benchmark run, never this file. -->"
)


def _cell(text: object) -> str:
    """A table cell: pipes escaped, nothing else changed (the figures are ours)."""
    return str(text).replace("|", "\\|")


def _load(average: Any) -> str:
    if isinstance(average, dict):
        before, after = average.get("before"), average.get("after")
        if before is not None and after is not None:
            return f"load average {_triple(before)} before, {_triple(after)} after"
        if average.get("whenRead") is not None:
            return f"load average not in the log ({_triple(average['whenRead'])} when it was read)"
    if isinstance(average, list):
        return f"load average {_triple(average)}"
    return "load average not recorded"


def _triple(values: Any) -> str:
    if isinstance(values, list):
        return " / ".join(f"{v:.2f}" for v in values)
    return str(values)


def _met(row: dict[str, Any]) -> str:
    met = row.get("met")
    return "yes" if met is True else "**no**" if met is False else ""


def table(name: str, script: str | None = None) -> str:
    """The block that stands for ``<!-- figures NAME -->``."""
    path = RESULTS / f"{name}.json"
    command = f"python tests/benchmarks/{script or f'bench_{name}.py'} --save"
    if not path.is_file():
        return f"*No saved run yet: `{command}` saves one.*\n"
    saved = json.loads(path.read_text(encoding="utf-8"))
    machine = saved.get("machine", {})
    lines = [
        f"Last saved run (`{command}`): commit `{saved.get('commit', 'unknown')}`,"
        f" {saved.get('measuredOn', 'date not recorded')}, {machine.get('cores', '?')} cores,"
        f" Python {machine.get('python', '?')}, {_load(saved.get('loadAverage'))}.",
        "",
        "| Measure | Figure | Baseline | Ratio | Goal | Met |",
        "|---|---|---|---|---|---|",
    ]
    for row in saved.get("figures", []):
        ratio = row.get("ratio")
        lines.append(
            "| "
            + " | ".join(
                _cell(cell)
                for cell in (
                    row["measure"],
                    row["value"],
                    row.get("baseline") or "",
                    "" if ratio is None else f"{ratio:.3f}",
                    row.get("goal") or "",
                    _met(row),
                )
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def render() -> str:
    """The whole page: the template with every marker replaced by its table."""
    out = [GENERATED, ""]
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        found = MARKER.match(line)
        if found:
            out.append(table(found["name"], found["script"]).rstrip("\n"))
        else:
            out.append(line)
    return "\n".join(out).rstrip("\n") + "\n"


def markers() -> list[str]:
    """The result names the template asks for, in order."""
    text = TEMPLATE.read_text(encoding="utf-8")
    return [m["name"] for line in text.splitlines() if (m := MARKER.match(line))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args()
    page = render()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != page:
            print(
                f"{PAGE.relative_to(REPO)} is stale: run python {Path(__file__).relative_to(REPO)}",
                file=sys.stderr,
            )
            return 1
        print(f"{PAGE.relative_to(REPO)} is up to date")
        return 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO)} ({len(markers())} benchmark tables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
