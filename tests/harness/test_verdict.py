"""A verdict that cannot be gamed: skipping, trivial answers, hangs and a bad exit after stop.

The implementations here are self-tests written the way a third party might
game or break the harness: they skip every refusal, answer ``{}`` or ``null``
to everything, list only the operations they pass, hang after the handshake,
or exit with the wrong status after stop.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from apconform.cli import main
from apconform.conformance.adapters import MessageAdapter
from apconform.conformance.adapters.channels import DirectChannel
from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.reference import describe, run_case
from apconform.conformance.reports import render, write_badges
from apconform.conformance.runner import CheckOptions, CheckRun, is_negative, run_check
from apconform.conformance.summary import must_clauses

from .conftest import REFERENCE_EXEC, VECTORS, case_key

Handler = Callable[[dict[str, Any]], Any]


def _in_process(handler: Handler, **options: Any) -> CheckRun:
    adapter = MessageAdapter(
        "direct:self-test", lambda: DirectChannel(handler), validate_protocol=False
    )
    return run_check(CheckOptions(impl="direct:self-test", **options), adapter=adapter)


def _answering(answer: Callable[[dict[str, Any]], dict[str, Any]]) -> Handler:
    def handler(message: dict[str, Any]) -> Any:
        if message["cmd"] == "start":
            return describe()
        if message["cmd"] == "run":
            return answer(message)
        return None

    return handler


NEGATIVE_KEYS = {case_key(v) for v in VECTORS.values() if is_negative(v)}


def _skip_refusals(message: dict[str, Any]) -> dict[str, Any]:
    from faulty_impl import case_key as key_of  # the same key the harness tests use

    if key_of(message["operation"], message["input"]) in NEGATIVE_KEYS:
        return {"seq": message["seq"], "skipped": {"reason": "refusals are not implemented"}}
    return run_case(message["seq"], message["operation"], message["input"])


@pytest.fixture(scope="module")
def refusals_skipped() -> CheckRun:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "adapters"))
    try:
        return _in_process(_answering(_skip_refusals))
    finally:
        sys.path.pop(0)


def _expected_gaps(protocol: str) -> set[tuple[str, str]]:
    """The branches no sent vector exercises when every refusal input is skipped."""
    gaps = set()
    for clause in must_clauses(load_clause_registry(), protocol):
        branches: dict[str, bool] = {}
        for vector in VECTORS.values():
            if clause in vector.vector.clauses:
                branch = "refusal" if is_negative(vector) else "acceptance"
                ran = case_key(vector) not in NEGATIVE_KEYS
                branches[branch] = branches.get(branch, False) or ran
        gaps |= {(clause, branch) for branch, ran in branches.items() if not ran}
    return gaps


def test_skipping_every_refusal_is_incomplete_not_pass(refusals_skipped: CheckRun) -> None:
    footer = refusals_skipped.footer
    assert footer["counts"]["fail"] == footer["counts"]["errored"] == 0
    skipped = [v for v in VECTORS.values() if case_key(v) in NEGATIVE_KEYS]
    assert footer["counts"]["skipped"] == len(skipped)
    assert footer["verdict"] == "incomplete"
    assert refusals_skipped.exit_status == 3
    for summary in footer["protocols"]:
        gaps = {(gap["clause"], gap["branch"]) for gap in summary["unexecutedBranches"]}
        assert gaps == _expected_gaps(summary["protocol"])
        assert len(gaps) > 10
        clauses = {clause for clause, _ in gaps}
        assert summary["mustClausesExecuted"] == summary["mustClauses"] - len(clauses)
        assert summary["mustBranchesExecuted"] == summary["mustBranches"] - len(gaps)
        assert summary["verdict"] == "incomplete"
        assert set(summary["vacuousClauses"]) <= clauses
    kit = next(s for s in footer["protocols"] if s["protocol"] == "kit")
    load_1 = next(gap for gap in kit["unexecutedBranches"] if gap["clause"] == "KIT-LOAD-1")
    assert load_1 == {
        "clause": "KIT-LOAD-1",
        "branch": "refusal",
        "branchVectors": ["kit-load-size-over-limit"],
        "unsupportedOperations": [],
    }
    assert any(
        p.startswith("kit: ") and "KIT-LOAD-1 (refusal not run)" in p for p in footer["problems"]
    )


def test_incomplete_is_a_failure_in_junit_an_orange_badge_and_a_pretty_verdict(
    refusals_skipped: CheckRun, tmp_path: Path
) -> None:
    junit = etree.fromstring(render(refusals_skipped.records, "junit").encode("utf-8"))
    assert junit.get("failures") == str(len(refusals_skipped.footer["protocols"]))
    kit_suite = junit.find(".//testsuite[@name='apconform.kit']")
    assert kit_suite is not None
    failure = kit_suite.find("testcase[@name='MUST clause branches executed']/failure")
    assert failure is not None and failure.get("type") == "incomplete"
    assert "KIT-LOAD-1 refusal: none of kit-load-size-over-limit ran" in (failure.text or "")
    badges = {
        path.stem: json.loads(path.read_text())
        for path in write_badges(refusals_skipped.records, tmp_path)
    }
    assert badges["kit"]["color"] == "orange"
    assert badges["kit"]["message"].startswith("incomplete (")
    pretty = render(refusals_skipped.records, "pretty")
    assert pretty.endswith("verdict: INCOMPLETE (exit status 3)\n")
    assert "⚠️" in render(refusals_skipped.records, "markdown")


@pytest.mark.parametrize("constant", [{}, None], ids=["empty-object", "null"])
def test_an_implementation_that_answers_a_constant_passes_no_vector(constant: Any) -> None:
    run = _in_process(_answering(lambda message: {"seq": message["seq"], "answer": constant}))
    assert len(run.cases) == len(VECTORS)
    assert [case["vector"] for case in run.cases if case["outcome"] == "pass"] == []
    assert run.footer["counts"]["fail"] == len(VECTORS)
    assert run.footer["verdict"] == "fail"


def test_unlisted_operations_are_allowed_but_leave_their_clauses_unproven() -> None:
    def start_with_fewer_operations(message: dict[str, Any]) -> Any:
        if message["cmd"] == "start":
            started = describe()
            operations = started["implementation"]["operations"]
            started["implementation"]["operations"] = [op for op in operations if op != "kit.parse"]
            return started
        if message["cmd"] == "run":
            return run_case(message["seq"], message["operation"], message["input"])
        return None

    run = _in_process(start_with_fewer_operations, protocols=["kit"])
    kit = run.footer["protocols"][0]
    parse_vectors = [v for v in VECTORS.values() if v.vector.operation == "kit.parse"]
    assert kit["unsupportedOperations"] == [
        {
            "operation": "kit.parse",
            "vectorCount": len(parse_vectors),
            "unprovenClauses": [
                "KIT-ERR-1",
                "KIT-JCS-1",
                "KIT-JCS-2",
                "KIT-LOAD-1",
                "KIT-LOAD-2",
                "KIT-LOAD-3",
                "KIT-LOAD-4",
                "KIT-LOAD-5",
            ],
        }
    ]
    assert all(gap["unsupportedOperations"] == ["kit.parse"] for gap in kit["unexecutedBranches"])
    assert run.footer["verdict"] == "incomplete"
    pretty = render(run.records, "pretty")
    assert "note: kit: operation kit.parse is not listed by the implementation" in pretty


HANGS_AFTER_HANDSHAKE = """
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "start":
        print({started!r}, flush=True)
    elif message["cmd"] == "run":
        time.sleep(3600)
