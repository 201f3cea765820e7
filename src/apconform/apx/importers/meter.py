"""Resource meters from upstream systems: an unmetered value is unknown, never zero.

Upstream tools often write 0 where nothing was measured. A meter is carried
forward with its status; ``unmetered``, ``unknown`` or no status at all give
``{"value": null, "status": "unknown"}`` whatever the value says, and a run
built from an unknown meter cannot be scored until the value is measured (or
honestly labelled synthetic).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from apconform.apx.checks import MISSING
from apconform.core.errors import ApconformError, define_code

__all__ = ["IMPORT_METER", "apply_meters", "import_meter"]

IMPORT_METER = define_code(
    "APX-IMP-METER",
    "A meter is neither unknown nor a measured or synthetic number of at least 0",
    'Give status "measured" or "synthetic" with a finite value >= 0, or status '
    '"unmetered" when nothing was measured.',
    exit_status=1,
    http_status=422,
)

_UNKNOWN = ("unmetered", "unknown")
_KNOWN = ("measured", "synthetic")


def import_meter(value: Any = MISSING, status: Any = MISSING) -> dict[str, Any]:
    """``{"value", "status"}`` of one meter; a missing status means unknown."""
    if status is MISSING or status in _UNKNOWN:
        return {"value": None, "status": "unknown"}
    if (
        status not in _KNOWN
        or type(value) not in (int, float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ApconformError(IMPORT_METER, "Valid measured or synthetic nonnegative meter required")
    return {"value": value, "status": status}


def apply_meters(run: Mapping[str, Any], meters: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A copy of ``run`` with each metered field set from its imported meter.

    ``meters`` maps a run field (for example ``costUSD`` or ``agentRuntimeHours``)
    to an imported meter. An unknown meter sets the field to null and records
    the field in ``unmeteredFields``, so validation refuses the run by naming
    the field instead of scoring an unknown as zero.
    """
    out = dict(run)
    unknown = []
    for name, meter in meters.items():
        out[name] = meter.get("value")
        if meter.get("status") == "unknown" or meter.get("value") is None:
            unknown.append(name)
    if unknown:
        out["unmeteredFields"] = sorted(unknown)
    return out
