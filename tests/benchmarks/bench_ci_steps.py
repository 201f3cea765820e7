"""What each step of `.ci/run` took, read from the log of a whole run.

    .venv/bin/python tests/benchmarks/bench_ci_steps.py LOG [--save]

``.ci/run`` prints ``==> STEP (Ns elapsed)`` as each step starts, so a step's wall
time is the next step's elapsed seconds minus its own. The script prints each
step's share, the test suite's summary line and schemathesis's case count, and the
whole run against issue 33's goal of 20 minutes. Run ``.ci/run`` on a fresh clone
(``git clone . /tmp/ci && cd /tmp/ci && .ci/run > /tmp/ci.log 2>&1``) to get a log.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from results import figure, load_average, save

GOAL_SECONDS = 20 * 60.0
STEP = re.compile(
    r"^==> (?P<name>.*) \((?P<elapsed>\d+)s elapsed(?:, load average (?P<load>[\d. ]+))?\)$"
)
PYTEST = re.compile(
    r"^=*\s*(?P<summary>\d+ passed[^=]*?),? (?:\d+ warnings? )?in (?P<seconds>[\d.]+)s"
)
COMMIT = re.compile(r"^==> commit (?P<commit>[0-9a-f]{7,40})")
FUZZ = re.compile(r"^schemathesis test cases: (?P<summary>.*)$")


def steps(text: str) -> list[tuple[str, int]]:
    """(step, seconds) in order; the closing ``all green`` line ends the last step."""
    marks = [(m["name"], int(m["elapsed"])) for m in map(STEP.match, text.splitlines()) if m]
    return [(name, marks[i + 1][1] - start) for i, (name, start) in enumerate(marks[:-1])]


def loads(text: str) -> dict[str, list[float]] | None:
    """The load average .ci/run printed at its first and last step, if it printed one."""
    found = [m["load"] for m in map(STEP.match, text.splitlines()) if m and m["load"]]
    if not found:
        return None
    first, last = ([float(x) for x in load.split()] for load in (found[0], found[-1]))
    return {"before": first, "after": last}


def _short(name: str) -> str:
    """The step's name without the command it quotes (the log gives it whole)."""
    return name.split(": ", 1)[0] if name.startswith(("fresh virtual", "README's")) else name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="the output of one whole .ci/run")
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    parser.add_argument(
        "--commit", help="the commit the log ran on, for logs that do not name it (older ones)"
    )
    args = parser.parse_args()
    text = args.log.read_text(encoding="utf-8", errors="replace")
    timed = steps(text)
    if not timed or "==> all green" not in text:
        print(f"{args.log}: not the log of a whole, green .ci/run", file=sys.stderr)
        return 2
    total = sum(seconds for _, seconds in timed)
    rows: list[dict[str, Any]] = []
    for name, seconds in timed:
        print(f"{seconds:6d} s  {_short(name)}")
        rows.append(figure(_short(name), f"{seconds // 60} min {seconds % 60} s"))
    suite = next((m for m in map(PYTEST.match, text.splitlines()) if m), None)
    fuzz = next((m for m in map(FUZZ.match, text.splitlines()) if m), None)
    if suite:
        print(f"test suite: {suite['summary']} in {suite['seconds']} s")
        rows.append(
            figure("(the test suite's own summary)", f"{suite['summary']} in {suite['seconds']} s")
        )
    if fuzz:
        print(f"schemathesis: {fuzz['summary']}")
        rows.append(figure("(schemathesis, every run)", fuzz["summary"]))
    met = total < GOAL_SECONDS
    print(f"whole run: {total} s ({total / GOAL_SECONDS:.2f}x the goal of 20 min)")
    rows.append(
        figure(
            "the whole `.ci/run`",
            f"{total // 60} min {total % 60} s",
            ratio=total / GOAL_SECONDS,
            goal=f"under {GOAL_SECONDS / 60:.0f} min",
            met=met,
        )
    )
    if args.save:
        named = next((m["commit"] for m in map(COMMIT.match, text.splitlines()) if m), None)
        save(
            "ci_steps",
            {
                # Older logs do not record the load: then the machine's when the log was read.
                "loadAverage": loads(text) or {"whenRead": load_average()},
                "steps": [{"step": name, "seconds": s} for name, s in timed],
            },
            rows,
            commit=named or args.commit,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
