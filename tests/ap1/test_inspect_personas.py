"""The whole worked example through Inspect AI, every deterministic persona and mixed, cell by cell.

For each persona one sealed run directory is run twice against the built-in
endpoint: natively, and through Inspect's OpenAI-compatible provider (one
``inspect_ai.eval`` call, one task per persona), then imported and scored.
Every one of the 204 cells gets the native run's per-execution score, apart
from the one documented finding of the parameter echo, and the records differ
only in the members ``docs/ap1/inspect.md`` lists. The items whose calculator
calls exceed 100 characters (Q19, Q27, Q28, Q50, where Inspect's transcript
holds attachments instead of text) are among them, and mock-mixed brings every
endpoint fault: rate limits, server errors, a server that always fails, bodies
that are not JSON, stalled answers abandoned at the attempt timeout, and
answers in other providers' shapes.

The example is sealed with a 4 s attempt timeout (the example's is 1 s) and
the endpoint stalls 5 s: a loaded test machine then never abandons an attempt
the endpoint did answer, which would advance the endpoint's repeat counter and
give later repeats other answers than the native run got. Each task runs one
sample at a time, so repeats of a question reach the endpoint in plan order,
as they do natively.
"""

from __future__ import annotations

import io
import json
import shutil
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from apconform.ap1.inputs.plan import RunInputs
from apconform.ap1.inspect import ap1, import_inspect_log
from apconform.ap1.inspect.metrics import tally
from apconform.ap1.inspect.scorer import verdicts
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.scoring import score_run
from apconform.ap1.seal.build import write_sealed_run

from .conftest import EXAMPLE
from .runs import inputs_for
from .small_run import executions, transcript_records

PERSONAS = (
    "correct",
    "split",
    "invent",
    "sign-invert",
    "transcribe-error",
    "no-tool",
    "decline",
    "mixed",
)
CELLS = 204
LONG_CALLS = ("Q19", "Q27", "Q28", "Q50")
TOOL_CHOICE_NOT_ECHOED = {
    "finding": "requested but not echoed",
    "parameter": "tool_choice",
    "requested": '"auto"',
}
DOCUMENTED = {  # execution-record members that differ between the two runs (docs/ap1/inspect.md)
    "startedAt",
    "elapsedSeconds",
    "provenance",
    "rounds[].attempts[].startedAt",
    "rounds[].attempts[].elapsedSeconds",
    "rounds[].attempts[].error",
    "rounds[].request.url",
    "rounds[].request.headers",
    "rounds[].request.bodyText",
    "rounds[].request.bodySha256",
    "rounds[].request.samplingAsSent[].sent",
    "rounds[].request.samplingAsSent[].omitted",
    "rounds[].request.samplingAsSent[].detail",
    "rounds[].response.bodyText",
    "rounds[].response.bodySha256",
    "rounds[].response.samplingEchoed[].valueJson",
}


def _inputs(url: str, model: str) -> RunInputs:
    return inputs_for(url, model, transport={"timeoutSeconds": "4"})


@dataclass(frozen=True)
class Runs:
    native: dict[str, dict[str, dict[str, Any]]]
    inspected: dict[str, dict[str, dict[str, Any]]]
    dirs: dict[str, tuple[Path, Path]]
    logs: dict[str, EvalLog]


