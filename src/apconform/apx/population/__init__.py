"""Beyond APx 0.1: preregistration, power analysis and the population interval.

APx 0.1 (section 9) says its paired bootstrap excludes baseline and task
sampling uncertainty and asks, before any audited population claim, for "a
preregistered power analysis and hierarchical uncertainty model that includes
human participants, task families, instances, and run variation". This package
is that, as an apconform extension: every document it writes says so
(``apx-ext-`` schema versions), and it never changes an APx 0.1 figure (the
estimate is the APx 0.1 deltaAPx and the APx 0.1 promotion is carried whole).

It may import ``apconform.core``, ``apconform.models`` and the APx kernel;
nothing in the kernel imports it. Only the names below are public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.apx.population.comparison import population_document, population_request
    from apconform.apx.population.design import Design, Side
    from apconform.apx.population.interval import PopulationInterval, population_interval
    from apconform.apx.population.model import Assumptions, Components, Plan, simulate
    from apconform.apx.population.pilot import estimate_components
    from apconform.apx.population.plot import power_svg
    from apconform.apx.population.power import power_request
    from apconform.apx.population.preregistration import (
        check_preregistration,
        freeze_preregistration,
    )
    from apconform.apx.population.synthetic import campaign_documents

__all__ = [
    "Assumptions",
    "Components",
    "Design",
    "Plan",
    "PopulationInterval",
    "Side",
    "campaign_documents",
    "check_preregistration",
    "estimate_components",
    "freeze_preregistration",
    "population_document",
    "population_interval",
    "population_request",
    "power_request",
    "power_svg",
    "simulate",
]

_EXPORTS = {
    "Assumptions": "apconform.apx.population.model",
    "Components": "apconform.apx.population.model",
    "Design": "apconform.apx.population.design",
    "Plan": "apconform.apx.population.model",
    "PopulationInterval": "apconform.apx.population.interval",
    "Side": "apconform.apx.population.design",
    "campaign_documents": "apconform.apx.population.synthetic",
    "check_preregistration": "apconform.apx.population.preregistration",
    "estimate_components": "apconform.apx.population.pilot",
    "freeze_preregistration": "apconform.apx.population.preregistration",
    "population_document": "apconform.apx.population.comparison",
    "population_interval": "apconform.apx.population.interval",
    "population_request": "apconform.apx.population.comparison",
    "power_request": "apconform.apx.population.power",
    "power_svg": "apconform.apx.population.plot",
    "simulate": "apconform.apx.population.model",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
