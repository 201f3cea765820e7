"""The clause-quoting suite: `pytest conformance --impl IMPL` and its meta-test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from apconform.conformance.runner import is_negative

from .conftest import DIRECT, FAULTY_EXEC, REPO, VECTORS, plan


def _pytest(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_reference_passes_clause_by_clause() -> None:
    result = _pytest("conformance", "--impl", DIRECT, "-rA", "-q")
    assert result.returncode == 0, result.stdout[-2000:]
    assert "PASSED conformance/clauses/test_kit.py::test_KIT_JCS_1[kit-jcs-number-exponent]" in (
        result.stdout
    )
    assert "SKIPPED" in result.stdout and "untestable: a property of the harness" in result.stdout


def test_faulty_implementation_fails_the_clauses_of_its_faulty_vectors() -> None:
    impl = (
        f"{FAULTY_EXEC} {plan({'kit-jcs-number-exponent': 'wrong-value', 'kit-load-bom': 'crash'})}"
    )
    result = _pytest("conformance", "--impl", impl, "-q", "-rf")
    assert result.returncode == 1
    failed = sorted(
        line.split(" ")[1] for line in result.stdout.splitlines() if line.startswith("FAILED ")
    )
    assert failed == [
        "conformance/clauses/test_kit.py::test_KIT_JCS_1[kit-jcs-number-exponent]",
        "conformance/clauses/test_kit.py::test_KIT_LOAD_4[kit-load-bom]",
    ]
    assert "reproduce: apconform check --impl" in result.stdout


def test_skipping_the_refusals_of_a_clause_fails_the_session() -> None:
    negative = [v.id for v in VECTORS.values() if v.vector.protocol == "kit" and is_negative(v)]
    impl = f"{FAULTY_EXEC} {plan(dict.fromkeys(negative, 'skip'))}"
    result = _pytest("conformance/clauses/test_kit.py", "--impl", impl, "--protocol", "kit", "-q")
    assert result.returncode == 1, result.stdout[-2000:]
    assert "failed" not in result.stdout.splitlines()[-1]  # nothing failed, yet the run fails
    assert "incomplete: MUST clause branches with no executed vector: KIT-ERR-1 (refusal)" in (
        result.stdout
    )


def test_clause_tests_need_an_implementation() -> None:
    result = _pytest("conformance", "-q")
    assert result.returncode == 2  # collection error: nothing ran
    assert "the clause tests need --impl" in result.stdout + result.stderr


def test_meta_test_catches_a_changed_quote(tmp_path: Path) -> None:
    suite = tmp_path / "conformance"
    shutil.copytree(REPO / "conformance", suite, ignore=shutil.ignore_patterns("__pycache__"))
    assert _pytest(str(suite / "test_meta.py"), "-q", cwd=tmp_path).returncode == 0
    module = suite / "clauses" / "test_kit.py"
    text = module.read_text(encoding="utf-8")
    module.write_text(text.replace("64 lower-case", "64 upper-case"), encoding="utf-8")
    result = _pytest(str(suite / "test_meta.py"), "-q", cwd=tmp_path)
    assert result.returncode == 1
    assert "test_KIT_HASH_1: its docstring differs from the quote of KIT-HASH-1" in result.stdout


def test_one_protocol_skips_the_clauses_of_the_others() -> None:
    result = _pytest("conformance", "--impl", DIRECT, "--protocol", "kit", "-q", "-rs")
    assert result.returncode == 0, result.stdout[-2000:]
    assert "apx is not selected (--protocol kit)" in result.stdout
    assert "FAILED" not in result.stdout
