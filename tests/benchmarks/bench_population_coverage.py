"""Coverage measured: the population interval against populations with a known improvement.

    nice -n 19 .venv/bin/python tests/benchmarks/bench_population_coverage.py [--jobs 2]
        [--populations 1000] [--scenario NAME ...] [--output docs/apx/population-coverage.json]

For every scenario, draws populations (simulated comparisons of the model
crossed-families-runs/1, whose true improvement is known exactly) and runs on
each one the same data three ways:

- the population interval (``apconform.apx.population.population_interval``,
  pair-jackknife-anova-t/1), the method the kit ships;
- the APx 0.1 paired percentile bootstrap (``apconform.apx.bootstrap``, 2,000
  resamples, its default seed), exactly as ``apx promote`` computes it;
- a basic multi-level percentile bootstrap, the comparator the issue names: each
  of 1,000 resamples draws pairs, then families, then instances within each drawn
  family and participants within each drawn family's calibration, all with
  replacement, recomputes every class's reference hours (a resample whose
  participants accepted nothing keeps the family's own hours) and the APx
  improvement; the 2.5% and 97.5% quantiles are the interval. Vectorised with
  NumPy (installed with the dev extra).

It prints one line per scenario and writes the figures, with the run time, to
the output file; ``apconform-dev gen`` renders that file as the table in
docs/apx/population-coverage.md. A statistics study, not a timed test: CPU heavy
(the last run's CPU seconds per scenario are on that page); run it under nice.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from apconform.apx.bootstrap import DEFAULT_ITERATIONS, DEFAULT_SEED, bootstrap_deltas, percentile
from apconform.apx.population.interval import population_interval
from apconform.apx.population.model import (
    ILLUSTRATIVE,
    Assumptions,
    Components,
    Plan,
    SimulatedCampaigns,
    simulate,
)
from apconform.core.errors import ApconformError

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "docs" / "apx" / "population-coverage.json"
SEED = 20261130
NOMINAL = 0.95
BAND = (0.935, 0.965)
MULTILEVEL_RESAMPLES = 1000

BASE = ILLUSTRATIVE
EFFECT = Assumptions(improvement=0.5, parentAcceptance=0.6, candidateAcceptance=0.7)
PLAN = Plan(
    families=12, instancesPerFamily=5, participantsPerClass=3, attemptsPerParticipant=2, pairs=10
)


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    components: Components = BASE
    plan: Plan = PLAN
    assumptions: Assumptions = EFFECT


LARGE = replace(BASE, familyAcceptance=1.0, familyImprovement=0.8)
SCENARIOS = (
    Scenario(
        "small family variance",
        "families differ little: family acceptance SD 0.2, family improvement SD 0.05",
        replace(BASE, familyAcceptance=0.2, familyImprovement=0.05),
    ),
    Scenario(
        "large family variance",
        "families differ a lot: family acceptance SD 1.0, family improvement SD 0.8",
        LARGE,
    ),
    Scenario(
        "few families",
        "the minimum of 5 families, with large family variance",
        LARGE,
        replace(PLAN, families=5),
    ),
    Scenario(
        "few participants",
        "one participant per class (2 attempts), participant pace SD 0.8",
        replace(BASE, participantHours=0.8),
        replace(PLAN, participantsPerClass=1, attemptsPerParticipant=2),
    ),
    Scenario(
        "many participants",
        "20 participants per class (1 attempt each), participant pace SD 0.8",
        replace(BASE, participantHours=0.8),
        replace(PLAN, participantsPerClass=20, attemptsPerParticipant=1),
    ),
    Scenario(
        "heavy-tailed task times",
        "agent task times and human attempt hours Pareto with tail index 2.5 "
        "(infinite third moment)",
        replace(BASE, tail="pareto", tailIndex=2.5, taskTime=0.0, attemptHours=0.0),
    ),
    Scenario(
        "few pairs",
        "the minimum of 5 pairs (the APx 0.1 floor)",
        BASE,
        replace(PLAN, pairs=5),
    ),
)


@dataclass
class Tally:
    """Coverage, width and misses of one method over a scenario's populations."""

    intervals: int = 0
    covered: int = 0
    above: int = 0
    below: int = 0
    widths: list[float] = field(default_factory=list)

    def add(self, lower: float, upper: float, truth: float) -> None:
        self.intervals += 1
        self.widths.append(upper - lower)
        if lower > truth:
            self.above += 1
        elif upper < truth:
            self.below += 1
        else:
            self.covered += 1

    def summary(self, populations: int) -> dict[str, Any]:
        share = self.covered / populations
        return {
            "intervals": self.intervals,
            "coverage": share,
            "standardError": math.sqrt(share * (1 - share) / populations),
            "missesAbove": self.above,
            "missesBelow": self.below,
            "meanWidth": sum(self.widths) / len(self.widths) if self.widths else None,
        }


def _paired_bootstrap(simulated: SimulatedCampaigns) -> tuple[float, float] | None:
    design = simulated.design
    parent = [
        (sum(row), hours)
        for row, hours in zip(design.parent.work, design.parent.hours, strict=True)
    ]
    candidate = [
        (sum(row), hours)
        for row, hours in zip(design.candidate.work, design.candidate.hours, strict=True)
    ]
    samples = bootstrap_deltas(parent, candidate, DEFAULT_ITERATIONS, DEFAULT_SEED)
    if not samples:
        return None
    return percentile(samples, 0.025), percentile(samples, 0.975)


