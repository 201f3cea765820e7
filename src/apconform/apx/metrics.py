"""The arithmetic of APx: AP = W / T and APx = log2(AP), and back from an exponent to a power."""

from __future__ import annotations

import math

from apconform.core.errors import ApconformError, define_code

__all__ = ["exponent_to_power", "power_metrics"]

METRIC_INPUT = define_code(
    "APX-METRIC-INPUT",
    "Work must be a finite number of at least 0 and wall time a finite number above 0",
    "Pass W >= 0 and T > 0 as finite numbers.",
    exit_status=1,
)
METRIC_OVERFLOW = define_code(
    "APX-METRIC-OVERFLOW",
    "W / T is too large for a double",
    "Check the units: wall time is in hours and must not be vanishingly small.",
    exit_status=1,
)
METRIC_EXPONENT = define_code(
    "APX-METRIC-EXPONENT",
    "The exponent is not finite or 2 to its power is not a positive double",
    "Pass a finite exponent between about -1074 and 1023.",
    exit_status=1,
)


def _finite(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def power_metrics(credited_hours: float, wall_hours: float) -> tuple[float, float | None]:
    """(AP, APx) for W reference hours over T elapsed hours; APx is None when AP is 0."""
    if not (
        _finite(credited_hours) and credited_hours >= 0 and _finite(wall_hours) and wall_hours > 0
    ):
        raise ApconformError(
            METRIC_INPUT, "Finite nonnegative work and positive wall time required"
        )
    power = credited_hours / wall_hours
    if not math.isfinite(power):
        raise ApconformError(METRIC_OVERFLOW, "Power overflow")
    return power, (math.log2(power) if power > 0 else None)


def exponent_to_power(exponent: float) -> float:
    """2 ** exponent, refusing exponents whose power is not a positive finite double."""
    if not _finite(exponent):
        raise ApconformError(METRIC_EXPONENT, "Finite exponent required")
    try:
        power = float(2.0**exponent)
    except OverflowError:
        power = math.inf
    if not math.isfinite(power) or power == 0:
        raise ApconformError(METRIC_EXPONENT, "Exponent outside representable range")
    return power
