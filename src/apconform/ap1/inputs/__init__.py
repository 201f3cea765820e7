"""What a run is sealed over: configuration, conditions, fixture and questions, derivations, plan.

May import the base modules of ``apconform.ap1``, ``apconform.core`` and ``apconform.models``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.inputs.config import RunConfig, load_config
    from apconform.ap1.inputs.files import InputPaths, example_paths, load_inputs, read_text_file
    from apconform.ap1.inputs.items import delivered_context, render_user_message
    from apconform.ap1.inputs.plan import Cell, RunInputs, load_run_inputs, plan_cells

__all__ = [
    "Cell",
    "InputPaths",
    "RunConfig",
    "RunInputs",
    "delivered_context",
    "example_paths",
    "load_config",
    "load_inputs",
    "load_run_inputs",
    "plan_cells",
    "read_text_file",
    "render_user_message",
]

_EXPORTS = {
    "RunConfig": "apconform.ap1.inputs.config",
    "load_config": "apconform.ap1.inputs.config",
    "Cell": "apconform.ap1.inputs.plan",
    "RunInputs": "apconform.ap1.inputs.plan",
    "load_run_inputs": "apconform.ap1.inputs.plan",
    "plan_cells": "apconform.ap1.inputs.plan",
    "InputPaths": "apconform.ap1.inputs.files",
    "example_paths": "apconform.ap1.inputs.files",
    "load_inputs": "apconform.ap1.inputs.files",
    "read_text_file": "apconform.ap1.inputs.files",
    "delivered_context": "apconform.ap1.inputs.items",
    "render_user_message": "apconform.ap1.inputs.items",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