"""


@pytest.mark.parametrize("limit", [3, 2])
def test_a_hung_implementation_is_stopped_after_k_timeouts(tmp_path: Path, limit: int) -> None:
    script = tmp_path / "hang.py"
    script.write_text(
        HANGS_AFTER_HANDSHAKE.format(started=json.dumps(describe())), encoding="utf-8"
    )
    run = run_check(
        CheckOptions(
            impl=f"exec:{sys.executable} {script}",
            protocols=["kit"],
            timeout=0.5,
            stop_after_timeouts=limit,
        )
    )
    messages = [case["actual"].get("message", "") for case in run.cases]
    timed_out = [m for m in messages if m.startswith("no answer within 0.5 s")]
    not_sent = [m for m in messages if m.startswith("not sent: the run was stopped")]
    assert len(timed_out) == limit
    assert len(not_sent) == len(run.cases) - limit
    assert {case["outcome"] for case in run.cases} == {"errored"}
    footer = run.footer
    assert footer["verdict"] == "errored" and run.exit_status == 4
    assert footer["stoppedEarly"].startswith(f"{limit} case(s) in a row got no answer within 0.5 s")
    assert footer["problems"][0].startswith("the run was stopped early: ")
    assert "stopCheck" not in footer  # the hung process had already been stopped
    assert run.header["options"]["stopAfterTimeouts"] == limit


def test_a_hang_in_process_counts_too() -> None:
    import threading

    release = threading.Event()

    def never(message: dict[str, Any]) -> dict[str, Any]:
        release.wait(30)
        return {"seq": message["seq"], "answer": None}

    try:
        run = _in_process(_answering(never), protocols=["kit"], timeout=0.2, stop_after_timeouts=3)
    finally:
        release.set()
    outcomes = [case["actual"]["message"] for case in run.cases]
    assert sum(m.startswith("no answer within 0.2 s") for m in outcomes) == 3
    assert run.footer["verdict"] == "errored"


def test_zero_never_stops_and_a_negative_count_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            [
                "check",
                "--impl",
                "direct:apconform.conformance.reference:adapter",
                "--stop-after-timeouts",
                "-1",
            ]
        )
        == 2
    )
    assert "--stop-after-timeouts must be 0" in capsys.readouterr().err


EXITS_WITH = """
import json, sys, time
from apconform.conformance.reference import describe, run_case
for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "start":
        print(json.dumps(describe()), flush=True)
    elif message["cmd"] == "run":
        reply = run_case(message["seq"], message["operation"], message["input"])
        print(json.dumps(reply), flush=True)
    elif message["cmd"] == "stop":
        {on_stop}
