"""The generative model crossed-families-runs/1: simulated campaigns with a known improvement.

A simulated comparison has G task families of n instances, m human participants
per class making a attempts each, and R pairs of runs. Every random quantity
comes from a keyed stream (``streams``) of seed s and simulation i:

- family f: normals (z1, z2, z3) of stream ("family", f): its acceptance
  effect u = sigma_familyAcceptance z1, the candidate's family shift
  g = sigma_familyImprovement z2 and its reference time tau = exp(sigma_familyHours
  z3 - sigma_familyHours^2 / 2);
- instance s of family f: v = sigma_instanceAcceptance z_s, stream ("instance", f);
- pair r: normals (z1..z4) of stream ("run", r): the run acceptance effects
  w_p = sigma_runAcceptance z1, w_c = sigma_runAcceptance z2 and the run time
  multipliers exp(sigma_runTime z - sigma_runTime^2 / 2) from z3 (parent) and z4;
- slot (r, k, f, s): credited when uniform s of stream ("acceptance", r, k, f)
  is below Phi(beta_k + u + [k = candidate] g + v + w_k), and an agent task
  time multiplier, draw s of stream ("task-time", r, k, f);
- run (r, k): T = tau_k x run multiplier x the mean of its G n task multipliers;
- the calibration of family f, try t = 0, 1, ...: participant paces
  exp(sigma_participantHours z - sigma_participantHours^2 / 2) from stream
  ("participant", f, t), attempt multipliers from ("attempt-time", f, t), and
  acceptance uniforms from ("human-acceptance", f, t) below humanAcceptance;
  hours = tau x pace x multiplier; H = summed hours / accepted attempts, the
  first try with an accepted attempt (at most 1,000 tries).

Task-time and attempt multipliers are log-normal with log-scale SDs taskTime
and attemptHours, or Pareto (Lomax) with the tail index, all with mean 1. The
intercepts are beta_k = Phi^-1(P_k) sqrt(V_k), with V_p = 1 + u^2 + v^2 + w^2
(the SDs squared) and V_c = V_p + g^2, so each configuration's marginal
acceptance is the assumed P_k; tau_p = 1 and tau_c = 2^(log2(P_c / P_p) -
improvement). The population improvement is then exactly the assumed one:
log2(E W_c / E T_c) - log2(E W_p / E T_p) = improvement, because the reference
hours are independent of acceptance and every multiplier has mean 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from apconform.apx.population import errors
from apconform.apx.population.design import Design, Side
from apconform.apx.population.streams import MODEL_TAG, key_bytes, lomax, normals, uniforms
from apconform.core.errors import ApconformError

__all__ = [
    "ILLUSTRATIVE",
    "Assumptions",
    "Components",
    "Plan",
    "SimulatedCampaigns",
    "cells",
    "simulate",
]

MAX_CALIBRATION_TRIES = 1000
_SQRT_HALF = math.sqrt(0.5)


@dataclass(frozen=True)
class Components:
    """The variance components (see ApxExtComponents in schemas/apx_population.yaml)."""

    familyAcceptance: float
    familyImprovement: float
    instanceAcceptance: float
    runAcceptance: float
    runTime: float
    taskTime: float
    familyHours: float
    participantHours: float
    attemptHours: float
    humanAcceptance: float
    tail: str = "lognormal"
    tailIndex: float | None = None

    @classmethod
    def from_dict(cls, value: dict[str, Any]) -> Components:
        return cls(**value)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            name: getattr(self, name)
            for name in (
                "familyAcceptance",
                "familyImprovement",
                "instanceAcceptance",
                "runAcceptance",
                "runTime",
                "taskTime",
                "familyHours",
                "participantHours",
                "attemptHours",
                "humanAcceptance",
                "tail",
            )
        }
        if self.tailIndex is not None:
            out["tailIndex"] = self.tailIndex
        return out


ILLUSTRATIVE = Components(
    familyAcceptance=0.5,
    familyImprovement=0.3,
    instanceAcceptance=0.5,
    runAcceptance=0.2,
    runTime=0.25,
    taskTime=0.8,
    familyHours=0.5,
    participantHours=0.3,
    attemptHours=0.4,
    humanAcceptance=0.8,
)
"""Illustrative components (not measured anywhere): the base of the docs' examples, the
tests and the coverage study's scenarios."""


@dataclass(frozen=True)
class Assumptions:
    """The assumed effects: the improvement and each configuration's marginal acceptance."""

    improvement: float
    parentAcceptance: float
    candidateAcceptance: float


