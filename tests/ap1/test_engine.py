"""The engine against the built-in endpoint: what every record holds, statuses and limits."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.calculator.evaluator import calculate
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.transcript.verify import verify_transcript
from apconform.core.errors import ApconformError

from .runs import example_inputs, seal_run

QUIET = RunOptions(concurrency=4, progress=io.StringIO(), tty=False)


def _executions(run_dir: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for line in (run_dir / "transcript.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["kind"] == "execution":
            out[record["execution"]["cellKey"]] = record["execution"]
    return out


def test_a_correct_run_records_everything_scoring_needs(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-correct", repeats="1")
        result = run_sealed(run_dir, QUIET)
    assert dict(result.statuses) == {"EXECUTED": 100, "VOID": 4}
    seal = json.loads((run_dir / "seal.json").read_text())
    records = _executions(run_dir)
    q07 = records["base/Q07/1"]
    assert (q07["condition"], q07["itemId"], q07["repeat"], q07["status"]) == (
        "base",
        "Q07",
        "1",
        "EXECUTED",
    )
    assert [c["argumentsRaw"] for c in q07["toolCalls"]] == [
        '{"expression":"((2860.75 * 21.9) / 100) / 4"}'
    ]
    assert q07["toolCalls"][0]["returnRaw"] == '{"result":"156.6260625"}'
    assert q07["finalText"] == "The answer is 156.63."
    assert len(q07["rounds"]) == 2
    first = q07["rounds"][0]
    assert first["request"]["url"] == mock.url
    sent = json.loads(first["request"]["bodyText"])
    assert sent["messages"][0]["content"].startswith(
        "You are a careful household-finance assistant. Use"
    )
    assert sent["temperature"] == 0 and sent["seed"] == 7
    assert first["response"]["samplingEchoed"] == [
        {"name": "temperature", "valueJson": "0"},
        {"name": "seed", "valueJson": "7"},
    ]
    second = json.loads(q07["rounds"][1]["request"]["bodyText"])["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert second[3] == {
        "role": "tool",
        "tool_call_id": "call_co_0_1_0",
        "content": '{"result":"156.6260625"}',
    }
    removed = json.loads(records["instruction-removed/Q07/1"]["rounds"][0]["request"]["bodyText"])
    assert (
        removed["messages"][0]["content"]
        == "You are a careful household-finance assistant. Report the final figure clearly."
    )
    assert {k: v for k, v in removed.items() if k != "messages"} == {
        k: v for k, v in sent.items() if k != "messages"
    }
    void = records["base/Q51/1"]
    assert (void["status"], void["stopReason"], void["rounds"]) == ("VOID", "not-sent", [])
    assert verify_transcript(run_dir / "transcript.jsonl", seal_hash=seal["sealHash"]).finished


def test_foreign_shapes_are_unobservable_never_answers(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=2) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-foreign-shape", repeats="1")
        result = run_sealed(run_dir, QUIET)
    assert dict(result.statuses) == {"UNOBSERVABLE": 100, "VOID": 4}
    shapes = {
        e["rounds"][0]["response"]["shape"] for e in _executions(run_dir).values() if e["rounds"]
    }
    assert shapes == {"anthropic-messages", "gemini-generate-content", "openai-responses"}
    one = next(e for e in _executions(run_dir).values() if e["status"] == "UNOBSERVABLE")
    assert one["finalText"] is None and one["toolCalls"] == []
    assert one["evidenceInputs"]["allRoundsReadable"] is False
    assert one["statusReason"].startswith("round 1: the response is in the ")


def test_an_exhausted_endpoint_is_unmeasured_with_its_cause(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=4, stall_seconds=Decimal("0.5")) as mock:
        run_dir = seal_run(
            tmp_path, mock.url, "mock-flaky", repeats="1", transport={"timeoutSeconds": "0.3"}
        )
        result = run_sealed(run_dir, RunOptions(concurrency=8, progress=io.StringIO(), tty=False))
    assert result.statuses["UNMEASURED"] > 0 and result.statuses["EXECUTED"] > 0
    unmeasured = [e for e in _executions(run_dir).values() if e["status"] == "UNMEASURED"]
    for execution in unmeasured:
        assert execution["finalText"] is None or execution["rounds"][-1].get("response") is not None
        assert execution["stopReason"] == "transport-exhausted"
        assert len(execution["rounds"][-1]["attempts"]) == 3
    assert any("server-error after 3 attempts: HTTP 503" in e["statusReason"] for e in unmeasured)
    outcomes = {
        a["outcome"]
        for e in _executions(run_dir).values()
        for r in e["rounds"]
        for a in r["attempts"]
    }
    assert outcomes == {"ok", "rate-limited", "server-error", "malformed-body", "timeout"}


def test_the_turn_limit_stops_the_loop_and_records_unexecuted_calls(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(
            tmp_path, mock.url, "mock-split", repeats="1", transport={"maxTurns": "3"}
        )
        run_sealed(run_dir, QUIET)
    q27 = _executions(run_dir)["base/Q27/1"]  # ten steps: more than three rounds
    assert (q27["status"], q27["stopReason"], len(q27["rounds"])) == ("EXECUTED", "turn-limit", 3)
    assert [c["outcome"] for c in q27["toolCalls"]] == ["result", "result", "not-executed"]
    assert q27["toolCalls"][2]["returnRaw"] is None
    q01 = _executions(run_dir)["base/Q01/1"]  # three steps and the answer: four rounds
    assert q01["stopReason"] == "turn-limit"


def test_split_returns_feed_the_next_call(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-split", repeats="1")
        run_sealed(run_dir, QUIET)
    calls = _executions(run_dir)["base/Q06/1"]["toolCalls"]
    expressions = [json.loads(c["argumentsRaw"])["expression"] for c in calls]
    assert expressions == ["3275.40 * 0.10", "327.5400 / 100", "3.2754 / 12", "9.50 - 0.27295"]
    assert [json.loads(c["returnRaw"])["result"] for c in calls] == [
        calculate(e).value for e in expressions
    ]


def test_a_run_needs_a_verifying_seal_and_a_fresh_transcript(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-correct", repeats="1")
        run_sealed(run_dir, QUIET)
        with pytest.raises(ApconformError) as again:
            run_sealed(run_dir, QUIET)
        assert again.value.code == "AP1-TRANSCRIPT-EXISTS"
        assert run_sealed(run_dir, RunOptions(resume=True)).already_finished
        questions = run_dir / "inputs/questions.json"
        questions.write_text(questions.read_text().replace("Q01", "Q1X", 1))
        with pytest.raises(ApconformError) as broken:
            run_sealed(run_dir, RunOptions(resume=True))
    assert broken.value.code == "AP1-SEAL-BROKEN"
    assert "inputs.questions" in broken.value.message


def test_rate_limit_and_concurrency_are_recorded(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-no-tool", repeats="1")
        run_sealed(
            run_dir,
            RunOptions(concurrency=2, rate_limit=Decimal("400"), progress=io.StringIO(), tty=False),
        )
    started = json.loads((run_dir / "transcript.jsonl").read_text().splitlines()[0])["runStarted"]
    assert (started["concurrency"], started["rateLimitPerSecond"]) == ("2", "400")


def test_progress_draws_a_bar_on_a_terminal_and_lines_elsewhere() -> None:
    from apconform.ap1.run.progress import Progress

    terminal = io.StringIO()
    bar = Progress(4, 1, terminal, tty=True)
    for status in ("EXECUTED", "EXECUTED", "UNMEASURED"):
        bar.update(status)
    bar.close()
    drawn = terminal.getvalue()
    assert drawn.startswith("\r[#######")
    assert "4/4 " in drawn and "ETA 0:00" in drawn and "executed 2 unmeasured 1" in drawn
    assert drawn.endswith("\n")
    plain = io.StringIO()
    lines = Progress(20, 0, plain, tty=False)
    for _ in range(20):
        lines.update("EXECUTED")
    text = plain.getvalue().splitlines()
    assert len(text) == 11 and all(line.startswith("progress: ") for line in text)
    assert text[-1].startswith("progress: 20/20 ")