def _multilevel_bootstrap(
    simulated: SimulatedCampaigns, plan: Plan, rng: np.random.Generator
) -> tuple[float, float] | None:
    b, r, g, n = MULTILEVEL_RESAMPLES, plan.pairs, plan.families, plan.instancesPerFamily
    m, a = plan.participantsPerClass, plan.attemptsPerParticipant
    flags = np.array(simulated.credited, dtype=float)  # (2, R, G, n)
    hours = np.array([[h for _, h, _ in made] for made in simulated.attempts]).reshape(g, m, a)
    accepted = np.array([[x for _, _, x in made] for made in simulated.attempts], dtype=float)
    accepted = accepted.reshape(g, m, a)
    own = np.array(simulated.reference_hours)
    times = np.array([simulated.design.parent.hours, simulated.design.candidate.hours])
    pairs = rng.integers(0, r, (b, r))
    families = rng.integers(0, g, (b, g))
    instances = rng.integers(0, n, (b, g, n))
    people = rng.integers(0, m, (b, g, m))
    fam = families[:, :, None]
    spent = hours[fam, people].sum(axis=(2, 3))  # (B, G)
    wins = accepted[fam, people].sum(axis=(2, 3))
    reference = np.where(wins > 0, spent / np.where(wins > 0, wins, 1), own[families])
    deltas = []
    powers = []
    for k in (0, 1):
        chosen = flags[k][pairs[:, :, None, None], fam[:, None, :, :], instances[:, None, :, :]]
        counts = chosen.sum(axis=3)  # (B, R, G)
        work = (counts * reference[:, None, :]).sum(axis=(1, 2))
        elapsed = times[k][pairs].sum(axis=1)
        powers.append(work / elapsed)
    if (powers[0] <= 0).any() or (powers[1] <= 0).any():
        return None
    deltas = np.log2(powers[1] / powers[0])
    low, high = np.quantile(deltas, [0.025, 0.975])
    return float(low), float(high)


def run_scenario(index: int, scenario: Scenario, populations: int) -> dict[str, Any]:
    truth = scenario.assumptions.improvement
    seed = SEED + index
    rng = np.random.default_rng(seed)
    tallies = {"population": Tally(), "apx01": Tally(), "multilevel": Tally()}
    started = time.process_time()
    for population in range(populations):
        simulated = simulate(
            scenario.components, scenario.assumptions, scenario.plan, seed, population, record=True
        )
        try:
            interval = population_interval(simulated.design, 1 - NOMINAL)
            tallies["population"].add(interval.lower, interval.upper, truth)
        except ApconformError:
            pass
        paired = _paired_bootstrap(simulated)
        if paired is not None:
            tallies["apx01"].add(*paired, truth)
        multilevel = _multilevel_bootstrap(simulated, scenario.plan, rng)
        if multilevel is not None:
            tallies["multilevel"].add(*multilevel, truth)
    seconds = time.process_time() - started
    return {
        "name": scenario.name,
        "description": scenario.description,
        "seed": seed,
        "populations": populations,
        "trueImprovement": truth,
        "plan": asdict(scenario.plan),
        "components": scenario.components.to_dict(),
        "assumptions": asdict(scenario.assumptions),
        "methods": {name: tally.summary(populations) for name, tally in tallies.items()},
        "cpuSeconds": round(seconds, 1),
    }


def _run(job: tuple[int, Scenario, int]) -> dict[str, Any]:
    return run_scenario(*job)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--populations", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1, help="processes (scenarios in parallel)")
    parser.add_argument("--scenario", action="append", help="run only these scenarios")
    parser.add_argument("--output", default=str(OUTPUT), help="where to write the figures")
    args = parser.parse_args(argv)
    chosen = [
        (i, s, args.populations)
        for i, s in enumerate(SCENARIOS)
        if not args.scenario or s.name in args.scenario
    ]
    wall = time.perf_counter()
    if args.jobs > 1:
        from multiprocessing import get_context

        with get_context("fork").Pool(args.jobs) as pool:
            results = pool.map(_run, chosen, chunksize=1)
    else:
        results = [_run(job) for job in chosen]
    elapsed = time.perf_counter() - wall
    for result in results:
        methods = result["methods"]
        print(
            f"{result['name']:26s} population {methods['population']['coverage']:.3f} "
            f"(width {methods['population']['meanWidth']:.3f})  "
            f"APx 0.1 {methods['apx01']['coverage']:.3f} "
            f"(width {methods['apx01']['meanWidth']:.3f})  "
            f"multi-level {methods['multilevel']['coverage']:.3f} "
            f"(width {methods['multilevel']['meanWidth']:.3f})  "
            f"{result['cpuSeconds']} CPU s"
        )
    inside = all(BAND[0] <= r["methods"]["population"]["coverage"] <= BAND[1] for r in results)
    print(
        f"wall time {elapsed:.0f} s with {args.jobs} process(es); population interval within "
        f"{BAND[0]:.1%}-{BAND[1]:.1%} in every scenario: {inside}"
    )
    document = {
        "study": "coverage of the population interval (beyond APx 0.1)",
        "script": "tests/benchmarks/bench_population_coverage.py",
        "nominal": NOMINAL,
        "band": list(BAND),
        "trueImprovement": EFFECT.improvement,
        "multilevelResamples": MULTILEVEL_RESAMPLES,
        "apx01Iterations": DEFAULT_ITERATIONS,
        "wallSeconds": round(elapsed),
        "jobs": args.jobs,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "scenarios": results,
    }
    Path(args.output).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0 if inside else 1


if __name__ == "__main__":
    sys.exit(main())
