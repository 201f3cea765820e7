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
    from apconform.apx.population.comparison import population_document as population_document
    from apconform.apx.population.comparison import population_request as population_request
    from apconform.apx.population.design import Design as Design
    from apconform.apx.population.design import Side as Side
    from apconform.apx.population.interval import PopulationInterval as PopulationInterval
    from apconform.apx.population.interval import population_interval as population_interval
    from apconform.apx.population.model import Assumptions as Assumptions
    from apconform.apx.population.model import Components as Components
    from apconform.apx.population.model import Plan as Plan
    from apconform.apx.population.model import simulate as simulate
    from apconform.apx.population.pilot import estimate_components as estimate_components
    from apconform.apx.population.plot import power_svg as power_svg
    from apconform.apx.population.power import power_request as power_request
    from apconform.apx.population.preregistration import (
        check_preregistration as check_preregistration,
    )
    from apconform.apx.population.preregistration import (
        freeze_preregistration as freeze_preregistration,
    )
    from apconform.apx.population.synthetic import campaign_documents as campaign_documents

__getattr__ = lazy_exports(__name__)
