"""Every file a user names is read bounded and without blocking.

Finding 5 of the trust review: `hash --text /dev/zero` and `adjudicate import
--scorer-1 /dev/zero` grew to gigabytes and died with exit 70; a FIFO given to
`hash --text`, `ap1 seal --ap1-text` or `adjudicate import` hung forever. Each
command runs in its own process with a generous timeout, so a hang fails the
test instead of hanging it (no test depends on how fast the refusal is).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apconform.ap1.inputs.files import example_paths
from apconform.core.errors import ApconformError

POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")


def _apconform(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "apconform.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def _inputs(ap1_text: str) -> list[str]:
    paths = example_paths()
    return [
        *("--config", str(paths.config), "--fixture", str(paths.fixture)),
        *("--questions", str(paths.questions), "--derivations", str(paths.derivations)),
        *("--ap1-text", ap1_text),
    ]


def _scored_run(tmp_path: Path) -> Path:
    """A run directory with a report (adjudicate import needs the sheets' key)."""
    from apconform.ap1.demo import demo_step
    from apconform.demo_context import DemoContext

    assert demo_step(DemoContext(tmp_path, io.StringIO())) == 0
    return tmp_path / "ap1-run"


def _commands(tmp_path: Path, target: str, run_dir: Path) -> list[list[str]]:
    sheet = str(run_dir / "report/adjudication/scorer-2.csv")
    return [
        ["hash", "--text", target],
        ["ap1", "seal", *_inputs(target), "--output-dir", str(tmp_path / "s")],
        ["ap1", "adjudicate", "import", str(run_dir), "--scorer-1", target, "--scorer-2", sheet],
        ["ap1", "verify-transcript", target],
        ["report", "render", target, "--format", "pretty"],
    ]


@POSIX
def test_devices_fifos_and_directories_are_refused_at_once(tmp_path: Path) -> None:
    run_dir = _scored_run(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target, kind in (
        ("/dev/zero", "is a device, not a regular file"),
        (str(fifo), "is a named pipe (FIFO), not a regular file"),
        (str(tmp_path), "is a directory, not a regular file"),
    ):
        for command in _commands(tmp_path, target, run_dir):
            if command[:2] == ["ap1", "verify-transcript"] and target == str(tmp_path):
                continue  # a directory is a run directory there
            done = _apconform(*command)
            assert (done.returncode, done.stderr.split(":")[0]) == (
                2,
                "error APC-FILE-NOT-REGULAR",
            ), (command, done.stderr)
            assert f"{target}: {kind}" in done.stderr
            assert "internal error" not in done.stderr


def test_a_file_over_the_limit_for_its_kind_is_refused_from_its_size(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(5 * 1024**3)  # sparse: nothing is written, nothing may be read
    done = _apconform("hash", "--text", str(huge))
    assert done.returncode == 2
    assert done.stderr.startswith("error APC-FILE-TOO-LARGE")
    assert "the file is 5,368,709,120 bytes; the limit for a text to hash is 67,108,864 bytes" in (
        done.stderr
    )
    done = _apconform("ap1", "seal", *_inputs(str(huge)), "--output-dir", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "the limit for an AP-1 text is 4,194,304 bytes" in done.stderr
    assert not (tmp_path / "s").exists()


def test_text_that_is_not_utf8_is_refused_with_its_own_code(tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9\n")
    done = _apconform("hash", "--text", str(latin))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error APC-FILE-NOT-TEXT: {latin}: byte 3 is not UTF-8")


def test_the_readers_take_at_most_the_limit_plus_one_byte(tmp_path: Path) -> None:
    from apconform.core.files import read_file, read_text

    grows = Path("/proc/self/status")  # a regular file that reports size 0
    if grows.is_file():
        assert read_file(grows, max_bytes=1 << 20).startswith(b"Name:")
        with pytest.raises(ApconformError) as caught:
            read_file(grows, max_bytes=10, what="a status")
        assert caught.value.code == "APC-FILE-TOO-LARGE"
        assert "the limit for a status is 10 bytes" in caught.value.message
    text = tmp_path / "t.txt"
    text.write_text("ok\r\n", encoding="utf-8")
    assert read_text(text, max_bytes=4) == "ok\r\n"
