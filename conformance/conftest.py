"""pytest options and fixtures for the clause-quoting conformance suite.

    pytest conformance --impl exec:./my-impl [--protocol apx] [--vectors DIR]
                       [--timeout 10] [--validate-protocol]

Each test in conformance/clauses/ is one clause; it is parametrized over the
vectors that cite the clause. The session fails when a branch (the
acceptance or the refusal vectors) of a MUST clause of a protocol the
implementation claims had no executed vector.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from apconform.conformance.pytest_support import ConformanceCase, ConformanceSession
from apconform.conformance.runner import CheckOptions

_SESSION: ConformanceSession | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("apconform")
    group.addoption("--impl", help="direct:MODULE:CALLABLE, exec:COMMAND or http:BASE_URL")
    group.addoption("--protocol", action="append", choices=["apx", "ap1", "kit"])
    group.addoption("--vectors", help="vector folder (default: the kit's)")
    group.addoption("--timeout", type=float, default=10.0, help="seconds per case")
    group.addoption("--validate-protocol", action="store_true")
    group.addoption(
        "--trusted-key",
        action="append",
        default=[],
        help="public key (64 hex) the vector manifest may be signed by; named keys replace the "
        "default (the kit's published TEST key)",
    )
    group.addoption("--trust-file", help="a file of trusted public keys, one per line")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clause(id): the clause a conformance test checks")


def _session(config: pytest.Config) -> ConformanceSession:
    global _SESSION
    if _SESSION is None:
        impl = config.getoption("--impl")
        if not impl:
            raise pytest.UsageError(
                "the clause tests need --impl (direct:..., exec:... or http:...)"
            )
        vectors = config.getoption("--vectors")
        trust_file = config.getoption("--trust-file")
        _SESSION = ConformanceSession(
            CheckOptions(
                impl=impl,
                protocols=config.getoption("--protocol"),
                vectors_dir=Path(vectors) if vectors else None,
                timeout=config.getoption("--timeout"),
                validate_protocol=config.getoption("--validate-protocol"),
                trusted_keys=config.getoption("--trusted-key"),
                trust_file=Path(trust_file) if trust_file else None,
            )
        )
    return _SESSION


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("clause")
    if marker is None or "conformance_case" not in metafunc.fixturenames:
        return
    session = _session(metafunc.config)
    clause_id = str(marker.args[0])
    vectors: list[Any] = session.vectors_for(clause_id) or [None]
    ids = [v.id if v is not None else "no-vectors" for v in vectors]
    params = [(clause_id, v) for v in vectors]
    metafunc.parametrize("conformance_case", params, ids=ids, indirect=True)


@pytest.fixture
def conformance_case(request: pytest.FixtureRequest) -> ConformanceCase:
    clause_id, vector = request.param
    return ConformanceCase(_session(request.config), clause_id, vector)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _SESSION
    if _SESSION is None:
        return
    unexecuted = _SESSION.unexecuted_branches() if session.testscollected else []
    _SESSION.stop()
    _SESSION = None
    if unexecuted and exitstatus == 0:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                "incomplete: MUST clause branches with no executed vector: "
                + ", ".join(unexecuted),
                red=True,
            )
        session.exitstatus = 1
