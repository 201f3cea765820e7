"""The adapters: the reference passes through every adapter; every kind of fault is caught."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from apconform.conformance.adapters.targets import open_adapter
from apconform.conformance.runner import CheckOptions, CheckRun, run_check
from apconform.core.errors import ApconformError

from .conftest import DIRECT, FAULTY_EXEC, REFERENCE_EXEC, VECTORS, plan


def _outcomes(run: CheckRun) -> dict[str, str]:
    return {case["vector"]: case["outcome"] for case in run.cases}


def _case(run: CheckRun, vector: str) -> dict[str, Any]:
    return next(case for case in run.cases if case["vector"] == vector)


@pytest.mark.parametrize("impl", [DIRECT, REFERENCE_EXEC], ids=["direct", "exec"])
def test_reference_passes_every_vector(impl: str) -> None:
    run = run_check(CheckOptions(impl=impl, validate_protocol=True))
    assert run.exit_status == 0
    assert run.footer["verdict"] == "pass"
    assert run.footer["problems"] == []
    assert set(_outcomes(run).values()) == {"pass"}
    assert len(run.cases) == len(VECTORS)
    assert run.header["implementation"]["language"] == "python"


FAULTS = {
    "kit-jcs-number-exponent": "wrong-value",
    "kit-load-depth-33": "wrong-refusal",
    "kit-jcs-negative-zero": "wrong-refusal",
    "kit-load-nan": "wrong-value",
    "kit-jcs-string-escapes": "bad-json",
    "kit-jcs-integral-float": "wrong-seq",
    "kit-load-bom": "two-members",
    "kit-hash-text-lone-cr": "crash",
    "kit-sig-key-id-derivation": "hang",
    "kit-load-overflow": "skip",
    "kit-vec-missing-expectation": "error",
}
EXPECTED = {
    "kit-jcs-number-exponent": "fail",
    "kit-load-depth-33": "fail",
    "kit-jcs-negative-zero": "fail",
    "kit-load-nan": "fail",
    "kit-jcs-string-escapes": "errored",
    "kit-jcs-integral-float": "errored",
    "kit-load-bom": "errored",
    "kit-hash-text-lone-cr": "errored",
    "kit-sig-key-id-derivation": "errored",
    "kit-load-overflow": "skipped",
    "kit-vec-missing-expectation": "errored",
}


@pytest.fixture(scope="module")
def faulty_run() -> CheckRun:
    impl = f"{FAULTY_EXEC} {plan(FAULTS)}"
    return run_check(CheckOptions(impl=impl, timeout=3.0))


def test_faulty_implementation_fails_exactly_the_faulty_cases(faulty_run: CheckRun) -> None:
    outcomes = _outcomes(faulty_run)
    assert {vid: o for vid, o in outcomes.items() if o != "pass"} == EXPECTED
    assert faulty_run.exit_status == 1
    assert faulty_run.footer["counts"] == {
        "pass": len(VECTORS) - len(EXPECTED),
        "fail": 4,
        "skipped": 1,
        "errored": 6,
        "xfail": 0,
        "xpass": 0,
    }
    assert faulty_run.footer["problems"] == ["4 case(s) failed", "6 case(s) errored"]


def test_reports_say_why(faulty_run: CheckRun) -> None:
    wrong = _case(faulty_run, "kit-jcs-number-exponent")
    assert [m["path"] for m in wrong["mismatches"]] == ["/canonical", "/sha256"]
    assert wrong["mismatches"][0]["actual"].endswith("~")
    refusal = _case(faulty_run, "kit-load-depth-33")
    assert refusal["mismatches"] == [
        {
            "path": "",
            "reason": "refused with another error code",
            "expected": "APC-JSON-DEPTH",
            "actual": "FAULTY-CODE",
        }
    ]
    spurious = _case(faulty_run, "kit-jcs-negative-zero")
    assert spurious["mismatches"][0]["reason"] == "expected an answer, got a refusal"
    answered = _case(faulty_run, "kit-load-nan")
    assert answered["mismatches"][0]["reason"] == "expected a refusal, got an answer"
    bad_json = _case(faulty_run, "kit-jcs-string-escapes")["actual"]
    assert bad_json["message"].startswith("protocol violation: the answer is not a JSON document")
    assert bad_json["context"]["offending"] == "this line is not JSON\n"
    seq = _case(faulty_run, "kit-jcs-integral-float")["actual"]["message"]
    assert seq.startswith("protocol violation: the answer to run") and "carries seq" in seq
    both = _case(faulty_run, "kit-load-bom")["actual"]["message"]
    assert "exactly one of answer, refusal, skipped or errored; it carries answer, refusal" in both
    crash = _case(faulty_run, "kit-hash-text-lone-cr")["actual"]
    assert "exited with status 3" in crash["message"]
    assert "crashing on purpose" in crash["context"]["stderr"]
    hang = _case(faulty_run, "kit-sig-key-id-derivation")
    assert hang["actual"]["message"].startswith("no answer within 3 s")
    assert 2900 <= hang["durationMs"] < 6000
    skipped = _case(faulty_run, "kit-load-overflow")["actual"]
    assert skipped == {
        "kind": "skipped",
        "reason": "not supported yet",
        "issueUrl": "https://example.org/issues/1",
    }
    error = _case(faulty_run, "kit-vec-missing-expectation")["actual"]
    assert error["message"] == "the implementation reported an error: failed on purpose"
    assert error["context"] == {"implementation": {"step": 1}}


def test_cases_after_a_crash_or_hang_still_run(faulty_run: CheckRun) -> None:
    seqs = [case["seq"] for case in faulty_run.cases]
    assert seqs == list(range(1, len(VECTORS) + 1))
    crash_seq = _case(faulty_run, "kit-hash-text-lone-cr")["seq"]
    assert faulty_run.cases[crash_seq]["outcome"] == "pass"  # the next case, after a restart


def test_extra_member_fails_only_with_validate_protocol() -> None:
    impl = f"{FAULTY_EXEC} {plan({'kit-jcs-number-exponent': 'extra-member'})}"
    lenient = run_check(CheckOptions(impl=impl, only=["kit-jcs-number-exponent"]))
    assert _outcomes(lenient) == {"kit-jcs-number-exponent": "pass"}
    strict = run_check(
        CheckOptions(impl=impl, only=["kit-jcs-number-exponent"], validate_protocol=True)
    )
    message = strict.cases[0]["actual"]["message"]
    assert strict.cases[0]["outcome"] == "errored"
    assert message.startswith("protocol violation: the answer to run 1 breaks the adapter protocol")
    assert "note" in message


@pytest.mark.usefixtures("faulty_on_path")
def test_direct_adapter_bounds_hangs_and_catches_exceptions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    faults = {"kit-jcs-number-exponent": "hang", "kit-load-bom": "crash"}
    monkeypatch.setenv("APCONFORM_FAULTS", plan(faults))
    began = time.perf_counter()
    run = run_check(CheckOptions(impl="direct:faulty_impl:adapter", timeout=1.0, only=list(faults)))
    assert time.perf_counter() - began < 5
    assert _outcomes(run) == {"kit-jcs-number-exponent": "errored", "kit-load-bom": "errored"}
    hang = _case(run, "kit-jcs-number-exponent")["actual"]["message"]
    assert hang == "no answer within 1 s (the in-process call was abandoned)"
    crash = _case(run, "kit-load-bom")["actual"]
    assert crash["message"] == "the implementation raised RuntimeError: crashing on purpose"
    assert "Traceback" in crash["context"]["traceback"]


@pytest.mark.parametrize(
    "target",
    ["nonsense", "direct:no.such.module:adapter", "direct:os:no_such", "exec:", "http:ftp://x"],
)
def test_unknown_targets_are_refused(target: str) -> None:
    with pytest.raises(ApconformError) as info:
        open_adapter(target)
    assert info.value.code == "APC-ADAPTER-TARGET"


def test_implementation_that_does_not_start_is_refused() -> None:
    with pytest.raises(ApconformError) as info:
        run_check(CheckOptions(impl="exec:false", timeout=2.0))
    assert info.value.code == "APC-ADAPTER-START"
    assert "exited with status 1" in info.value.message


def test_the_implementation_never_sees_the_expectation(tmp_path: Path) -> None:
    log = tmp_path / "messages.jsonl"
    script = tmp_path / "recorder.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(os.path.dirname(FAULTY_EXEC.split()[1]))!r})\n"
        "import json, faulty_impl\n"
        f"log = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    log.write(line); log.flush()\n"
        "    message = json.loads(line)\n"
        "    reply = faulty_impl.faulty_answer(message, {})\n"
        "    if reply is not None:\n"
        "        print(json.dumps(reply), flush=True)\n",
        encoding="utf-8",
    )
    run = run_check(CheckOptions(impl=f"exec:{FAULTY_EXEC.split()[0][5:]} {script}"))
    assert run.exit_status == 0
    messages = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    runs = [m for m in messages if m["cmd"] == "run"]
    assert len(runs) == len(VECTORS)
    assert all(set(m) == {"cmd", "seq", "operation", "input"} for m in runs)
    assert messages[0]["cmd"] == "start" and messages[-1] == {"cmd": "stop"}
    vector = VECTORS["kit-jcs-number-exponent"]
    sent = next(m for m in runs if m["input"] == vector.vector.input)
    expected = vector.vector.expected.document
    assert expected["sha256"] not in json.dumps(sent)
    assert "expected" not in sent
