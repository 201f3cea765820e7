"""The AP-1 instrument: sealed inputs, the calculator, the endpoint adapter, the engine, scoring.

Layers, each importing only those before it (tests/test_architecture.py checks):

- base modules: ``numbers`` (exact decimals), ``refusal``, ``masking``, ``clock``, ``rundir``;
- ``calculator`` (the expression grammar and exact evaluator) and ``inputs`` (configuration,
  fixture, questions, conditions, derivations, the plan);
- ``seal`` (sealing, verification, the reference instrument's hashes);
- ``transcript`` (the hash-chained record and its verifier);
- ``run`` (endpoint adapter, tool loop, engine) and ``mock`` (the built-in endpoint);
- ``scoring`` (one module per measure, the report, adjudication, re-scoring);
- ``operations`` (what the vectors exercise), ``cli`` and ``demo``.

Public names are imported on first use, so ``import apconform.ap1`` costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.calculator.evaluator import CalcResult, Calculator, calculate
    from apconform.ap1.inputs.config import RunConfig, load_config
    from apconform.ap1.inputs.plan import Cell, RunInputs, load_run_inputs, plan_cells
    from apconform.ap1.mock.server import MockEndpoint
    from apconform.ap1.refusal import Ap1Refused
    from apconform.ap1.run.engine import RunOptions, RunResult, run_sealed
    from apconform.ap1.scoring.api import prepare_inputs, rescore, rescore_bytes, score_execution
    from apconform.ap1.scoring.files import score_run
    from apconform.ap1.seal.build import build_seal, write_sealed_run
    from apconform.ap1.seal.reference import reference_config_hash, reference_seal_hashes
    from apconform.ap1.seal.verify import SealedRun, open_sealed_run, verify_seal
    from apconform.ap1.transcript.verify import verify_transcript

__all__ = [
    "Ap1Refused",
    "CalcResult",
    "Calculator",
    "Cell",
    "MockEndpoint",
    "RunConfig",
    "RunInputs",
    "RunOptions",
    "RunResult",
    "SealedRun",
    "build_seal",
    "calculate",
    "load_config",
    "load_run_inputs",
    "open_sealed_run",
    "plan_cells",
    "prepare_inputs",
    "reference_config_hash",
    "reference_seal_hashes",
    "rescore",
    "rescore_bytes",
    "run_sealed",
    "score_execution",
    "score_run",
    "verify_seal",
    "verify_transcript",
    "write_sealed_run",
]

_EXPORTS = {
    "CalcResult": "apconform.ap1.calculator.evaluator",
    "Calculator": "apconform.ap1.calculator.evaluator",
    "calculate": "apconform.ap1.calculator.evaluator",
    "RunConfig": "apconform.ap1.inputs.config",
    "load_config": "apconform.ap1.inputs.config",
    "Cell": "apconform.ap1.inputs.plan",
    "RunInputs": "apconform.ap1.inputs.plan",
    "load_run_inputs": "apconform.ap1.inputs.plan",
    "plan_cells": "apconform.ap1.inputs.plan",
    "Ap1Refused": "apconform.ap1.refusal",
    "build_seal": "apconform.ap1.seal.build",
    "write_sealed_run": "apconform.ap1.seal.build",
    "reference_config_hash": "apconform.ap1.seal.reference",
    "reference_seal_hashes": "apconform.ap1.seal.reference",
    "SealedRun": "apconform.ap1.seal.verify",
    "open_sealed_run": "apconform.ap1.seal.verify",
    "verify_seal": "apconform.ap1.seal.verify",
    "verify_transcript": "apconform.ap1.transcript.verify",
    "RunOptions": "apconform.ap1.run.engine",
    "RunResult": "apconform.ap1.run.engine",
    "run_sealed": "apconform.ap1.run.engine",
    "MockEndpoint": "apconform.ap1.mock.server",
    "prepare_inputs": "apconform.ap1.scoring.api",
    "rescore": "apconform.ap1.scoring.api",
    "rescore_bytes": "apconform.ap1.scoring.api",
    "score_execution": "apconform.ap1.scoring.api",
    "score_run": "apconform.ap1.scoring.files",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
