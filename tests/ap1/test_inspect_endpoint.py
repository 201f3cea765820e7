"""Inspect's command line against the built-in endpoint: every persona, eval-set, ledger and site.

The built-in endpoint runs in-process on 127.0.0.1 and Inspect's
OpenAI-compatible provider reaches it through ``APCONFORM_BASE_URL`` and
``APCONFORM_API_KEY``, as a user would (``openai-api/apconform/<model>``).
``inspect eval`` runs the small plan once for every built-in persona with the
task's defaults and no other flag; ``inspect eval-set`` runs one sealed plan
over three personas, each log is imported into its own copy of the run
directory, scored and recorded in one ledger beside a native run of the same
plan, and the results site shows the four profiles side by side, each
labelled with who ran it. The plan is sealed with a 4 s attempt timeout and
the endpoint stalls 5 s, so a loaded machine never abandons an answered
attempt.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import __version__ as inspect_version
from inspect_ai.log import read_eval_log

from apconform import __version__
from apconform.ap1.inspect import import_inspect_log
from apconform.ap1.mock import MODELS, MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.scoring import score_run

from .small_run import PLANNED, copy_sealed, executions, seal_small, small_inputs

BIN = Path(sys.executable).parent
ORACLE_URL = "http://127.0.0.1:9/v1/chat/completions"
KEY = "apconform-inspect-test-key-0123"
TOOL_CHOICE_NOT_ECHOED = {
    "finding": "requested but not echoed",
    "parameter": "tool_choice",
    "requested": '"auto"',
}


def _env(url: str) -> dict[str, str]:
    return {
        **os.environ,
        "APCONFORM_BASE_URL": url.rsplit("/chat/completions", 1)[0],
        "APCONFORM_API_KEY": KEY,
    }


def _run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)


def _native_then_inspect(
    root: Path, sealed_model: str, command: str, models: tuple[str, ...], *, seed: int
) -> tuple[Path, Path, str]:
    """Seal the small plan, run it natively, then `inspect <command>` it over ``models`` against a
    fresh endpoint with the same seed; (plan, native run, what Inspect printed)."""
    oracle = small_inputs(ORACLE_URL, "mock-correct")
    with MockEndpoint(oracle, seed=seed, stall_seconds=Decimal(5)) as mock:
        plan = seal_small(root / "plan", mock.url, sealed_model, timeout="4")
        native = copy_sealed(plan, root / "native")
        run_sealed(native, RunOptions(concurrency=1, progress=io.StringIO(), tty=False))
    with MockEndpoint(oracle, seed=seed, stall_seconds=Decimal(5)) as mock:
        done = _run(
            [
                str(BIN / "inspect"),
                command,
                "apconform/ap1",
                "--model",
                ",".join(f"openai-api/apconform/{m}" for m in models),
                "-T",
                f"run_dir={plan}",
                "--log-dir",
                str(root / "logs"),
                "--display",
                "plain",
            ],
            _env(mock.url),
        )
    assert done.returncode == 0, done.stderr[-3000:]
    return plan, native, done.stdout


@pytest.fixture(scope="module")
def every_persona(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, Path]:
    """`inspect eval` of the small plan with every built-in persona, defaults only; and the plan
    run natively with mock-split (its sealed model) for comparison."""
    root = tmp_path_factory.mktemp("inspect-cli")
    plan, native, printed = _native_then_inspect(root, "mock-split", "eval", MODELS, seed=5)
    return plan, root / "logs", printed, native


def test_inspect_eval_finishes_on_every_built_in_persona_with_the_task_defaults(
    every_persona: tuple[Path, Path, str, Path], tmp_path: Path
) -> None:
    plan, logs, _, _ = every_persona
    found = {read_eval_log(str(p), header_only=True).eval.model: p for p in logs.glob("*.eval")}
    assert sorted(found) == sorted(f"openai-api/apconform/{m}" for m in MODELS)
    statuses = {}
    for model, path in found.items():
        assert read_eval_log(str(path), header_only=True).status == "success", model
        target = copy_sealed(plan, tmp_path / model.rsplit("/", 1)[1])
        statuses[model.rsplit("/", 1)[1]] = import_inspect_log(path, target).statuses
    assert statuses["mock-correct"] == {"EXECUTED": 6, "VOID": 2}
    assert statuses["mock-foreign-shape"] == {"UNOBSERVABLE": 6, "VOID": 2}  # never an error
    assert sum(statuses["mock-flaky"].values()) == PLANNED


def test_the_eval_summary_shows_the_ap1_rates(every_persona: tuple[Path, Path, str, Path]) -> None:
    _, _, printed, _ = every_persona
    assert printed.count("ap1_score") >= len(MODELS)
    for name in ("D1 correct", "D7.1 invoked", "D7.2(a) grounded", "D7.2(b) correct", "D7.3 exact"):
        assert name in printed, name


def test_import_and_score_from_the_command_line_equal_the_native_run(
    every_persona: tuple[Path, Path, str, Path], tmp_path: Path
) -> None:
    """The documented path for mock-split: `apconform ap1 import inspect`, then score."""
    plan, logs, _, native = every_persona
    [log] = [
        p
        for p in logs.glob("*.eval")
        if read_eval_log(str(p), header_only=True).eval.model.endswith("/mock-split")
    ]
    run_dir = copy_sealed(plan, tmp_path / "inspect")
    imported = _run(
        [str(BIN / "apconform"), "ap1", "import", "inspect", str(log), "--run-dir", str(run_dir)]
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"imported {PLANNED} of {PLANNED} planned cells into ")
    assert "(EXECUTED 6, VOID 2)" in imported.stdout
    scored = _run([str(BIN / "apconform"), "ap1", "score", str(run_dir)])
    assert scored.returncode == 0, scored.stderr
    assert "Every input's hash equals the seal's." in scored.stdout
    inspected = executions(run_dir / "report")
    expected = executions(score_run(native).output_dir)
    assert {k: _comparable(v) for k, v in inspected.items()} == expected
    assert max(len(doc["operation"]["calls"]) for doc in inspected.values()) > 1  # split


def _ledger(*args: str) -> subprocess.CompletedProcess[str]:
    return _run([str(BIN / "apconform"), "ledger", *args])


def test_an_eval_set_lands_in_one_ledger_beside_the_native_run(tmp_path: Path) -> None:
    personas = ("mock-correct", "mock-split", "mock-invent")
    plan, native, _ = _native_then_inspect(tmp_path, "mock-correct", "eval-set", personas, seed=7)
    ledger = tmp_path / "ledger.sqlite"
    reports = [score_run(native).output_dir / "score-report.json"]
    for path in sorted((tmp_path / "logs").glob("*.eval")):
        model = read_eval_log(str(path), header_only=True).eval.model
        run_dir = copy_sealed(plan, tmp_path / model.rsplit("/", 1)[1])
        import_inspect_log(path, run_dir)
        reports.append(score_run(run_dir).output_dir / "score-report.json")
    assert len(reports) == 4
    for report in reports:
        recorded = _ledger("record", str(report), "--ledger", str(ledger))
        assert recorded.returncode == 0, recorded.stderr
    listed = _ledger("list", "--ledger", str(ledger)).stdout
    for persona in personas:
        subject = (
            f"mock-correct via Inspect AI {inspect_version}, model openai-api/apconform/{persona}"
        )
        assert subject in listed, subject
    site = _ledger("site", str(tmp_path / "site"), "--ledger", str(ledger))
    assert site.returncode == 0, site.stderr
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    table = page[page.index('<table class="profile">') :]
    heads = [unescape(h) for h in re.findall(r'<small class="origin">([^<]*)</small>', table)]
    assert sorted(heads) == sorted(
        [f"native (apconform {__version__})"]
        + [f"Inspect AI {inspect_version}, model openai-api/apconform/{p}" for p in personas]
    )


def _comparable(score: dict[str, Any]) -> dict[str, Any]:
    echo = dict(score["parameterEcho"])
    echo["findings"] = [f for f in echo["findings"] if f != TOOL_CHOICE_NOT_ECHOED]
    return {**score, "parameterEcho": echo}


def test_the_command_names_the_code_when_the_log_is_refused(tmp_path: Path) -> None:
    sealed = seal_small(tmp_path / "run", ORACLE_URL, "mock-split")
    junk = tmp_path / "log.eval"
    junk.write_bytes(b"PK\x03\x04 truncated")
    done = _run(
        [str(BIN / "apconform"), "ap1", "import", "inspect", str(junk), "--run-dir", str(sealed)]
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error AP1-INSPECT-LOG: ")
    assert "Traceback" not in done.stderr
    assert not (sealed / "transcript.jsonl").exists()


@pytest.mark.parametrize(
    ("arguments", "printed"),
    [
        ([], "error AP1-INSPECT-RUN-DIR: no run directory was given (-T run_dir=RUN is required)"),
        (["-T", "run_dir=/nonexistent/run"], "error AP1-SEAL-BROKEN: /nonexistent/run: the seal"),
    ],
    ids=["no-run-dir", "broken-seal"],
)
def test_the_task_refuses_without_a_traceback(arguments: list[str], printed: str) -> None:
    done = _run(
        [str(BIN / "inspect"), "eval", "apconform/ap1", "--model", "mockllm/model", *arguments]
    )
    assert done.returncode == 1
    assert printed in " ".join(done.stdout.split())
    assert "Traceback" not in done.stdout + done.stderr


def test_a_key_the_endpoint_echoes_is_masked_in_the_imported_transcript(
    every_persona: tuple[Path, Path, str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mock-echo-key sends Inspect's key back in every form; the import masks the key Inspect's
    provider read (APCONFORM_API_KEY for openai-api/apconform/...), though the seal names none."""
    plan, logs, _, _ = every_persona
    [log] = [
        p
        for p in logs.glob("*.eval")
        if read_eval_log(str(p), header_only=True).eval.model.endswith("/mock-echo-key")
    ]
    samples = read_eval_log(str(log)).samples or []
    assert any(KEY in json.dumps(s.store) for s in samples)  # the echo reached Inspect's log
    monkeypatch.setenv("APCONFORM_API_KEY", KEY)
    run_dir = copy_sealed(plan, tmp_path / "echo")
    import_inspect_log(log, run_dir)
    written = (run_dir / "transcript.jsonl").read_text(encoding="utf-8")
    assert KEY not in written
    assert "[REDACTED]" in written
