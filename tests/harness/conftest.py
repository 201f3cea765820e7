"""Helpers for the harness tests: the example adapters and fault plans keyed by vector."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from shipped_vectors import shipped_vectors

from apconform.conformance.vectors import LoadedVector

REPO = Path(__file__).resolve().parents[2]
ADAPTERS = REPO / "examples" / "adapters"
REFERENCE_EXEC = f"exec:{sys.executable} {ADAPTERS / 'reference_exec.py'}"
FAULTY_EXEC = f"exec:{sys.executable} {ADAPTERS / 'faulty_impl.py'}"
DIRECT = "direct:apconform.conformance.reference:adapter"

VECTORS = {v.id: v for v in shipped_vectors()}


def case_key(vector: LoadedVector) -> str:
    if str(ADAPTERS) not in sys.path:
        sys.path.insert(0, str(ADAPTERS))
    import faulty_impl

    return str(faulty_impl.case_key(vector.vector.operation, vector.vector.input))


def plan(faults: dict[str, str]) -> str:
    """A fault plan naming vectors by id (the faulty implementation sees only their inputs)."""
    return ",".join(f"{kind}={case_key(VECTORS[vid])}" for vid, kind in faults.items())


@pytest.fixture
def faulty_on_path() -> Iterator[None]:
    sys.path.insert(0, str(ADAPTERS))
    try:
        yield
    finally:
        sys.path.remove(str(ADAPTERS))