@dataclass(frozen=True)
class Plan:
    """The numbers of every level of a design."""

    families: int
    instancesPerFamily: int
    participantsPerClass: int
    attemptsPerParticipant: int
    pairs: int

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Plan:
        """The plan of a validated document. JSON lets an integer be written 39.0, and the
        schema accepts that; the counts become Python integers here, once, so no later
        step (a range, a digest length) meets a float."""
        return cls(
            families=int(value["families"]),
            instancesPerFamily=int(value["instancesPerFamily"]),
            participantsPerClass=int(value["participantsPerClass"]),
            attemptsPerParticipant=int(value["attemptsPerParticipant"]),
            pairs=int(value["pairs"]),
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "families": self.families,
            "instancesPerFamily": self.instancesPerFamily,
            "participantsPerClass": self.participantsPerClass,
            "attemptsPerParticipant": self.attemptsPerParticipant,
            "runsPerConfiguration": self.pairs,
            "pairs": self.pairs,
        }


def cells(plan: Plan) -> int:
    """The work units of one simulated campaign: every agent slot and every human attempt."""
    slots = 2 * plan.pairs * plan.families * plan.instancesPerFamily
    attempts = plan.families * plan.participantsPerClass * plan.attemptsPerParticipant
    return slots + attempts


Attempt = tuple[int, float, bool]
"""One simulated calibration attempt: participant index, hours, accepted."""


@dataclass(frozen=True)
class SimulatedCampaigns:
    """One simulated comparison and the reference hours its classes calibrated to.

    With ``record``, also every calibration attempt per family and every slot's
    credit per side, pair and family (what APx documents of it need).
    """

    design: Design
    reference_hours: tuple[float, ...]
    attempts: tuple[tuple[Attempt, ...], ...] = ()
    credited: tuple[tuple[tuple[tuple[bool, ...], ...], ...], ...] = ()
    """credited[k][r][f][s] for k = 0 (parent) and 1 (candidate)."""


def _part(part: int | str) -> str:
    return str(part) if type(part) is int else f'"{part}"'


def _lognormal(draws: list[float], sd: float) -> list[float]:
    shift = sd * sd / 2.0
    exp = math.exp
    return [exp(sd * z - shift) for z in draws]


