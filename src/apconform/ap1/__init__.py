"""The AP-1 instrument, part 1: sealed inputs, the calculator, the endpoint adapter, the engine.

Public surface (everything else is private to the package).
"""

from apconform.ap1.calculator import CalcResult, Calculator, calculate
from apconform.ap1.compat import reference_config_hash, reference_seal_hashes
from apconform.ap1.config import RunConfig, load_config
from apconform.ap1.plan import Cell, RunInputs, load_run_inputs, plan_cells
from apconform.ap1.refusal import Ap1Refused
from apconform.ap1.seal_verify import SealedRun, open_sealed_run, verify_seal
from apconform.ap1.sealing import build_seal, write_sealed_run

__all__ = [
    "Ap1Refused",
    "CalcResult",
    "Calculator",
    "Cell",
    "RunConfig",
    "RunInputs",
    "SealedRun",
    "build_seal",
    "calculate",
    "load_config",
    "load_run_inputs",
    "open_sealed_run",
    "plan_cells",
    "reference_config_hash",
    "reference_seal_hashes",
    "verify_seal",
    "write_sealed_run",
]
