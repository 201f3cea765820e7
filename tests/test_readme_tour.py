"""The README's tour, run as written, line by line, in a fresh copy of the repository.

The commands are read from README.md (the ```bash block under "## A tour"), never copied
here, and each runs with ``bash -c`` from the copy's root, its standard input a terminal
on which Ctrl-D has been typed (what a person running the line would give it). A command
fails the test when it exits with another status than 0 (or the one its comment states as
"exit status N"), or prints nothing: neither on the terminal nor into the file it
redirects to. A line ending in ``&`` is a server: it is started in the background and must
print a ``ready:`` line before the next line runs; every server is stopped with Ctrl-C
(SIGINT) at the end. Afterwards everything the tour wrote is ignored by git.

The copy is the working tree's tracked and unignored files (what a clone of a commit of
them holds). Its ``.venv`` is a fresh virtual environment with the copy installed in
editable mode (pip, the copy's own pyproject.toml) that reuses this environment's
installed dependencies instead of downloading them again, which keeps the test at about
a minute. The time each line took is printed (``pytest -s``).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PORTS = (8080, 8765)
"""The ports the tour's servers use as written (the API's and the built-in endpoint's)."""
_EXIT = re.compile(r"exit status (\d+)")


@dataclass
class Line:
    """One command of the tour (continuation lines joined) and what it must do."""

    text: str
    comment: str
    background: bool = False
    expected_status: int = 0
    redirect: str | None = None


def tour_lines(readme: str) -> list[Line]:
    """The commands of the README's tour, in order."""
    section = readme[readme.index("\n## A tour\n") :]
    block = section[section.index("```bash\n") + len("```bash\n") :]
    block = block[: block.index("\n```")]
    joined: list[str] = []
    pending = ""
    for raw in block.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        joined.append(pending + raw)
        pending = ""
    lines = []
    for text in joined:
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = shlex.split(stripped, comments=True)
        comment = stripped.split(" #", 1)[1] if " #" in stripped else ""
        line = Line(stripped, comment)
        if words and words[-1] == "&":
            line.background = True
        found = _EXIT.search(comment)
        if found:
            line.expected_status = int(found.group(1))
        for index, word in enumerate(words):
            if word == ">" and index + 1 < len(words):
                line.redirect = words[index + 1]
            elif word.startswith(">") and len(word) > 1:
                line.redirect = word[1:]
        lines.append(line)
    return lines


