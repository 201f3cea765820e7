"""Benchmark: in-process APx compare on 100 pairs with 10,000 bootstrap resamples.

Each pair is a tutorial campaign (three slots) with its own wall times, so the
resampled sums differ from draw to draw. The target is at most 200 ms; the
reference kernel on Node measures about 220 ms for this size on a two-core
machine. Run: .venv/bin/python tests/benchmarks/bench_apx_compare.py [--save]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any

from results import figure, load_average, save

from apconform.apx import compare, compare_document
from apconform.apx.bootstrap import bootstrap_deltas
from apconform.apx.tutorial import tutorial_manifest, tutorial_pairs

TARGET_MS = 200.0
REFERENCE_MS = 220.0
PAIRS, ITERATIONS = 100, 10_000


def request() -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
    manifest = tutorial_manifest()
    parents = [0.4 + (i % 9) * 0.025 for i in range(PAIRS)]
    candidates = [0.2 + (i % 7) * 0.03 for i in range(PAIRS)]
    pairs = tutorial_pairs(manifest, parents, candidates)
    return manifest, {"pairs": pairs}, {"iterations": ITERATIONS, "seed": 20260907}


def measure(call: Any, repeats: int) -> list[float]:
    timings = []
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        call()
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    load_before = load_average()
    rows: list[dict[str, Any]] = []
    manifest, comparison, options = request()
    promotion = compare_document(manifest, comparison, options)
    interval = promotion["interval"]
    print(
        f"comparison: {PAIRS} pairs x {ITERATIONS} resamples: {promotion['decision']}, deltaAPx "
        f"{promotion['deltaAPx']:.6g}, interval [{interval['lower']:.6g}, {interval['upper']:.6g}]"
    )
    parent = [(4.5, 0.4 + (i % 9) * 0.025) for i in range(PAIRS)]
    candidate = [(4.5, 0.2 + (i % 7) * 0.03) for i in range(PAIRS)]
    for name, call in (
        (
            "compare_document (JSON promotion)",
            lambda: compare_document(manifest, comparison, options),
        ),
        ("compare (typed Promotion model)", lambda: compare(manifest, comparison, options)),
        (
            "  of which the bootstrap alone",
            lambda: bootstrap_deltas(parent, candidate, ITERATIONS, 20260907),
        ),
    ):
        timings = measure(call, 15)
        best, median = min(timings), statistics.median(timings)
        line = f"{name}: best {best:.1f} ms, median {median:.1f} ms over {len(timings)} runs"
        if not name.startswith("  "):
            line += (
                f"; target <= {TARGET_MS:.0f} ms ({'met' if median <= TARGET_MS else 'NOT met'} by "
                f"the median); reference kernel {REFERENCE_MS:.0f} ms, ratio "
                f"{median / REFERENCE_MS:.2f}"
            )
            rows.append(
                figure(
                    f"`{name.split(' ')[0]}`, {PAIRS} pairs, {ITERATIONS:,} resamples, median of "
                    f"{len(timings)} runs",
                    f"{median:.1f} ms",
                    baseline=f"{REFERENCE_MS:.0f} ms (reference kernel, Node, issue 33)",
                    ratio=median / REFERENCE_MS,
                    goal=f"at most {TARGET_MS:.0f} ms",
                    met=median <= TARGET_MS,
                )
            )
        print(line)
    if args.save:
        save("apx_compare", {"loadAverage": {"before": load_before, "after": load_average()}}, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
