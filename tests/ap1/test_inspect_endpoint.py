"""The same sealed run executed natively and through Inspect AI against the built-in endpoint.

Inspect's OpenAI-compatible provider talks to ``MockEndpoint`` on 127.0.0.1;
the log is imported and scored, and every deterministic persona's
per-execution scores equal the native run's. One member differs legitimately:
the parameter echo, because Inspect sends ``tool_choice: "auto"`` whenever tools
are offered, though the seal omits it, so the echo finds one more parameter
that was sent and not echoed. The ``transcribe-error`` persona picks the cent
it alters with a seed drawn from the bytes of the request after the tool call,
and Inspect writes the assistant's tool call back in its own spelling
(``{"expression": ...}`` with a space), so there the released figure may be the
other cent: its verdicts agree, its figures need not.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from inspect_ai.model import get_model

from apconform.ap1.inspect import ap1, import_inspect_log
from apconform.ap1.inspect.scorer import verdicts
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.scoring import score_run

from .small_run import PLANNED, copy_sealed, executions, seal_small, small_inputs

EXACT = ("correct", "no-tool", "invent", "sign-invert", "decline", "split")
PERSONAS = (*EXACT, "transcribe-error")
BIN = Path(sys.executable).parent
TOOL_CHOICE_NOT_ECHOED = {
    "finding": "requested but not echoed",
    "parameter": "tool_choice",
    "requested": '"auto"',
}


def _base(url: str) -> str:
    return url.rsplit("/chat/completions", 1)[0]


def _native(run_dir: Path) -> dict[str, dict[str, Any]]:
    run_sealed(run_dir, RunOptions(concurrency=1, progress=io.StringIO(), tty=False))
    return executions(score_run(run_dir).output_dir)


def _comparable(native: dict[str, Any], inspected: dict[str, Any]) -> tuple[Any, Any]:
    """Both scores with the one legitimate difference taken out of the Inspect side."""
    echo = dict(inspected["parameterEcho"])
    if echo["findings"]:
        assert echo["findings"][0] == TOOL_CHOICE_NOT_ECHOED
        echo["findings"] = echo["findings"][1:]
    return native, {**inspected, "parameterEcho": echo}


def test_every_deterministic_persona_gets_the_native_runs_verdicts(tmp_path: Path) -> None:
    oracle = small_inputs("http://127.0.0.1:9/v1/chat/completions", "mock-correct")
    native: dict[str, dict[str, dict[str, Any]]] = {}
    dirs: dict[str, Path] = {}
    with MockEndpoint(oracle, seed=3) as mock:
        for persona in PERSONAS:
            sealed = seal_small(tmp_path / persona / "native", mock.url, f"mock-{persona}")
            dirs[persona] = copy_sealed(sealed, tmp_path / persona / "inspect")
            native[persona] = _native(sealed)
    with MockEndpoint(oracle, seed=3) as mock:  # fresh counters: each repeat sees occurrence 0
        tasks = [
            task_with(
                ap1(run_dir=str(dirs[persona])),
                model=get_model(
                    f"openai-api/apconform/mock-{persona}", base_url=_base(mock.url), api_key="-"
                ),
            )
            for persona in PERSONAS
        ]
        logs = inspect_eval(tasks, log_dir=str(tmp_path / "logs"), display="none", max_tasks=4)
    assert [log.status for log in logs] == ["success"] * len(PERSONAS)
    for persona, log in zip(PERSONAS, logs, strict=True):
        assert log.eval.model == f"openai-api/apconform/mock-{persona}"
        import_inspect_log(Path(log.location), dirs[persona])
        inspected = executions(score_run(dirs[persona]).output_dir)
        assert sorted(inspected) == sorted(native[persona]), persona
        assert len(inspected) == PLANNED
        for key in native[persona]:
            left, right = _comparable(native[persona][key], inspected[key])
            assert verdicts(left) == verdicts(right), (persona, key)
            if persona in EXACT:
                assert left == right, (persona, key)
    verdict_sets = {p: {verdicts(d)["D7.3"] for d in native[p].values()} for p in PERSONAS}
    assert verdict_sets["correct"] == {"TRANSCRIBED-EXACT", None}
    assert "TRANSCRIBED-ALTERED" in verdict_sets["transcribe-error"]


def test_inspect_eval_then_import_then_score_from_the_command_line(tmp_path: Path) -> None:
    """The documented path: `inspect eval`, then `apconform ap1 import inspect`, then score."""
    oracle = small_inputs("http://127.0.0.1:9/v1/chat/completions", "mock-split")
    with MockEndpoint(oracle, seed=5) as mock:
        sealed = seal_small(tmp_path / "native", mock.url, "mock-split")
        run_dir = copy_sealed(sealed, tmp_path / "inspect")
        native = _native(sealed)
    with MockEndpoint(oracle, seed=5) as mock:
        evaluated = subprocess.run(
            [
                str(BIN / "inspect"),
                "eval",
                "apconform/ap1",
                "--model",
                "openai-api/apconform/mock-split",
                "--model-base-url",
                _base(mock.url),
                "-T",
                f"run_dir={run_dir}",
                "--log-dir",
                str(tmp_path / "logs"),
                "--display",
                "none",
            ],
            env={**os.environ, "APCONFORM_API_KEY": "unused"},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    [log] = sorted((tmp_path / "logs").glob("*.eval"))
    imported = subprocess.run(
        [str(BIN / "apconform"), "ap1", "import", "inspect", str(log), "--run-dir", str(run_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"imported {PLANNED} of {PLANNED} planned cells into ")
    assert "(EXECUTED 6, VOID 2)" in imported.stdout
    scored = subprocess.run(
        [str(BIN / "apconform"), "ap1", "score", str(run_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert scored.returncode == 0, scored.stderr
    assert "Every input's hash equals the seal's." in scored.stdout
    inspected = executions(run_dir / "report")
    assert sorted(inspected) == sorted(native)
    for key in native:
        left, right = _comparable(native[key], inspected[key])
        assert left == right, key
    calls = {key: len(doc["operation"]["calls"]) for key, doc in inspected.items()}
    assert max(calls.values()) > 1  # the split persona computes over several calls


def test_the_command_names_the_code_when_the_log_is_refused(tmp_path: Path) -> None:
    sealed = seal_small(tmp_path / "run", "http://127.0.0.1:9/v1/chat/completions", "mock-split")
    junk = tmp_path / "log.eval"
    junk.write_bytes(b"PK\x03\x04 truncated")
    done = subprocess.run(
        [str(BIN / "apconform"), "ap1", "import", "inspect", str(junk), "--run-dir", str(sealed)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error AP1-INSPECT-LOG: ")
    assert "Traceback" not in done.stderr
    assert not (sealed / "transcript.jsonl").exists()
