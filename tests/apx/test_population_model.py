"""The population model: keyed streams, determinism per seed, the known improvement."""

from __future__ import annotations

import hashlib
import math
import struct

from population_support import ASSUMPTIONS, COMPONENTS, SMALL

from apconform.apx.population.model import Components, Plan, cells, simulate
from apconform.apx.population.streams import key_bytes, lomax, normals, uniforms
from apconform.core.canonical import canonical_bytes


def test_a_uniform_is_the_top_53_bits_of_shake256_of_the_canonical_key() -> None:
    key = ["apx-ext-model/1", 7, 0, "acceptance", 3, "candidate", 1]
    data = hashlib.shake_256(b'["apx-ext-model/1",7,0,"acceptance",3,"candidate",1]').digest(16)
    first, second = struct.unpack(">2Q", data)
    assert uniforms(key, 2) == [(first >> 11) / 2**53, (second >> 11) / 2**53]
    # The fast key text is RFC 8785 for every key shape the model uses, and falls back otherwise.
    for odd in (key, ["a b", 1], [2**60], ["é"]):
        assert key_bytes(odd) == canonical_bytes(odd)


def test_normals_and_pareto_multipliers_follow_their_formulas() -> None:
    u0, u1 = uniforms(["k"], 2)
    assert normals(["k"], 1) == [math.sqrt(-2 * math.log(1 - u0)) * math.cos(2 * math.pi * u1)]
    (u,) = uniforms(["k"], 1)
    assert lomax(["k"], 1, 2.5) == [((1 - u) ** (-1 / 2.5) - 1) * 1.5]


def test_a_simulation_is_determined_by_its_seed_and_index() -> None:
    first = simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 3)
    assert simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 3) == first
    assert simulate(COMPONENTS, ASSUMPTIONS, SMALL, 8, 3) != first
    assert simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 4) != first
    assert first.design.families == 5 and first.design.pairs == 5
    assert len(first.design.parent.work[0]) == 5


def test_more_pairs_keep_the_draws_of_the_first_pairs() -> None:
    short = simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 0).design
    longer = simulate(COMPONENTS, ASSUMPTIONS, Plan(5, 2, 2, 1, 8), 7, 0).design
    assert longer.parent.work[:5] == short.parent.work
    assert longer.candidate.hours[:5] == short.candidate.hours


def test_the_population_improvement_is_the_assumed_one() -> None:
    # Summed over many simulated campaigns, log2(sum W_c / sum T_c) - log2(sum W_p / sum T_p)
    # approaches the assumed improvement (0.5): the model's truth is exact by construction.
    plan = Plan(10, 5, 2, 2, 10)
    sums = [0.0, 0.0, 0.0, 0.0]
    for index in range(60):
        design = simulate(COMPONENTS, ASSUMPTIONS, plan, 11, index).design
        sums[0] += design.candidate.total_work()
        sums[1] += design.candidate.total_hours()
        sums[2] += design.parent.total_work()
        sums[3] += design.parent.total_hours()
    estimate = math.log2(sums[0] / sums[1]) - math.log2(sums[2] / sums[3])
    assert abs(estimate - 0.5) < 0.05


def test_cells_count_slots_of_both_sides_and_human_attempts() -> None:
    assert cells(SMALL) == 2 * 5 * 5 * 2 + 5 * 2 * 1
    certain = Components(0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0)
    design = simulate(certain, ASSUMPTIONS.__class__(0.5, 1.0, 1.0), SMALL, 1, 0).design
    # Everything credited, every class calibrated to 1 hour: W is the slot count in each run.
    assert all(row == (2.0,) * 5 for row in design.parent.work)
    assert all(hours == 1.0 for hours in design.parent.hours)
    assert all(math.isclose(hours, 2**-0.5) for hours in design.candidate.hours)
