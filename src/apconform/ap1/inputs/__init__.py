"""What a run is sealed over: configuration, conditions, fixture and questions, derivations, plan.

May import the base modules of ``apconform.ap1``, ``apconform.core`` and ``apconform.models``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.inputs.config import RunConfig as RunConfig
    from apconform.ap1.inputs.config import load_config as load_config
    from apconform.ap1.inputs.files import InputPaths as InputPaths
    from apconform.ap1.inputs.files import example_paths as example_paths
    from apconform.ap1.inputs.files import load_inputs as load_inputs
    from apconform.ap1.inputs.files import read_text_file as read_text_file
    from apconform.ap1.inputs.items import delivered_context as delivered_context
    from apconform.ap1.inputs.items import render_user_message as render_user_message
    from apconform.ap1.inputs.plan import Cell as Cell
    from apconform.ap1.inputs.plan import RunInputs as RunInputs
    from apconform.ap1.inputs.plan import load_run_inputs as load_run_inputs
    from apconform.ap1.inputs.plan import plan_cells as plan_cells
    from apconform.ap1.inputs.sealed import SEALED_NAMES as SEALED_NAMES
    from apconform.ap1.inputs.sealed import SealedInputs as SealedInputs

__getattr__ = lazy_exports(__name__)
