"""Benchmark: whole-process time of everyday `apconform` commands beside `python -c pass`.

Implementers' CI and pre-commit hooks call the CLI once per file or per case,
so what a user waits for is the whole process: interpreter start, imports,
argument parsing, the work, exit. Each command runs ``--repeat`` times (after
one warm-up run that fills the file cache); the script prints the median and
the fastest wall time and the median CPU time (user + system, from the
kernel's accounting of the finished child), which is steadier than wall time
when other work shares the cores. The floor is ``python -c pass`` (the same
interpreter). With ``--instructions`` each command also runs once under
valgrind's callgrind, which counts the instructions it executed: a figure that
does not depend on what else the machine is doing.

Goal: at most 0.25 s for ``--help`` and for ``apx evaluate`` of the demo's
request on a quiet machine (twice the APx reference CLI's 0.12 s on Node).

    .venv/bin/python tests/benchmarks/bench_cli_startup.py [--repeat 10] [--save]

Issue 33 measured the APx reference CLI's ``validate`` on Node beside ours; that CLI
is not installed here, so the saved run names the issue's figures as the baseline.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results import figure, load_average, save

GOAL_SECONDS = 0.25
GOAL_COMMANDS = ("apconform --help", "apconform apx evaluate <demo request>")
NODE_EVALUATE_SECONDS = 0.12
"""The APx reference CLI's evaluate on Node, as the first speed issue measured it."""


def _apconform() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m apconform.cli``."""
    script = Path(sys.executable).parent / "apconform"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "apconform.cli"]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _time(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _instructions(argv: list[str]) -> int | None:
    """Instructions executed by one run of ``argv`` (callgrind's count), None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def _figure(label: str, median: float, cpu: float, repeat: int) -> dict[str, Any]:
    """A command's row: the goal and the Node baseline where the first speed issue set them."""
    goal = label in GOAL_COMMANDS
    node = label == "apconform apx evaluate <demo request>"
    return figure(
        f"`{label}`, whole process, median of {repeat}",
        f"{median:.3f} s ({cpu:.3f} CPU-s)",
        baseline=f"{NODE_EVALUATE_SECONDS:.2f} s (APx reference CLI on Node)" if node else None,
        ratio=median / NODE_EVALUATE_SECONDS if node else None,
        goal=f"at most {GOAL_SECONDS:.2f} s" if goal else None,
        met=median <= GOAL_SECONDS if goal else None,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs per command (default 10)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each command's instructions under valgrind (about 50 x slower)",
    )
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    load_before = load_average()
    rows: list[dict[str, Any]] = []
    cli = _apconform()
    folder = Path(tempfile.mkdtemp(prefix="apconform-bench-cli-"))
    try:
        subprocess.run(
            [*cli, "apx", "demo", "--output-dir", str(folder / "apx")],
            capture_output=True,
            check=True,
        )
        request = folder / "apx" / "request.json"
        manifest = folder / "apx" / "manifest.json"
        tiny = folder / "tiny.json"
        tiny.write_text(json.dumps({"b": [1, 2.5, "x"], "a": None}), encoding="utf-8")
        commands: list[tuple[str, list[str]]] = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("apconform --help", [*cli, "--help"]),
            ("apconform --version", [*cli, "--version"]),
            ("apconform apx evaluate <demo request>", [*cli, "apx", "evaluate", str(request)]),
            ("apconform canonicalize <tiny doc>", [*cli, "canonicalize", str(tiny)]),
            (
                "apconform validate --type apx-manifest <demo manifest>",
                [*cli, "validate", "--type", "apx-manifest", str(manifest)],
            ),
            ("apconform check --help", [*cli, "check", "--help"]),
            ("apconform ap1 --help", [*cli, "ap1", "--help"]),
        ]
        print(f"whole-process times, {args.repeat} runs each after one warm-up; console: {cli[0]}")
        print(f"load average before: {_load()} (2 cores, shared with other jobs)")
        print(
            f"{'command':58} {'median':>8} {'fastest':>8} {'CPU':>8}"
            + (f" {'instructions':>15}" if args.instructions else "")
        )
        results: dict[str, float] = {}
        for label, argv in commands:
            _time(argv)
            walls, cpus = [], []
            for _ in range(args.repeat):
                wall, cpu = _time(argv)
                walls.append(wall)
                cpus.append(cpu)
            median = statistics.median(walls)
            results[label] = median
            rows.append(_figure(label, median, statistics.median(cpus), args.repeat))
            counted = ""
            if args.instructions:
                count = _instructions(argv)
                counted = f" {count:15,}" if count is not None else f" {'(no valgrind)':>15}"
            print(
                f"{label:58} {median:7.3f}s {min(walls):7.3f}s {statistics.median(cpus):7.3f}s"
                + counted
            )
        print(f"load average after: {_load()}")
        met = all(results[label] <= GOAL_SECONDS for label in GOAL_COMMANDS)
        print(
            f"goal: median <= {GOAL_SECONDS:.2f} s for "
            + " and ".join(f"`{label}`" for label in GOAL_COMMANDS)
            + (" - met" if met else " - NOT MET (on a quiet machine?)")
        )
        if args.save:
            load = {"before": load_before, "after": load_average()}
            save("cli_startup", {"loadAverage": load, "repeat": args.repeat}, rows)
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
