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
    from apconform.ap1.calculator.evaluator import CalcResult as CalcResult
    from apconform.ap1.calculator.evaluator import Calculator as Calculator
    from apconform.ap1.calculator.evaluator import calculate as calculate
    from apconform.ap1.inputs.config import RunConfig as RunConfig
    from apconform.ap1.inputs.config import load_config as load_config
    from apconform.ap1.inputs.plan import Cell as Cell
    from apconform.ap1.inputs.plan import RunInputs as RunInputs
    from apconform.ap1.inputs.plan import load_run_inputs as load_run_inputs
    from apconform.ap1.inputs.plan import plan_cells as plan_cells
    from apconform.ap1.mock.server import MockEndpoint as MockEndpoint
    from apconform.ap1.refusal import Ap1Refused as Ap1Refused
    from apconform.ap1.run.engine import RunOptions as RunOptions
    from apconform.ap1.run.engine import RunResult as RunResult
    from apconform.ap1.run.engine import run_sealed as run_sealed
    from apconform.ap1.scoring.api import prepare_inputs as prepare_inputs
    from apconform.ap1.scoring.api import rescore as rescore
    from apconform.ap1.scoring.api import rescore_bytes as rescore_bytes
    from apconform.ap1.scoring.api import score_execution as score_execution
    from apconform.ap1.scoring.files import score_run as score_run
    from apconform.ap1.seal.build import build_seal as build_seal
    from apconform.ap1.seal.build import write_sealed_run as write_sealed_run
    from apconform.ap1.seal.reference import reference_config_hash as reference_config_hash
    from apconform.ap1.seal.reference import reference_seal_hashes as reference_seal_hashes
    from apconform.ap1.seal.verify import SealedRun as SealedRun
    from apconform.ap1.seal.verify import open_sealed_run as open_sealed_run
    from apconform.ap1.seal.verify import verify_seal as verify_seal
    from apconform.ap1.transcript.verify import verify_transcript as verify_transcript

__getattr__ = lazy_exports(__name__)