class _Simulator:
    """The draws of one simulation (seed, index) under one set of components and effects."""

    def __init__(
        self, components: Components, assumptions: Assumptions, seed: int, index: int
    ) -> None:
        self.c = components
        self.prefix = key_bytes([MODEL_TAG, seed, index]).decode("ascii")[:-1] + ","
        variance_p = 1.0 + (
            components.familyAcceptance**2
            + components.instanceAcceptance**2
            + components.runAcceptance**2
        )
        variance_c = variance_p + components.familyImprovement**2
        self.beta = (
            _intercept(assumptions.parentAcceptance, variance_p),
            _intercept(assumptions.candidateAcceptance, variance_c),
        )
        ratio = math.log2(assumptions.candidateAcceptance / assumptions.parentAcceptance)
        self.tau = (1.0, 2.0 ** (ratio - assumptions.improvement))

    def key(self, *parts: int | str) -> bytes:
        """The canonical key text [MODEL_TAG, seed, index, *parts] (parts: integers, words)."""
        return (self.prefix + ",".join(map(_part, parts)) + "]").encode("ascii")

    def normals(self, count: int, needed: bool, *parts: int | str) -> list[float]:
        """The normals of a stream, or zeros when every SD that scales them is 0 (no draw
        changes: streams are keyed, so skipping one leaves every other as it is)."""
        return normals(self.key(*parts), count) if needed else [0.0] * count

    def multipliers(self, count: int, sd: float, *parts: int | str) -> list[float]:
        """Task-time or attempt multipliers with mean 1 (log-normal or Pareto)."""
        if self.c.tail == "pareto":
            assert self.c.tailIndex is not None
            return lomax(self.key(*parts), count, self.c.tailIndex)
        if sd == 0.0:
            return [1.0] * count
        return _lognormal(normals(self.key(*parts), count), sd)

    def calibrate(self, family: int, tau: float, plan: Plan) -> tuple[float, list[Attempt]]:
        c = self.c
        m, a = plan.participantsPerClass, plan.attemptsPerParticipant
        for attempt in range(MAX_CALIBRATION_TRIES):
            paces = _lognormal(
                self.normals(m, c.participantHours > 0, "participant", family, attempt),
                c.participantHours,
            )
            spread = self.multipliers(m * a, c.attemptHours, "attempt-time", family, attempt)
            if c.humanAcceptance >= 1.0:
                verdicts = [True] * (m * a)
            else:
                verdicts = [
                    u < c.humanAcceptance
                    for u in uniforms(self.key("human-acceptance", family, attempt), m * a)
                ]
            accepted = sum(verdicts)
            if accepted:
                hours = 0.0
                made: list[Attempt] = []
                for p in range(m):
                    for j in range(a):
                        spent = tau * paces[p] * spread[p * a + j]
                        hours += spent
                        made.append((p, spent, verdicts[p * a + j]))
                return hours / accepted, made
        raise ApconformError(
            errors.CALIBRATION,
            f"simulated class {family} had no accepted attempt in {MAX_CALIBRATION_TRIES} draws",
            path="$.components.humanAcceptance",
        )

    def run(self, plan: Plan, record: bool) -> SimulatedCampaigns:
        c = self.c
        g_n, n = plan.families, plan.instancesPerFamily
        family_effect, family_shift, reference = [], [], []
        instance_effects, attempts = [], []
        flags: list[list[list[tuple[bool, ...]]]] = [[], []]
        for f in range(g_n):
            z = self.normals(
                3,
                c.familyAcceptance > 0 or c.familyImprovement > 0 or c.familyHours > 0,
                "family",
                f,
            )
            family_effect.append(c.familyAcceptance * z[0])
            family_shift.append(c.familyImprovement * z[1])
            tau = math.exp(c.familyHours * z[2] - c.familyHours**2 / 2.0)
            hours, made = self.calibrate(f, tau, plan)
            reference.append(hours)
            attempts.append(tuple(made))
            instance_effects.append(
                [
                    c.instanceAcceptance * v
                    for v in self.normals(n, c.instanceAcceptance > 0, "instance", f)
                ]
            )
        sides: list[tuple[list[tuple[float, ...]], list[float]]] = [([], []), ([], [])]
        erfc = math.erfc
        for r in range(plan.pairs):
            z = self.normals(4, c.runAcceptance > 0 or c.runTime > 0, "run", r)
            for k, name in enumerate(("parent", "candidate")):
                level = self.beta[k] + c.runAcceptance * z[k]
                work = []
                run_flags: list[tuple[bool, ...]] = []
                task_total = 0.0
                for f in range(g_n):
                    shift = level + family_effect[f] + (family_shift[f] if k else 0.0)
                    effects = instance_effects[f]
                    if shift == math.inf:  # acceptance 1: every slot is credited
                        hits = [True] * n
                    else:
                        draws = uniforms(self.key("acceptance", r, name, f), n)
                        # Phi(x) = erfc(-x / sqrt 2) / 2.
                        hits = [
                            draws[s] < 0.5 * erfc(-(shift + effects[s]) * _SQRT_HALF)
                            for s in range(n)
                        ]
                    if record:
                        run_flags.append(tuple(hits))
                    work.append(sum(hits) * reference[f])
                    task_total += sum(self.multipliers(n, c.taskTime, "task-time", r, name, f))
                run_multiplier = math.exp(c.runTime * z[2 + k] - c.runTime**2 / 2.0)
                sides[k][0].append(tuple(work))
                flags[k].append(run_flags)
                sides[k][1].append(self.tau[k] * run_multiplier * task_total / (g_n * n))
        design = Design(
            families=g_n,
            parent=Side(tuple(sides[0][0]), tuple(sides[0][1])),
            candidate=Side(tuple(sides[1][0]), tuple(sides[1][1])),
        )
        if not record:
            return SimulatedCampaigns(design, tuple(reference))
        return SimulatedCampaigns(
            design,
            tuple(reference),
            tuple(attempts),
            tuple(tuple(tuple(run) for run in side) for side in flags),
        )


def _intercept(probability: float, variance: float) -> float:
    if probability >= 1.0:
        return math.inf
    return NormalDist().inv_cdf(probability) * math.sqrt(variance)


def simulate(
    components: Components,
    assumptions: Assumptions,
    plan: Plan,
    seed: int,
    index: int,
    *,
    record: bool = False,
) -> SimulatedCampaigns:
    """Simulated comparison number ``index`` of stream seed ``seed`` (deterministic)."""
    return _Simulator(components, assumptions, seed, index).run(plan, record)
