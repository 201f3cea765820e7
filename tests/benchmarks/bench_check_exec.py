"""Benchmark: the whole vector suite through the exec adapter (target: under 10 seconds).

Run: .venv/bin/python tests/benchmarks/bench_check_exec.py [REPEATS] [--save]
Prints the wall time of each full run (process start included) and the best.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from results import figure, load_average, save

from apconform.conformance.runner import CheckOptions, run_check

REPO = Path(__file__).resolve().parents[2]
IMPL = f"exec:{sys.executable} {REPO / 'examples' / 'adapters' / 'reference_exec.py'}"


TARGET_SECONDS = 10.0


def main() -> int:
    arguments = [a for a in sys.argv[1:] if a != "--save"]
    repeats = int(arguments[0]) if arguments else 3
    load_before = load_average()
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
    best = min(times)
    print(f"best: {best:.2f} s for the whole suite (target < {TARGET_SECONDS:.0f} s)")
    if "--save" in sys.argv[1:]:
        save(
            "check_exec",
            {
                "loadAverage": {"before": load_before, "after": load_average()},
                "seconds": [round(t, 2) for t in times],
            },
            [
                figure(
                    f"`apconform check` of all {len(run.cases)} vectors ({per_protocol}) through "
                    "the exec adapter, best of the runs",
                    f"{best:.2f} s",
                    goal=f"under {TARGET_SECONDS:.0f} s",
                    met=best < TARGET_SECONDS,
                )
            ],
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
