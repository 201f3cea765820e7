"""A real run killed with SIGKILL mid-flight resumes with nothing lost, nothing duplicated.

The run is a separate `apconform ap1 run` process talking to the built-in
endpoint served by this test process, so the kill hits a real writer at an
arbitrary moment. A second test stops a run with SIGINT (Ctrl-C).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from process_support import from_a_terminal, in_the_background, stop

from apconform.ap1.inputs.plan import plan_cells
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.transcript.verify import verify_transcript

from .runs import example_inputs, inputs_for, seal_run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
REPO = Path(__file__).resolve().parents[2]


def _start_run(
    run_dir: Path, *args: str, launch: Callable[[list[str]], list[str]] = from_a_terminal
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "APCONFORM_DEBUG": "1",
    }  # a failure shows its traceback
    return subprocess.Popen(
        launch([sys.executable, "-m", "apconform.cli", "ap1", "run", *args, "--concurrency", "4"]),
        cwd=run_dir.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for_lines(path: Path, count: int, proc: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if path.exists():
            lines = path.read_bytes().count(b"\n")
            if lines >= count:
                return lines
        if proc.poll() is not None:
            raise AssertionError(f"the run ended early: {proc.communicate()}")
        time.sleep(0.02)
    raise AssertionError("the run did not write enough records in time")


def _kinds(path: Path) -> Counter[str]:
    return Counter(json.loads(line)["kind"] for line in path.read_text().splitlines())


def test_kill_minus_nine_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    with MockEndpoint(
        example_inputs(), latency=Decimal("0.02"), seed=3, stall_seconds=Decimal("1.5")
    ) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-mixed")
        transcript = run_dir / "transcript.jsonl"
        proc = _start_run(run_dir, "--output-dir", str(run_dir))
        _wait_for_lines(transcript, 40, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        before = transcript.read_bytes()
        killed_report = verify_transcript(transcript)
        plan = [
            c.key
            for c in plan_cells(
                inputs_for(mock.url, "mock-mixed", transport={"timeoutSeconds": "0.3"})
            )
        ]
        assert 0 < len(killed_report.cells) < len(plan)
        assert not killed_report.finished
        # As if the kill had also landed inside a write: an unterminated, never-committed line.
        torn = before.splitlines(keepends=True)[-1][:57]
        with transcript.open("ab") as handle:
            handle.write(torn)

        resumed = _start_run(run_dir, "--resume", str(run_dir))
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err.decode()

    report = verify_transcript(
        transcript, seal_hash=json.loads((run_dir / "seal.json").read_text())["sealHash"]
    )
    assert report.problems == [] and report.ok and report.finished
    assert sorted(report.cells) == sorted(plan)  # every cell once: none lost, none duplicated
    assert len(report.cells) == len(plan) == 204
    after = transcript.read_bytes()
    assert after.startswith(before)  # nothing committed before the kill was rewritten
    assert _kinds(transcript) == Counter(
        {"run-started": 1, "execution": 204, "run-resumed": 1, "run-finished": 1}
    )
    resumed_record = next(r for r in report.records if r["kind"] == "run-resumed")["runResumed"]
    assert resumed_record["cellsRecorded"] == str(len(killed_report.cells))
    assert resumed_record["tornTailBytes"] == str(len(torn))
    assert (run_dir / resumed_record["tornTailFile"]).read_bytes() == torn
    assert b"204/204 cells recorded" in out


@pytest.mark.parametrize(
    ("launch", "how"),
    [(from_a_terminal, signal.SIGINT), (in_the_background, signal.SIGTERM)],
    ids=["ctrl-c-in-a-terminal", "kill-in-the-background"],
)
def test_ctrl_c_or_kill_stops_cleanly_and_resumes(
    tmp_path: Path, launch: Callable[[list[str]], list[str]], how: signal.Signals
) -> None:
    """Ctrl-C, and `kill PID` (SIGTERM) even with SIGINT ignored, stop the run resumably."""
    with MockEndpoint(example_inputs(), latency=Decimal("0.02"), seed=5) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-split", repeats="1")
        transcript = run_dir / "transcript.jsonl"
        proc = _start_run(run_dir, "--output-dir", str(run_dir), launch=launch)
        try:
            _wait_for_lines(transcript, 20, proc)
            proc.send_signal(how)
            out, err = proc.communicate(timeout=60)
        finally:
            stop(proc, signal.SIGKILL)
        assert proc.returncode == 130, err.decode()
        assert b"continue with: apconform ap1 run --resume" in out
        stopped = verify_transcript(transcript)
        assert stopped.ok and stopped.records[-1]["kind"] == "run-stopped"
        recorded = stopped.records[-1]["runStopped"]
        assert int(recorded["cellsRecorded"]) == len(stopped.cells) < 104
        assert int(recorded["cellsRemaining"]) == 104 - len(stopped.cells)
        resumed = _start_run(run_dir, "--resume", str(run_dir))
        _, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err.decode()
    report = verify_transcript(transcript)
    assert report.ok and report.finished and len(report.cells) == 104
    assert _kinds(transcript)["run-stopped"] == 1
