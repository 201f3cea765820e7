"""The refusals of the extension beyond APx 0.1, each with a stable APX-EXT- code.

A refused input exits with 2 on the command line and answers 422 from the API;
the APx 0.1 kernel's own refusals keep their APX- codes and statuses.
"""

from __future__ import annotations

from apconform.core.errors import ErrorCode, define_code

__all__ = [
    "CALIBRATION",
    "DESIGN_DEGENERATE",
    "DESIGN_FAMILIES",
    "DESIGN_PAIRS",
    "DESIGN_PARTICIPANTS",
    "DESIGN_POWER",
    "PILOT_DESIGN",
    "POWER_BUDGET",
    "POWER_SOURCE",
    "POWER_TAIL",
    "POWER_TARGET",
    "PREREG_HASH",
    "PREREG_PLAN",
]


def _code(code: str, title: str, hint: str) -> ErrorCode:
    return define_code(code, title, hint, exit_status=2, http_status=422)


PREREG_HASH = _code(
    "APX-EXT-PRE-HASH",
    "The preregistration does not match its frozen hash",
    "It changed after it was frozen: restore it, or register a new version "
    "(apconform apx preregister) and say so; a changed preregistration is not the one registered.",
)
PREREG_PLAN = _code(
    "APX-EXT-PRE-PLAN",
    "The planned runs per configuration differ from the planned pairs",
    "APx 0.1 pairs every parent run with one candidate run: plan as many runs of each "
    "configuration as pairs.",
)
POWER_SOURCE = _code(
    "APX-EXT-POW-SOURCE",
    "A power request needs exactly one source of variance components",
    "Give either components or a pilot campaign to estimate them from, not both.",
)
POWER_TAIL = _code(
    "APX-EXT-POW-TAIL",
    "The task-time tail and its parameters disagree",
    "A pareto tail takes a tailIndex and taskTime and attemptHours of 0; a lognormal tail "
    "takes no tailIndex.",
)
POWER_TARGET = _code(
    "APX-EXT-POW-TARGET",
    "The power target cannot be searched",
    "A power target lies from 0.5 to 0.999, and upTo must be at least the plan's value of "
    "the varied number (pairs and families up to the APx limits).",
)
POWER_BUDGET = _code(
    "APX-EXT-POW-BUDGET",
    "The power analysis could need more work than its budget allows",
    "Lower simulations, narrow the search (upTo) or the plan, or raise budget (at most "
    "10,000,000 work units).",
)
CALIBRATION = _code(
    "APX-EXT-POW-CALIBRATION",
    "A simulated class could not be calibrated in 1,000 draws",
    "Raise humanAcceptance or the planned attempts: a class needs an accepted attempt.",
)
PILOT_DESIGN = _code(
    "APX-EXT-PILOT-DESIGN",
    "The pilot campaign cannot inform the variance components",
    "A pilot needs at least two pairs, two families and calibration attempts that name "
    "their participants; otherwise give the components yourself.",
)
DESIGN_FAMILIES = _code(
    "APX-EXT-POP-FAMILIES",
    "Too few task families for a population interval",
    "A population interval needs at least 5 task families (classes); with fewer, the "
    "family level cannot be estimated. Add families, or report the APx 0.1 interval alone.",
)
DESIGN_PAIRS = _code(
    "APX-EXT-POP-PAIRS",
    "Too few paired campaigns for a population interval",
    "A population interval needs at least 5 independent pairs, as the APx 0.1 interval does.",
)
DESIGN_PARTICIPANTS = _code(
    "APX-EXT-POP-PARTICIPANTS",
    "The human participant level of the calibration is unknown or degenerate",
    "Every calibration attempt must name its participantId, and at least two participants "
    "must calibrate the suite; one person's pace is not a population.",
)
DESIGN_POWER = _code(
    "APX-EXT-POP-POWER",
    "A configuration has zero power, so its APx improvement is undefined",
    "Both configurations need credited work; the APx 0.1 deltaAPx is null.",
)
DESIGN_DEGENERATE = _code(
    "APX-EXT-POP-DEGENERATE",
    "The design gives a degenerate interval",
    "Every level varies by nothing (or leaving one pair out leaves no credited work): no "
    "population uncertainty can be stated, and degenerate bounds are not population "
    "certainty. Add pairs, families or variation.",
)
