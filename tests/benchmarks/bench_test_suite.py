"""Benchmark: the whole test suite, run as README's test command runs it, wall and CPU time.

The pytest part of README's test command (after its last ``&&``: the set-up is not
timed) runs once from the checkout's root, with no terminal and nothing on standard
input; the script prints its wall time, its CPU time (user + system of pytest and every
process it and its workers waited for, from the kernel's accounting of finished
children), the counts of pytest's last line and the load average before and after:
wall time means little when other work shares the cores. ``--serial`` runs the same
command without pytest-xdist's options first (one process, as the suite ran before it
was split over workers) and prints the ratio of the two wall times.

Goal (issue 33): the whole suite in under 8 minutes on the 2-core machine.

    .venv/bin/python tests/benchmarks/bench_test_suite.py [--serial] [--save]
"""

from __future__ import annotations

import argparse
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from typing import Any

from results import REPO, figure, load_average, save

GOAL_SECONDS = 8 * 60.0
_XDIST_OPTIONS = {"-n", "--numprocesses", "--dist", "--maxprocesses"}
"""pytest-xdist's options that take a value: left out of the serial run."""
_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def readme_test_command() -> list[str]:
    """The pytest part of the first line after ``<!-- test-command -->`` in README.md."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("<!-- test-command -->")
    line = next(text for text in lines[start + 1 :] if text and not text.startswith("`"))
    return shlex.split(line.rsplit("&&", 1)[1])


def serial(command: list[str]) -> list[str]:
    """``command`` without pytest-xdist's options, and with the plugin off."""
    kept: list[str] = []
    skip = False
    for word in command:
        if skip:
            skip = False
        elif word in _XDIST_OPTIONS:
            skip = True
        elif not word.startswith(tuple(f"{option}=" for option in _XDIST_OPTIONS)):
            kept.append(word)
    return [*kept, "-p", "no:xdist"]


def run(command: list[str], label: str) -> dict[str, Any]:
    """Run ``command`` once from the checkout's root; print and return its figures."""
    before_load = load_average()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile() as output:
        started = time.perf_counter()
        done = subprocess.run(
            command, cwd=REPO, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT
        )
        wall = time.perf_counter() - started
        output.seek(0)
        text = output.read().decode(errors="replace")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = next((line for line in reversed(text.splitlines()) if " in " in line), "")
    counts = {kind.rstrip("s"): int(n) for n, kind in _COUNTS.findall(last)}
    figures = {
        "command": shlex.join(command),
        "wallSeconds": round(wall, 1),
        "cpuSeconds": round(cpu, 1),
        "exitStatus": done.returncode,
        "counts": counts,
        "loadAverageBefore": before_load,
        "loadAverageAfter": load_average(),
    }
    print(
        f"{label}: {wall:.1f} s wall, {cpu:.1f} CPU-s, exit {done.returncode}, "
        f"{last.strip('= ') or 'no summary line'} "
        f"(load average {before_load} before, {figures['loadAverageAfter']} after)\n"
        f"  {figures['command']}",
        flush=True,
    )
    if done.returncode != 0:
        print(text[-3000:], file=sys.stderr)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serial", action="store_true", help="also run it in one process")
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    command = readme_test_command()
    document: dict[str, Any] = {}
    if args.serial:
        document["serial"] = run(serial(command), "serial (no pytest-xdist)")
    document["readme"] = parallel = run(command, "README's test command")
    print(
        f"README's test command: {parallel['wallSeconds'] / GOAL_SECONDS:.2f}x the goal of "
        f"{GOAL_SECONDS / 60:.0f} min"
    )
    if args.serial:
        ratio = document["serial"]["wallSeconds"] / parallel["wallSeconds"]
        document["serialToReadmeWall"] = round(ratio, 2)
        print(f"serial / README's test command, wall: {ratio:.2f}")
    if args.save:
        document["loadAverage"] = {
            "before": parallel["loadAverageBefore"],
            "after": parallel["loadAverageAfter"],
        }
        counts = ", ".join(f"{n:,} {kind}" for kind, n in sorted(parallel["counts"].items()))
        wall = parallel["wallSeconds"]
        rows = [
            figure(
                f"README's test command ({counts or 'no summary line'}), wall",
                f"{wall // 60:.0f} min {wall % 60:.0f} s ({parallel['cpuSeconds']:,.0f} CPU-s)",
                baseline=(
                    f"{document['serial']['wallSeconds']:,.0f} s in one process"
                    if args.serial
                    else None
                ),
                ratio=wall / document["serial"]["wallSeconds"] if args.serial else None,
                goal=f"under {GOAL_SECONDS / 60:.0f} min on two cores",
                met=wall < GOAL_SECONDS and parallel["exitStatus"] == 0,
            )
        ]
        save("test_suite", document, rows)
    return 0 if parallel["exitStatus"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
