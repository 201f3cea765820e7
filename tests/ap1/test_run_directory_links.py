"""A link planted in a run directory is refused, never followed.

Finding 6 of the trust review: a dangling `transcript.jsonl` link received the
whole transcript, a `.lock` link created a file outside the directory, a
`report` link sent every report file elsewhere, and a planted
`transcript.torn-<sha>.bin` link received the torn bytes on resume.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.cli import main
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError

from .runs import example_inputs, seal_run

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
QUIET = RunOptions(concurrency=4, progress=io.StringIO(), tty=False)


def _refused(run_dir: Path, options: RunOptions = QUIET) -> ApconformError:
    with pytest.raises(ApconformError) as caught:
        run_sealed(run_dir, options)
    return caught.value


@pytest.mark.parametrize("name", ["transcript.jsonl", ".lock", "transcript.head.json"])
def test_a_planted_link_is_refused_and_its_target_never_written(tmp_path: Path, name: str) -> None:
    run_dir = seal_run(tmp_path, "http://127.0.0.1:9/v1/chat/completions", "mock-correct")
    outside = tmp_path / "outside" / name
    outside.parent.mkdir()
    (run_dir / name).symlink_to(outside)  # dangling: a naive open would create the target
    error = _refused(run_dir)
    assert error.code == "AP1-RUN-LINK"
    assert f"{run_dir / name} is a symbolic link; it is refused, never followed" in error.message
    assert not outside.exists()


def test_a_run_directory_that_is_a_link_is_refused(tmp_path: Path) -> None:
    real = seal_run(tmp_path, "http://127.0.0.1:9/v1/chat/completions", "mock-correct")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    error = _refused(link)
    assert (error.code, error.message) == (
        "AP1-RUN-LINK",
        f"{link} is a symbolic link; it is refused, never followed",
    )


def test_a_report_link_is_refused_and_nothing_is_written_through_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-no-tool", repeats="1")
        run_sealed(run_dir, QUIET)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run_dir / "report").symlink_to(elsewhere, target_is_directory=True)
    assert main(["ap1", "score", str(run_dir)]) == 2
    assert f"error AP1-RUN-LINK: {run_dir / 'report'} is a symbolic link" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []


def test_a_planted_torn_tail_file_is_refused_on_resume(tmp_path: Path) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-no-tool", repeats="1")
        run_sealed(run_dir, QUIET)
        transcript = run_dir / "transcript.jsonl"
        lines = transcript.read_bytes().splitlines(keepends=True)
        torn = lines[-1][:40]  # the run-finished record, cut mid-write
        transcript.write_bytes(b"".join(lines[:-1]) + torn)
        name = f"transcript.torn-{sha256_bytes(torn)[:16]}.bin"
        outside = tmp_path / "stolen.bin"
        (run_dir / name).symlink_to(outside)
        first = json.loads(lines[0])  # as if the run crashed before its last head was written
        head = {"records": "1", "headSha256": first["sha256"], "lastKind": "run-started"}
        path = run_dir / "transcript.head.json"
        if path.exists():
            path.write_text(json.dumps({**json.loads(path.read_text()), **head}), encoding="utf-8")
        error = _refused(run_dir, RunOptions(resume=True, progress=io.StringIO()))
    assert error.code == "AP1-RUN-LINK" and name in error.message
    assert not outside.exists()