"""


def _exec_run(tmp_path: Path, on_stop: str) -> CheckRun:
    script = tmp_path / "impl.py"
    script.write_text(EXITS_WITH.format(on_stop=on_stop), encoding="utf-8")
    return run_check(
        CheckOptions(impl=f"exec:{sys.executable} {script}", only=["kit-load-bom", "kit-load-nan"])
    )


def test_the_exit_status_after_stop_is_checked(tmp_path: Path) -> None:
    clean = _exec_run(tmp_path, "sys.exit(0)")
    assert clean.footer["stopCheck"] == {
        "processExitStatus": 0,
        "exitedCleanly": True,
        "stopDetail": "exited with status 0 after stop",
    }
    assert clean.footer["verdict"] == "incomplete"  # a partial run (--only), never a pass
    five = _exec_run(tmp_path, "print('bye', file=sys.stderr); sys.exit(5)")
    assert five.footer["stopCheck"]["processExitStatus"] == 5
    assert five.footer["stopCheck"]["exitedCleanly"] is False
    assert five.footer["verdict"] == "fail" and five.exit_status == 1
    assert five.footer["problems"][0].startswith("partial run: --only chose 2 case(s)")
    assert five.footer["problems"][1:] == [
        "after stop: the implementation exited with status 5 after stop; the adapter protocol "
        "requires status 0 (stderr: bye)"
    ]


def test_an_implementation_that_ignores_stop_is_killed_and_fails(tmp_path: Path) -> None:
    run = _exec_run(tmp_path, "time.sleep(3600)")
    assert run.footer["stopCheck"]["exitedCleanly"] is False
    assert "processExitStatus" not in run.footer["stopCheck"]
    assert "did not exit within 2 s of stop and was killed" in run.footer["stopCheck"]["stopDetail"]
    assert run.footer["verdict"] == "fail"


def test_the_reference_exec_adapter_exits_cleanly() -> None:
    run = run_check(CheckOptions(impl=REFERENCE_EXEC, only=["KIT-LOAD-3"]))
    assert run.footer["stopCheck"]["exitedCleanly"] is True


def test_environment_variables_are_named_never_valued(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("MY_IMPL_TOKEN", "s3cret-value")
    report = tmp_path / "report.jsonl"
    args = [
        "check",
        "--impl",
        "direct:apconform.conformance.reference:adapter",
        "--only",
        "KIT-LOAD-3",
    ]
    assert main([*args, "--env", "MY_IMPL_TOKEN", "--format", "json", "--output", str(report)]) == 3
    text = report.read_text(encoding="utf-8")
    assert "s3cret-value" not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert records[0]["options"]["environmentVariables"] == ["MY_IMPL_TOKEN"]
    assert all(r["reproduce"].endswith("--env MY_IMPL_TOKEN") for r in records[1:-1])
    monkeypatch.delenv("MY_IMPL_TOKEN")
    capsys.readouterr()
    assert main([*args, "--env", "MY_IMPL_TOKEN"]) == 2
    assert "the environment variable MY_IMPL_TOKEN is not set" in capsys.readouterr().err
    assert main([*args, "--env", "MY_IMPL_TOKEN=s3cret"]) == 2
    assert "is not an environment variable name" in capsys.readouterr().err


def _round_apx(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: round(item, 6) if key == "APx" and isinstance(item, float) else _round_apx(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_round_apx(item) for item in value]
    return value


def test_an_apx_rounded_to_six_decimals_fails_every_fractional_exponent_vector() -> None:
    def rounding(message: dict[str, Any]) -> dict[str, Any]:
        reply = run_case(message["seq"], message["operation"], message["input"])
        return {**reply, "answer": _round_apx(reply["answer"])} if "answer" in reply else reply

    run = _in_process(_answering(rounding), protocols=["apx"])
    failed = {case["vector"] for case in run.cases if case["outcome"] == "fail"}
    fractional = {
        v.id
        for v in VECTORS.values()
        if v.vector.operation in ("apx.power_metrics", "apx.evaluate")
        and ("non-integer APx" in v.vector.description or v.id == "apx-eval-demo-exact")
    }
    assert len(fractional) >= 13
    assert fractional <= failed
    power = [vid for vid in failed if vid.startswith("apx-power-")]
    evaluate = [vid for vid in failed if vid.startswith("apx-eval-fractional-apx-")]
    assert len(power) >= 7 and len(evaluate) >= 5
