"""Derivations: each item's ground truth as declared steps, evaluated exactly, checked when sealed.

``evaluation`` computes, ``structure`` checks that a derivation resolves, ``checks`` adds the
seal-time perturbation checks. May import ``apconform.ap1.inputs.items`` and ``config``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.inputs.derivations.checks import (
        derivation_violations as derivation_violations,
    )
    from apconform.ap1.inputs.derivations.evaluation import evaluate as evaluate

__getattr__ = lazy_exports(__name__)
