"""Benchmark: `apconform-dev gen --check`, whole process, and the CPU of each process's products.

The check runs ``--repeat`` times as CI runs it; the script prints each run's
wall time and its CPU time (user + system of the parent and its forked
workers, from the kernel's accounting of the finished child), with the load
average before and after: wall time means little when other work shares the
cores. Then, in one fresh process per group (as the forked workers start:
LinkML's generators already imported), the CPU time of each product of each
group of ``gen._PROCESSES``: the longer group plus the parent's start and
imports is what the check takes on two free cores.

Goal: at most 10 s wall on the 2-core machine when it is quiet.

    .venv/bin/python tests/benchmarks/bench_gen_check.py [--repeat 3] [--save]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

from results import figure, load_average, save

GOAL_SECONDS = 10.0

_GROUP = """
import sys, time
import linkml.generators  # the parent imports it before forking the workers
from apconform.dev import gen
from apconform.dev.schema_sharing import loading_once
by_name = {p.name: p for p in gen.PRODUCTS}
with loading_once():
    for name in gen._PROCESSES[int(sys.argv[1])]:
        start = time.process_time()
        by_name[name].build(gen.ROOT)
        print(name, round(time.process_time() - start, 2), flush=True)
"""


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _check_once() -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "apconform.dev.cli", "gen", "--check"],
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    walls: list[float] = []
    cpus: list[float] = []
    load_before = load_average()
    for run in range(1, args.repeat + 1):
        load = _load()
        wall, cpu, status = _check_once()
        walls.append(wall)
        cpus.append(cpu)
        print(
            f"gen --check run {run}: {wall:.2f} s wall, {cpu:.2f} CPU-s "
            f"(exit {status}; load average {load} before, {_load()} after)"
        )
    from apconform.dev import gen

    for index in range(len(gen._PROCESSES)):
        load = _load()
        done = subprocess.run(
            [sys.executable, "-c", _GROUP, str(index)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = [line.split() for line in done.stdout.splitlines()]
        total = sum(float(cpu) for _, cpu in figures)
        parts = ", ".join(f"{name} {cpu}" for name, cpu in figures)
        print(f"process {index + 1}: {total:.2f} CPU-s ({parts}; load average {load})")
    print(f"fastest check {min(walls):.2f} s wall; goal {GOAL_SECONDS:.0f} s on a quiet machine")
    if args.save:
        fastest = min(walls)
        save(
            "gen_check",
            {
                "loadAverage": {"before": load_before, "after": load_average()},
                "wallSeconds": [round(w, 2) for w in walls],
                "cpuSeconds": [round(c, 2) for c in cpus],
            },
            [
                figure(
                    "`apconform-dev gen --check`, fastest of the runs, wall",
                    f"{fastest:.2f} s",
                    goal=f"at most {GOAL_SECONDS:.0f} s on a quiet machine",
                    met=fastest <= GOAL_SECONDS,
                ),
                figure(
                    "the same, CPU of every process (median of the runs)",
                    f"{statistics.median(cpus):.2f} CPU-s",
                ),
            ],
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
