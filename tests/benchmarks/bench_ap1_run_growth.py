"""Benchmark: does an AP-1 run's cost per execution stay flat as the run grows?

Runs the worked example against the built-in endpoint (persona mock-correct,
no injected latency, in its own process as a remote endpoint would be) at
1,000, 3,000 and 10,000 executions with concurrency 16, and prints the
runner's CPU time per execution (user + system of the running process, every
thread, from ``time.process_time``; the endpoint's CPU is not in it) beside the
wall time. CPU is the figure to read on a shared machine: wall time depends on
who else holds the cores.

Goal: CPU per execution at 10,000 over CPU per execution at 1,000 at most 1.1
(nothing in the run loop grows with the run).

    .venv/bin/python tests/benchmarks/bench_ap1_run_growth.py [--sizes 1000 3000 10000] [--save]
"""

from __future__ import annotations

import argparse
import copy
import io
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import figure, load_average, save

from apconform.ap1.inputs.files import example_paths
from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.seal.build import write_sealed_run
from apconform.ap1.transcript.verify import verify_transcript
from apconform.core.files import load_path

CONCURRENCY = 16
EXECUTIONS_PER_REPEAT = 100  # 50 derivable items x 2 conditions
GOAL_RATIO = 1.1


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def start_endpoint(latency_ms: int = 0) -> tuple[subprocess.Popen[str], str]:
    """The built-in endpoint in its own process on a free port; its chat-completions URL."""
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "apconform.cli",
            "ap1",
            "serve-mock",
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    first = server.stdout.readline()  # "built-in endpoint on URL (seed ..., latency ...)"
    if " on " not in first:
        server.kill()
        raise SystemExit(f"the built-in endpoint did not start: {first!r}")
    return server, first.split(" on ", 1)[1].split()[0]


def run_once(url: str, executions: int, folder: Path) -> tuple[float, float, int, bool]:
    """Wall seconds, runner CPU seconds, executions recorded and whether the chain verifies."""
    paths = example_paths()
    config = copy.deepcopy(load_path(paths.config))
    config["endpoint"].update(url=url, model="mock-correct")
    config["repeats"] = str(executions // EXECUTIONS_PER_REPEAT)
    inputs = load_run_inputs(
        config=config,
        fixture=load_path(paths.fixture),
        questions=load_path(paths.questions),
        derivations=load_path(paths.derivations),
        ap1_text=paths.ap1_text.read_text(encoding="utf-8"),
    )
    run_dir = folder / f"run-{executions}"
    write_sealed_run(run_dir, inputs)
    cpu, started = time.process_time(), time.perf_counter()
    result = run_sealed(
        run_dir, RunOptions(concurrency=CONCURRENCY, progress=io.StringIO(), tty=False)
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    report = verify_transcript(run_dir / "transcript.jsonl", seal_hash=result.seal_hash)
    shutil.rmtree(run_dir)
    return wall, cpu, result.statuses.get("EXECUTED", 0), report.ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    load_before = load_average()
    server, url = start_endpoint()
    per_execution: list[float] = []
    rows = []
    try:
        print(f"AP-1 run growth: built-in endpoint at {url}, no latency, concurrency {CONCURRENCY}")
        print(f"load average before: {_load()} (2 cores, shared with other jobs)")
        with tempfile.TemporaryDirectory(prefix="ap1-bench-growth-") as tmp:
            for size in args.sizes:
                wall, cpu, executed, ok = run_once(url, size, Path(tmp))
                per_execution.append(cpu / executed)
                rows.append(
                    figure(
                        f"runner CPU per execution, {executed:,} executions "
                        f"(wall {wall:.1f} s, chain {'verifies' if ok else 'BROKEN'})",
                        f"{1000 * cpu / executed:.2f} ms",
                    )
                )
                print(
                    f"  {executed:6,} executions: wall {wall:6.1f} s, runner CPU {cpu:6.1f} s, "
                    f"{1000 * cpu / executed:.2f} ms CPU per execution, chain "
                    f"{'verifies' if ok else 'BROKEN'} (load {_load()})"
                )
    finally:
        server.terminate()
        server.wait(timeout=10)
    ratio = per_execution[-1] / per_execution[0]
    print(
        f"CPU per execution, last / first: {ratio:.2f} (goal <= {GOAL_RATIO}): "
        + ("met" if ratio <= GOAL_RATIO else "NOT MET")
    )
    print(f"load average after: {_load()}")
    if args.save:
        rows.append(
            figure(
                "CPU per execution, the longest run over the shortest",
                f"{ratio:.2f}",
                goal=f"at most {GOAL_RATIO}",
                met=ratio <= GOAL_RATIO,
            )
        )
        save(
            "ap1_run_growth",
            {"loadAverage": {"before": load_before, "after": load_average()}},
            rows,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