def _run_natively(dirs: dict[str, tuple[Path, Path]]) -> tuple[dict[str, Any], float]:
    """Run and score every persona's native directory; (scores by persona, seconds)."""
    started = time.perf_counter()
    scores = {}
    for persona, (native, _) in dirs.items():
        run_sealed(native, RunOptions(concurrency=1, progress=io.StringIO(), tty=False))
        scores[persona] = executions(score_run(native).output_dir)
    return scores, time.perf_counter() - started


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Both runs of every persona, the native ones in a thread beside Inspect's (each has its own
    endpoint with the same seed, so each sees the requests of its own run only)."""
    root = tmp_path_factory.mktemp("inspect-personas")
    oracle = _inputs("http://127.0.0.1:9/v1/chat/completions", "mock-correct")
    dirs: dict[str, tuple[Path, Path]] = {}
    started = time.perf_counter()
    with (
        MockEndpoint(oracle, seed=3, stall_seconds=Decimal(5)) as native_mock,
        MockEndpoint(oracle, seed=3, stall_seconds=Decimal(5)) as mock,
        ThreadPoolExecutor(max_workers=1) as beside,
    ):
        for persona in PERSONAS:
            native, inspected = root / persona / "native", root / persona / "inspect"
            write_sealed_run(native, _inputs(native_mock.url, f"mock-{persona}"))
            shutil.copytree(native, inspected)
            dirs[persona] = (native, inspected)
        native_run = beside.submit(_run_natively, dirs)
        base_url = mock.url.rsplit("/chat/completions", 1)[0]
        tasks = [
            task_with(
                ap1(run_dir=str(dirs[p][1])),
                model=get_model(f"openai-api/apconform/mock-{p}", base_url=base_url, api_key="-"),
            )
            for p in PERSONAS
        ]
        logs = inspect_eval(
            tasks,
            log_dir=str(root / "logs"),
            display="none",
            log_realtime=False,  # no live sample buffer: the finished log is the same, and cheaper
            max_tasks=len(tasks),
            max_samples=1,  # repeats of a question reach the endpoint in plan order
        )
        inspect_seconds = time.perf_counter() - started
        native_scores, native_seconds = native_run.result()
    assert [log.status for log in logs] == ["success"] * len(PERSONAS)
    inspected_scores = {}
    for persona, log in zip(PERSONAS, logs, strict=True):
        inspected = dirs[persona][1]
        import_inspect_log(Path(log.location), inspected)
        inspected_scores[persona] = executions(score_run(inspected).output_dir)
    rest = time.perf_counter() - started - inspect_seconds
    print(
        f"\nfull example, {len(PERSONAS)} personas: native runs and scores {native_seconds:.1f} s "
        "beside Inspect "
        f"{inspect_seconds:.1f} s; then import and score {rest:.1f} s"
    )
    return Runs(native_scores, inspected_scores, dirs, dict(zip(PERSONAS, logs, strict=True)))


def _records(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {
        r["execution"]["cellKey"]: r["execution"]
        for r in transcript_records(run_dir)
        if r["kind"] == "execution"
    }


def _without_tool_choice_finding(score: dict[str, Any]) -> dict[str, Any]:
    """The score without the documented finding: Inspect sends tool_choice "auto" whenever it
    offers tools, though the seal omits it, and the endpoint does not echo it."""
    echo = dict(score["parameterEcho"])
    findings = list(echo["findings"])
    if score["status"] != "VOID":
        findings.remove(TOOL_CHOICE_NOT_ECHOED)
    echo["findings"] = findings
    return {**score, "parameterEcho": echo}


@pytest.mark.parametrize("persona", PERSONAS)
def test_every_cell_gets_the_native_runs_score(runs: Runs, persona: str) -> None:
    native, inspected = runs.native[persona], runs.inspected[persona]
    assert len(native) == len(inspected) == CELLS
    assert sorted(native) == sorted(inspected)
    for key, score in native.items():
        assert verdicts(inspected[key]) == verdicts(score), (persona, key)
        assert _without_tool_choice_finding(inspected[key]) == score, (persona, key)


def test_long_calculator_calls_keep_the_models_exact_bytes(runs: Runs) -> None:
    native, inspected = (_records(d) for d in runs.dirs["correct"])
    long_cells = [k for k in native if k.split("/")[1] in LONG_CALLS]
    assert len(long_cells) == 16  # four items, two conditions, two repeats
    for key in long_cells:
        calls = inspected[key]["toolCalls"]
        assert [c["argumentsRaw"] for c in calls] == [
            c["argumentsRaw"] for c in native[key]["toolCalls"]
        ]
        assert max(len(c["argumentsRaw"]) for c in calls) > 100, key
        assert {c["outcome"] for c in calls} == {"result"}, key
        assert not any("argumentsRaw" in d for d in inspected[key]["provenance"]["derived"])


def _differences(left: Any, right: Any, path: str, out: set[str]) -> None:
    if isinstance(left, dict) and isinstance(right, dict):
        for key in left.keys() | right.keys():
            where = f"{path}.{key}" if path else key
            if key in left and key in right:
                _differences(left[key], right[key], where, out)
            else:
                out.add(where)
    elif isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            out.add(path)
        for a, b in zip(left, right, strict=False):
            _differences(a, b, f"{path}[]", out)
    elif left != right:
        out.add(path)


def test_records_differ_only_in_the_documented_members(runs: Runs) -> None:
    found: set[str] = set()
    for native_dir, inspected_dir in runs.dirs.values():
        native, inspected = _records(native_dir), _records(inspected_dir)
        for key, record in native.items():
            _differences(record, inspected[key], "", found)
    assert found <= DOCUMENTED, found - DOCUMENTED
    page = (EXAMPLE.parents[1] / "docs" / "ap1" / "inspect.md").read_text(encoding="utf-8")
    assert [m for m in sorted(DOCUMENTED) if f"`{m}`" not in page] == []


def test_endpoint_faults_become_the_instruments_outcomes(runs: Runs) -> None:
    """mock-mixed: each attempt has the native outcome, abandoned attempts included."""
    native, inspected = (_records(d) for d in runs.dirs["mixed"])
    outcomes: Counter[str] = Counter()
    for key, record in native.items():
        ours = [[a["outcome"] for a in r["attempts"]] for r in inspected[key]["rounds"]]
        assert ours == [[a["outcome"] for a in r["attempts"]] for r in record["rounds"]], key
        outcomes.update(o for attempts in ours for o in attempts)
        if record["status"] != "EXECUTED":
            assert inspected[key]["statusReason"] == record["statusReason"], key
    assert {"timeout", "malformed-body", "server-error", "rate-limited", "ok"} <= set(outcomes)
    statuses = Counter(r["status"] for r in inspected.values())
    assert {"EXECUTED", "UNMEASURED", "UNOBSERVABLE", "VOID"} <= set(statuses)
    abandoned = [
        k
        for k, r in inspected.items()
        if any(
            [a["outcome"] for a in rd["attempts"]][:2] == ["timeout", "ok"] for rd in r["rounds"]
        )
    ]
    assert abandoned  # an attempt abandoned at the timeout is an attempt, never a round


@pytest.mark.parametrize("persona", ["correct", "mixed"])
def test_the_logs_metrics_count_what_the_native_scores_count(runs: Runs, persona: str) -> None:
    log = runs.logs[persona]
    assert log.results is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    for dimension, (k, n) in tally(runs.native[persona].values()).items():
        assert (metrics[f"{dimension} k"], metrics[f"{dimension} n"]) == (k, n), dimension
    report = json.loads((runs.dirs[persona][1] / "report" / "score-report.json").read_text())
    accuracy = report["accuracy"]
    assert metrics["D1 k"] == int(accuracy["correct"])
    assert metrics["D1 n"] == int(accuracy["correct"]) + int(accuracy["incorrect"])