def _copy_repository(target: Path) -> None:
    """The tracked and unignored files of the working tree, then a git baseline of them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():
            continue  # deleted in the working tree
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
    git = ["git", "-c", "user.name=tour", "-c", "user.email=tour@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=target, check=True)
    subprocess.run([*git, "add", "-A"], cwd=target, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fresh copy"], cwd=target, check=True)


def _make_venv(clone: Path) -> None:
    """clone/.venv: a new environment, the copy installed editable, this one's dependencies."""
    venv = clone / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    (Path(purelib) / "apconform-tour-dependencies.pth").write_text(ours + "\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--disable-pip-version-check", "-e", str(clone)],
        check=True,
        capture_output=True,
        timeout=600,
    )  # fmt: skip
    found = subprocess.run(
        [str(python), "-c", "import apconform; print(apconform.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(found).resolve().is_relative_to(clone.resolve()), found


def _wait_for_free_ports() -> None:
    deadline = time.monotonic() + 60
    for port in PORTS:
        while True:
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    probe.bind(("127.0.0.1", port))
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        pytest.fail(
                            f"port {port} is held by another program; the README tour uses it "
                            "as written, so stop that program and run the test again"
                        )
                    time.sleep(1)


@dataclass
class Server:
    line: Line
    process: subprocess.Popen[bytes]
    output: list[bytes] = field(default_factory=list)

    def read(self) -> None:
        assert self.process.stdout is not None
        for chunk in iter(self.process.stdout.readline, b""):
            self.output.append(chunk)

    def ready(self) -> bool:
        return any(chunk.startswith(b"ready:") for chunk in self.output)


def _environment(clone: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST", "COV_", "VIRTUAL_ENV")) and key != "PYTHONPATH"
    }
    env["HOME"] = str(clone.parent / "home")
    Path(env["HOME"]).mkdir(exist_ok=True)
    return env


def _run(line: Line, clone: Path, env: dict[str, str]) -> tuple[int, bytes]:
    controller, terminal = os.openpty()
    try:
        os.write(controller, b"\x04")  # Ctrl-D already typed: a line waiting on input ends
        done = subprocess.run(
            ["bash", "-c", line.text],
            cwd=clone,
            env=env,
            stdin=terminal,
            capture_output=True,
            timeout=600,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    return done.returncode, done.stdout + done.stderr


def _start(line: Line, clone: Path, env: dict[str, str]) -> Server:
    command = line.text.split(" #", 1)[0].rstrip()
    assert command.endswith("&")
    process = subprocess.Popen(
        ["bash", "-c", "exec " + command[:-1].rstrip()],
        cwd=clone,
        env={**env, "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    server = Server(line, process)
    threading.Thread(target=server.read, daemon=True).start()
    deadline = time.monotonic() + 300
    while not server.ready():
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(
                f"{line.text}\nprinted no ready line (exit {process.poll()}):\n"
                + b"".join(server.output).decode("utf-8", "replace")[-3000:]
            )
        time.sleep(0.05)
    return server


def _stop(servers: list[Server]) -> None:
    for server in servers:
        if server.process.poll() is None:
            os.killpg(server.process.pid, signal.SIGINT)  # Ctrl-C
    for server in servers:
        try:
            server.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("the tour test copies a git working tree; this is not one")
    if shutil.which("curl") is None:
        message = "the README tour uses curl (apt-get install curl)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    target = tmp_path_factory.mktemp("tour") / "apconform"
    target.mkdir()
    _copy_repository(target)
    _make_venv(target)
    yield target


def test_the_tour_is_read_from_the_readme() -> None:
    lines = tour_lines(README.read_text(encoding="utf-8"))
    assert len(lines) > 30
    assert [line.text for line in lines if line.background] == [
        ".venv/bin/apconform serve --port 8080 --workers 2 &",
        ".venv/bin/apconform ap1 serve-mock &",
    ]
    assert all(".venv/bin/" in line.text or "curl" in line.text or "echo" in line.text
               for line in lines)  # fmt: skip
    assert not [line.text for line in lines if "./my-" in line.text or "<" in line.text]


def test_the_readme_tour_runs_as_written(clone: Path) -> None:
    env = _environment(clone)
    _wait_for_free_ports()
    servers: list[Server] = []
    timings: list[tuple[float, str]] = []
    started = time.perf_counter()
    try:
        for line in tour_lines((clone / "README.md").read_text(encoding="utf-8")):
            began = time.perf_counter()
            if line.background:
                servers.append(_start(line, clone, env))
            else:
                status, printed = _run(line, clone, env)
                shown = printed.decode("utf-8", "replace")
                assert status == line.expected_status, (
                    f"{line.text}\nexited {status}, the README says "
                    f"{line.expected_status}:\n{shown[-3000:]}"
                )
                into = b""
                if line.redirect and line.redirect != "/dev/null":
                    into = (clone / line.redirect).read_bytes()
                assert printed.strip() or into.strip(), f"{line.text}\nprinted nothing"
            timings.append((time.perf_counter() - began, line.text[:90]))
    finally:
        _stop(servers)
    for server in servers:
        assert server.process.returncode in (0, -signal.SIGINT, 130), (
            server.line.text,
            server.process.returncode,
        )
    total = time.perf_counter() - started
    print(f"\nREADME tour: {len(timings)} lines in {total:.1f} s")
    for seconds, text in sorted(timings, reverse=True)[:8]:
        print(f"  {seconds:6.1f} s  {text}")
    # whatever the tour wrote (tour/, the key among it) is ignored by git
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status == "", status
    assert (clone / "tour" / "my.key").is_file()


def test_the_readmes_vector_count_is_the_suites() -> None:
    """ "206 golden vectors": the README's count of APx vectors is what the kit loads."""
    from apconform.conformance.vectors import load_vectors

    found = re.search(r"`apconform apx …`, (\d+) golden vectors", README.read_text("utf-8"))
    assert found is not None
    assert int(found.group(1)) == sum(1 for v in load_vectors() if v.vector.protocol == "apx")
