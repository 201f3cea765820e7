"""The typed execution record (apconform.ap1.run.record) against the schema's generated models.

The TypedDicts are written by hand, so each is checked against the Pydantic
model generated from the LinkML schema: the same JSON member names, no more and
no fewer. The three places that build execution records (the instrument's run,
the Inspect import and the reference import) all start them with
``new_execution_record``; what each writes is checked against the generated
``ExecutionRecord`` model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from apconform.ap1.run import record as typed
from apconform.cli import main
from apconform.models import ap1 as models

from .published_runs import grounded_v1, write_published_run
from .small_run import transcript_records

PAIRS: list[tuple[Any, type[BaseModel]]] = [
    (typed.ExecutionRecord, models.ExecutionRecord),
    (typed.EvidenceInputs, models.InvocationEvidenceInputs),
    (typed.RoundRecord, models.RoundRecord),
    (typed.RequestRecord, models.RequestRecord),
    (typed.HeaderField, models.HeaderField),
    (typed.SentParameter, models.SentParameter),
    (typed.AttemptRecord, models.AttemptRecord),
    (typed.ResponseRecord, models.ResponseRecord),
    (typed.EchoedParameter, models.EchoedParameter),
    (typed.ToolCallRecord, models.ToolCallRecord),
    (typed.RecordProvenance, models.RecordProvenance),
]


def _json_names(model: type[BaseModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


def _typed_keys(typed_dict: Any) -> set[str]:
    return set(typed_dict.__required_keys__) | set(typed_dict.__optional_keys__)


@pytest.mark.parametrize(("typed_dict", "model"), PAIRS, ids=[t.__name__ for t, _ in PAIRS])
def test_each_typed_dict_names_exactly_the_members_of_its_generated_model(
    typed_dict: Any, model: type[BaseModel]
) -> None:
    assert _typed_keys(typed_dict) == _json_names(model)


def test_a_member_optional_in_the_schema_is_not_required_by_the_typed_dict() -> None:
    for typed_dict, model in PAIRS:
        optional = {
            info.alias or name
            for name, info in model.model_fields.items()
            if not info.is_required()
        }
        assert not optional & set(typed_dict.__required_keys__), typed_dict.__name__


def test_a_new_record_has_the_schema_members_in_schema_order_and_validates() -> None:
    record = typed.new_execution_record(
        cell_key="base/Q01/1",
        condition="base",
        item_id="Q01",
        repeat="1",
        started_at="2026-01-01T00:00:00.000000Z",
        elapsed_seconds="0",
        delivered_context_sha256="0" * 64,
        tool_name="calculator",
    )
    assert list(record) == _json_names_in_order(models.ExecutionRecord)[:-1]  # no provenance
    assert list(record["evidenceInputs"]) == _json_names_in_order(models.InvocationEvidenceInputs)
    assert (record["status"], record["stopReason"]) == ("EXECUTED", "final-answer")
    models.ExecutionRecord.model_validate(record)


def _json_names_in_order(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _validated(records: list[dict[str, Any]]) -> list[str]:
    """Validate each execution record with the generated model; return their statuses."""
    for record in records:
        models.ExecutionRecord.model_validate(record)
        assert _typed_keys(typed.ExecutionRecord) >= set(record)
    return sorted({r["status"] for r in records})


def test_the_instruments_run_writes_records_the_generated_model_accepts(
    demo: tuple[Path, str],
) -> None:
    run_dir, _ = demo
    lines = (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    records = [r["execution"] for r in map(json.loads, lines) if r["kind"] == "execution"]
    assert len(records) == 204
    assert _validated(records) == ["EXECUTED", "UNOBSERVABLE", "VOID"]
    assert all("provenance" not in r for r in records)


def test_the_reference_import_writes_records_the_generated_model_accepts(
    tmp_path: Path,
) -> None:
    run = write_published_run(tmp_path, "run_e_mini", [grounded_v1()])
    assert main(run.import_args(tmp_path / "run")) == 0
    records = [
        r["execution"] for r in transcript_records(tmp_path / "run") if r["kind"] == "execution"
    ]
    assert len(records) == 1
    assert _validated(records) == ["EXECUTED"]
    assert records[0]["provenance"]["source"] != "inspect-ai"


def test_the_inspect_import_writes_records_the_generated_model_accepts(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from apconform.ap1.inspect import ap1, import_inspect_log

    from .small_run import PLANNED, seal_small
    from .test_inspect_task import scripted

    run_dir = seal_small(tmp_path / "run", "http://127.0.0.1:9/v1/chat/completions", "scripted")
    model = get_model("mockllm/model", custom_outputs=scripted)
    [log] = inspect_eval(
        ap1(run_dir=str(run_dir)), model=model, log_dir=str(tmp_path / "logs"), display="none"
    )
    import_inspect_log(Path(log.location), run_dir)
    records = [r["execution"] for r in transcript_records(run_dir) if r["kind"] == "execution"]
    assert len(records) == PLANNED
    assert _validated(records) == ["EXECUTED", "VOID"]
    assert {r["provenance"]["source"] for r in records} == {"inspect-ai"}
