"""Benchmark: the whole vector suite through the exec adapter (target: under 10 seconds).

Run: .venv/bin/python tests/benchmarks/bench_check_exec.py [REPEATS]
Prints the wall time of each full run (process start included) and the best.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from apconform.conformance.runner import CheckOptions, run_check

REPO = Path(__file__).resolve().parents[2]
IMPL = f"exec:{sys.executable} {REPO / 'examples' / 'adapters' / 'reference_exec.py'}"


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        run = run_check(CheckOptions(impl=IMPL, validate_protocol=True))
        times.append(time.perf_counter() - began)
        if run.exit_status != 0:
            print(f"run failed: {run.footer['problems']}")
            return 1
    per_protocol = ", ".join(
        f"{s['protocol']} {sum(s['counts'].values())}" for s in run.footer["protocols"]
    )
    print(f"vectors: {len(run.cases)} ({per_protocol}); adapter: exec, --validate-protocol")
    print("runs: " + ", ".join(f"{t:.2f} s" for t in times))
    print(f"best: {min(times):.2f} s for the whole suite (target < 10 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
