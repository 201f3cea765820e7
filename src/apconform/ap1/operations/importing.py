"""The import and comparison operations vectors exercise, each a thin call into the importers.

``ap1.import_reference`` converts a published reference run given as
documents (its resolved configuration and printed seal record, its fixture and
question set, the user's derivations, the AP-1 text and the transcript's
records in order); ``ap1.compare_reference_execution`` compares one execution
record's scores with a reference verdict; ``ap1.d2_cap`` words the D2 cap of a
configuration.
"""

from __future__ import annotations

from collections.abc import Mapping

from apconform.ap1.importers.reference.comparison import checked_verdict, compare_execution
from apconform.ap1.importers.reference.conversion import convert_reference_run
from apconform.ap1.inputs.config import load_config
from apconform.ap1.inputs.plan import CONDITIONS
from apconform.ap1.inputs.sealed import SEALED_NAMES, SealedInputs
from apconform.ap1.operations.answers import D2Cap, ImportedRun
from apconform.ap1.operations.vector_inputs import (
    RUN_DOCUMENTS,
    decimal_member,
    guarded,
    member,
)
from apconform.ap1.scoring.api import prepare_inputs
from apconform.ap1.scoring.execution import score_record
from apconform.ap1.scoring.measures.reproducibility import d2_cap

__all__: list[str] = []


@guarded("ap1.import_reference", inputs={"/derivations": "ap1-derivations"})
def import_reference_op(value: object) -> ImportedRun:
    """Input: the published documents and "records"; the converted executions and verdicts."""
    records = member(value, "records", list)
    documents: dict[str, dict[str, object]] = {}
    for name in SEALED_NAMES:
        documents[name] = member(value, name, dict)
        if name == SEALED_NAMES[0]:  # the seal record is checked right after the configuration
            printed = member(value, "sealRecord", dict)
    text = member(value, "ap1Text", str)
    sealed = SealedInputs.from_documents(documents, text)
    run = convert_reference_run(
        config=sealed.config,
        printed=printed,
        fixture=sealed.fixture,
        questions=sealed.questions,
        derivations=sealed.derivations,
        ap1_text=text,
        records=enumerate(records, start=1),
    )
    return {
        "configHash": run.hashes["configHash"],
        "sealHash": run.hashes["sealHash"],
        "configuration": run.config.document,
        "conversions": run.config.notes,
        "droppedClaims": run.dropped,
        "groundTruthChecks": run.ground_truth,
        "executions": [e.record for e in run.executions],
        "verdicts": [e.verdict for e in run.executions],
    }


@guarded("ap1.compare_reference_execution", inputs=RUN_DOCUMENTS)
def compare_reference_execution_op(value: object) -> Mapping[str, object]:
    """Input: the sealed documents, "record", "verdict", "returns"? and "august"?; the rows."""
    if not isinstance(value, dict):
        raise TypeError("the input is not an object")  # the guard refuses it, as it always did
    prepared = prepare_inputs(value)
    ours = score_record(member(value, "record", dict), prepared).to_json()
    given = value.get("returns") or []
    returns = [decimal_member(r, "$.returns") for r in given]
    august = value.get("august") is True
    verdict = checked_verdict(member(value, "verdict", dict), "the verdict")
    return compare_execution(prepared, ours, verdict, returns, august=august)


@guarded("ap1.d2_cap", inputs={"/config": "ap1-config"})
def d2_cap_op(value: object) -> D2Cap:
    """Input {"config"}; the D2 cap as the report words it, or null."""
    config = load_config(member(value, "config", dict))
    return {"cap": d2_cap({c: config.condition(c).sampling for c in CONDITIONS})}
