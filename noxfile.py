"""The kit's checks, one session each (see CONTRIBUTING.md).

nox is not a dependency of the kit and CI does not use it (CI runs ``.ci/run``):
run ``pipx run nox -s lint types fast`` for the fast checks. Every session runs the
tools of the checkout's ``.venv`` (README's set-up command makes it with the pinned
versions of ``requirements/lock.txt``), so no session creates an environment.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
VENV_BIN = ROOT / ".venv" / "bin"
SOURCES = ("src", "tests", "conformance", "examples")

WHOLE_SUITE = ("-n", "auto", "--dist", "loadfile")
"""README's test command's options: the whole suite over pytest-xdist workers (one per
core), each test module kept on one worker."""

FAST_TESTS = ("-m", "fast")
"""The quick selection: every test outside the slow modules tests/slow_modules.py lists
(2 min 44 s for 5,197 tests on the 2-core machine, 2026-12-05)."""

nox.options.sessions = ["lint", "types", "fast"]


def _tool(session: nox.Session, name: str) -> str:
    """The path of a tool in the checkout's ``.venv``; stop with the set-up command if absent."""
    path = VENV_BIN / name
    if not path.exists():
        session.error(
            f"{path} is missing: set up the checkout first with "
            "python3 -m venv .venv && .venv/bin/pip install -c requirements/lock.txt -e '.[dev]'"
        )
    return str(path)


@nox.session(venv_backend="none")
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    ruff = _tool(session, "ruff")
    session.run(ruff, "check", *SOURCES, external=True)
    session.run(ruff, "format", "--check", *SOURCES, external=True)


@nox.session(venv_backend="none")
def types(session: nox.Session) -> None:
    """mypy, with the settings of pyproject.toml."""
    session.run(_tool(session, "mypy"), *session.posargs, external=True)


@nox.session(venv_backend="none")
def fast(session: nox.Session) -> None:
    """The quick selection, ``pytest -m fast`` (under three minutes)."""
    python = _tool(session, "python")
    session.run(python, "-m", "pytest", *FAST_TESTS, *session.posargs, external=True)


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """The whole suite, as README's test command runs it."""
    python = _tool(session, "python")
    session.run(python, "-m", "pytest", *WHOLE_SUITE, *session.posargs, external=True)


@nox.session(venv_backend="none")
def docs(session: nox.Session) -> None:
    """The documentation site, built strictly into a temporary folder."""
    mkdocs = _tool(session, "mkdocs")
    with tempfile.TemporaryDirectory() as site:
        session.run(
            mkdocs,
            "build",
            "--strict",
            "--site-dir",
            site,
            env={"NO_MKDOCS_2_WARNING": "1"},
            external=True,
        )


@nox.session(venv_backend="none")
def gen(session: nox.Session) -> None:
    """The generated files match their sources (apconform-dev gen --check)."""
    session.run(_tool(session, "apconform-dev"), "gen", "--check", external=True)
