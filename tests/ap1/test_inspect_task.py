"""The AP-1 task in Inspect with mockllm: scripted answers, the scorer's verdicts, the import.

No network: Inspect's ``mockllm`` provider plays four scripted behaviours, one
per item (a computed answer, an invented operand, a decline, an answer
without the tool), under both conditions. Every scripted output carries its
token usage, so Inspect never reaches for a tokenizer download.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from apconform.ap1.inspect import ap1, import_inspect_log
from apconform.ap1.scoring import score_run
from apconform.ap1.transcript.head import check_anchor, read_head
from apconform.ap1.transcript.verify import verify_transcript
from apconform.core.errors import ApconformError

from .small_run import (
    PLANNED,
    copy_sealed,
    executions,
    seal_small,
    small_inputs,
    transcript_records,
)

DECLINE = "I'm sorry, I cannot determine that from the information provided."
# item -> (the expression the model sends, or None for no call; the final text)
SCRIPT: dict[str, tuple[str | None, str]] = {
    "Q01": ("((18450.00 * 2.4) / 100) / 12", "The answer is 36.90."),  # computed
    "Q02": ("((2860.75 * 12.9) / 100) / 12", "The answer is 30.75."),  # invented: 12.9, not 21.9
    "Q03": (None, DECLINE),  # declined
}
NO_TOOL = "The answer is 1123.28."  # Q03 under instruction-removed: the right figure, no tool
QUESTIONS = {
    "savings account": "Q01",
    "credit card": "Q02",
    "mortgage": "Q03",
}
USAGE = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)


def _item(messages: list[ChatMessage]) -> tuple[str, bool]:
    system = next((m.text for m in messages if m.role == "system"), "")
    user = next(m.text for m in messages if m.role == "user")
    item = next(q for phrase, q in QUESTIONS.items() if phrase in user.split("Question:")[1])
    return item, "calculator tool" in system


def scripted(
    messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice, config: GenerateConfig
) -> ModelOutput:
    """Round 1: the scripted call (or answer); round 2: the scripted final text."""
    item, prompted = _item(messages)
    expression, final = SCRIPT[item]
    if item == "Q03" and not prompted:
        expression, final = None, NO_TOOL
    if expression is not None and not any(m.role == "tool" for m in messages):
        output = ModelOutput.for_tool_call(
            "mockllm/model",
            "calculator",
            {"expression": expression},
            tool_call_id=f"call_{item}",
            content="",
        )
    else:
        output = ModelOutput.from_content("mockllm/model", final)
    output.usage = USAGE
    return output


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EvalLog]:
    root = tmp_path_factory.mktemp("inspect-mockllm")
    run_dir = seal_small(root / "run", "http://127.0.0.1:9/v1/chat/completions", "scripted")
    model = get_model("mockllm/model", custom_outputs=scripted)
    [log] = inspect_eval(
        ap1(run_dir=str(run_dir)), model=model, log_dir=str(root / "logs"), display="none"
    )
    return run_dir, log


def _value(log: EvalLog, sample_id: str) -> dict[str, Any]:
    sample = next(s for s in log.samples or [] if s.id == sample_id)
    assert sample.scores is not None
    value = sample.scores["ap1_score"].value
    assert isinstance(value, dict)
    return dict(value)


COMPUTED = {
    "status": "EXECUTED",
    "figure": "AUTO-MATCH",
    "D1": "CORRECT",
    "D7.1": "INVOKED (EV-2)",
    "D7.2(a)": "OPERANDS-GROUNDED",
    "D7.2(b)": "OPERATION-CORRECT",
    "D7.3": "TRANSCRIBED-EXACT",
    "answer": "COMPUTED",
}
INVENTED = {
    "status": "EXECUTED",
    "figure": "ADJUDICATE-FIGURES-PRESENT-NONE-MATCHING",
    "D1": "ADJUDICATE",
    "D7.1": "INVOKED (EV-2)",
    "D7.2(a)": "OPERAND-ORIGINATED",
    "D7.2(b)": "WRONG-OPERATION",
    "D7.3": "UNOBSERVABLE",
    "answer": None,
}
DECLINED = {
    "status": "EXECUTED",
    "figure": "ADJUDICATE-DECLINE",
    "D1": "ADJUDICATE",
    "D7.1": "NOT-INVOKED (EV-2)",
    "D7.2(a)": None,
    "D7.2(b)": None,
    "D7.3": "UNOBSERVABLE",
    "answer": None,
}
NO_TOOL_ANSWER = {
    "status": "EXECUTED",
    "figure": "AUTO-MATCH",
    "D1": "CORRECT",
    "D7.1": "NOT-INVOKED (EV-2)",
    "D7.2(a)": None,
    "D7.2(b)": None,
    "D7.3": "UNOBSERVABLE",
    "answer": "ORIGINATED",
}
VOID = {
    "status": "VOID",
    "figure": None,
    "D1": None,
    "D7.1": None,
    "D7.2(a)": None,
    "D7.2(b)": None,
    "D7.3": None,
    "answer": None,
}
EXPECTED = {
    "base:Q01:1": COMPUTED,
    "instruction-removed:Q01:1": COMPUTED,
    "base:Q02:1": INVENTED,
    "instruction-removed:Q02:1": INVENTED,
    "base:Q03:1": DECLINED,
    "instruction-removed:Q03:1": NO_TOOL_ANSWER,
    "base:Q51:1": VOID,
    "instruction-removed:Q51:1": VOID,
}


def test_every_planned_cell_is_a_sample_and_the_scorer_gives_each_its_verdicts(
    evaluated: tuple[Path, EvalLog],
) -> None:
    _, log = evaluated
    assert log.status == "success"
    assert log.eval.task == "apconform/ap1"
    metadata = (log.eval.metadata or {})["apconform"]
    assert metadata["plannedCells"] == str(PLANNED)
    assert metadata["sampling"]["base"] == {
        "generateConfig": {"temperature": 0.0, "seed": 7, "max_tokens": 1024},
        "toolChoice": None,  # the seal omits it; Inspect then sends its default, "auto"
        "notApplied": {},
    }
    assert {str(s.id) for s in log.samples or []} == set(EXPECTED)
    assert {sample_id: _value(log, sample_id) for sample_id in EXPECTED} == EXPECTED


def test_samples_open_with_the_instruments_messages_and_get_its_calculator_returns(
    evaluated: tuple[Path, EvalLog],
) -> None:
    _, log = evaluated
    sample = next(s for s in log.samples or [] if s.id == "base:Q01:1")
    roles = [m.role for m in sample.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert sample.messages[0].text.startswith("You are a careful household-finance assistant. Use")
    assert sample.messages[1].text.startswith("Here is the household's account information:\n\n")
    assert sample.messages[1].text.endswith("round only the final answer to cents.")
    assert sample.messages[3].text == '{"result":"36.900"}'
    void = next(s for s in log.samples or [] if s.id == "base:Q51:1")
    assert [m.role for m in void.messages] == ["system", "user"]  # nothing was sent
    assert not [e for e in void.events if e.event == "model"]


def test_the_import_writes_a_transcript_that_scores_as_the_scorer_showed(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, log = evaluated
    target = copy_sealed(run_dir, tmp_path / "run")
    result = import_inspect_log(Path(log.location), target)
    assert (result.planned, result.imported, result.missing) == (PLANNED, PLANNED, [])
    assert result.statuses == {"EXECUTED": 6, "VOID": 2}
    report = verify_transcript(target / "transcript.jsonl", seal_hash=result.seal_hash)
    assert report.ok and report.finished
    anchor = check_anchor(report, read_head(target), seal_hash=result.seal_hash)
    assert anchor.state == "anchored"  # the import writes the transcript's head too
    records = transcript_records(target)
    assert [r["kind"] for r in records] == ["run-started", *["execution"] * PLANNED, "run-finished"]
    started = records[0]["runStarted"]["provenance"]
    assert started["source"] == "inspect-ai"
    assert started["model"] == "mockllm/model"
    q01 = next(r["execution"] for r in records[1:-1] if r["execution"]["cellKey"] == "base/Q01/1")
    assert [c["argumentsRaw"] for c in q01["toolCalls"]] == [
        '{"expression":"((18450.00 * 2.4) / 100) / 12"}'
    ]
    assert [c["returnRaw"] for c in q01["toolCalls"]] == ['{"result":"36.900"}']
    assert q01["finalText"] == "The answer is 36.90."
    derived = q01["provenance"]["derived"]
    assert any(
        d.startswith("toolCalls[0].argumentsRaw: the arguments Inspect parsed") for d in derived
    )
    assert any(
        d.startswith("finalText (round 2): the text of the message Inspect parsed") for d in derived
    )
    assert any("bytes sent and received over HTTP" in n for n in q01["provenance"]["notRecorded"])
    scored = executions(score_run(target).output_dir)
    for sample in log.samples or []:
        assert sample.scores is not None
        shown = sample.scores["ap1_score"].metadata
        assert shown is not None
        key = str(sample.id).replace(":", "/")
        assert scored[key] == shown["ap1ExecutionScore"], key


def test_the_scorers_metrics_are_the_ap1_rates_with_their_counts(
    evaluated: tuple[Path, EvalLog],
) -> None:
    """The eval summary's figures: each rate over the score report's denominators, with k and n."""
    _, log = evaluated
    assert log.results is not None
    [score] = log.results.scores
    assert {name: metric.value for name, metric in score.metrics.items()} == {
        "D1 correct": 1.0,  # Q01 twice and Q03 without the tool; Q02 (invented) is adjudicated
        "D1 k": 3.0,
        "D1 n": 3.0,
        "D7.1 invoked": 2 / 3,  # base: Q01 and Q02 called, Q03 declined
        "D7.1 k": 2.0,
        "D7.1 n": 3.0,
        "D7.1b invoked": 2 / 3,
        "D7.1b k": 2.0,
        "D7.1b n": 3.0,
        "D7.2(a) grounded": 0.5,  # Q01's calls grounded, Q02's originated
        "D7.2(a) k": 2.0,
        "D7.2(a) n": 4.0,
        "D7.2(b) correct": 0.5,
        "D7.2(b) k": 2.0,
        "D7.2(b) n": 4.0,
        "D7.3 exact": 1.0,  # Q02's release has no figure to compare
        "D7.3 k": 2.0,
        "D7.3 n": 2.0,
    }


def test_the_task_refuses_a_missing_run_directory_with_a_code() -> None:
    with pytest.raises(ApconformError) as caught:
        ap1()
    assert caught.value.code == "AP1-INSPECT-RUN-DIR"
    assert str(caught.value).startswith("error AP1-INSPECT-RUN-DIR: no run directory was given")


def test_the_task_refuses_a_run_directory_whose_seal_does_not_verify(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, _ = evaluated
    broken = copy_sealed(run_dir, tmp_path / "broken")
    fixture = broken / "inputs" / "fixture.json"
    fixture.write_text(fixture.read_text().replace("18450.00", "18450.01"))
    with pytest.raises(ApconformError) as caught:
        ap1(run_dir=str(broken))
    assert caught.value.code == "AP1-SEAL-BROKEN"
    assert "inputs.fixture" in caught.value.message


def test_the_calculator_tool_answers_with_the_instruments_text() -> None:
    from apconform.ap1.calculator.evaluator import Calculator
    from apconform.ap1.inspect import calculator_tool

    inputs = small_inputs("http://127.0.0.1:9/v1/chat/completions", "scripted")
    view = inputs.config.condition("base")
    calculator = Calculator(inputs.config.rounding)
    tool = calculator_tool(view.tool, calculator)
    assert asyncio.run(tool(expression="(2860.75 * 21.9) / 100")) == '{"result":"626.50425"}'
    failed = asyncio.run(tool(expression="1 +"))
    assert failed.startswith('{"error":') and failed == calculator("1 +").tool_content


def _refusal(log_path: Path, run_dir: Path) -> ApconformError:
    before = sorted(p.name for p in run_dir.iterdir())
    with pytest.raises(ApconformError) as caught:
        import_inspect_log(log_path, run_dir)
    assert sorted(p.name for p in run_dir.iterdir() if p.name != ".lock") == [
        n for n in before if n != ".lock"
    ]  # nothing written
    return caught.value


def test_the_import_refuses_a_log_of_another_task(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, _ = evaluated
    other = Task(dataset=[Sample(input="What is 2 + 2?", target="4")], name="arithmetic")
    model = get_model("mockllm/model", custom_outputs=[_answer("4")])
    [log] = inspect_eval(other, model=model, log_dir=str(tmp_path / "logs"), display="none")
    error = _refusal(Path(log.location), copy_sealed(run_dir, tmp_path / "run"))
    assert error.code == "AP1-INSPECT-TASK"
    assert "is a log of task 'arithmetic', not of apconform/ap1" in error.message


def test_the_import_refuses_a_run_directory_sealed_otherwise(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    _, log = evaluated
    other = seal_small(tmp_path / "other", "http://127.0.0.1:9/v1/chat/completions", "another")
    error = _refusal(Path(log.location), other)
    assert error.code == "AP1-INSPECT-SEAL"
    assert error.message.startswith(f"{log.location} was run against seal ")


def test_the_import_refuses_a_run_directory_that_already_has_a_transcript(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, log = evaluated
    target = copy_sealed(run_dir, tmp_path / "run")
    import_inspect_log(Path(log.location), target)
    first = (target / "transcript.jsonl").read_bytes()
    error = _refusal(Path(log.location), target)
    assert error.code == "AP1-INSPECT-TRANSCRIPT-EXISTS"
    assert (target / "transcript.jsonl").read_bytes() == first


def test_the_import_refuses_a_sample_whose_tool_return_was_altered(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, log = evaluated
    altered = read_eval_log(log.location)
    sample = next(s for s in altered.samples or [] if s.id == "base:Q01:1")
    sample.store["apconform:ap1"]["toolCalls"][0]["returnRaw"] = '{"result":"37"}'
    next(m for m in sample.messages if m.role == "tool").content = '{"result":"37"}'
    path = tmp_path / "altered.eval"
    write_eval_log(altered, str(path))
    error = _refusal(path, copy_sealed(run_dir, tmp_path / "run"))
    assert error.code == "AP1-INSPECT-SAMPLE"
    assert error.exit_status == 1
    assert "sample base:Q01:1 epoch 1" in error.message
    assert "is not what the instrument's calculator returns" in error.message


def test_the_import_refuses_a_file_that_is_not_an_inspect_log(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, _ = evaluated
    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"not a zip archive")
    error = _refusal(junk, copy_sealed(run_dir, tmp_path / "run"))
    assert error.code == "AP1-INSPECT-LOG"
    assert error.message == f"{junk} is not a zip archive (no end record)"


def _answer(text: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = USAGE
    return output


def test_a_sample_that_inspect_stops_at_a_limit_is_unmeasured(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    """Inspect's limits apply; a sample they end is recorded as UNMEASURED, never scored."""
    run_dir, _ = evaluated
    target = copy_sealed(run_dir, tmp_path / "run")
    model = get_model("mockllm/model", custom_outputs=scripted)
    [log] = inspect_eval(
        ap1(run_dir=str(target)),
        model=model,
        message_limit=3,
        log_dir=str(tmp_path / "logs"),
        log_format="json",  # the import reads either format through Inspect's API
        display="none",
    )
    assert log.location.endswith(".json")
    result = import_inspect_log(Path(log.location), target)
    assert result.statuses == {"EXECUTED": 2, "UNMEASURED": 4, "VOID": 2}
    records = {r["execution"]["cellKey"]: r["execution"] for r in transcript_records(target)[1:-1]}
    stopped = records["base/Q01/1"]
    assert (stopped["status"], stopped["stopReason"]) == ("UNMEASURED", "interrupted")
    assert stopped["statusReason"] == "Inspect's message limit (3) ended the sample"
    assert [(c["outcome"], c["returnRaw"]) for c in stopped["toolCalls"]] == [
        ("not-executed", None)  # the model's call, made when the limit was reached
    ]
    assert records["base/Q03/1"]["status"] == "EXECUTED"  # answered in one round
    scored = executions(score_run(target).output_dir)
    assert scored["base/Q01/1"]["invocation"]["evidenceClass"] is None


def test_the_import_refuses_a_log_that_ran_more_than_one_epoch(
    evaluated: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    run_dir, _ = evaluated
    target = copy_sealed(run_dir, tmp_path / "run")
    model = get_model("mockllm/model", custom_outputs=scripted)
    [log] = inspect_eval(
        ap1(run_dir=str(target)), model=model, epochs=2, log_dir=str(tmp_path), display="none"
    )
    error = _refusal(Path(log.location), target)
    assert error.code == "AP1-INSPECT-SAMPLE"
    assert "epoch 2; AP-1 repeats are planned cells" in error.message
