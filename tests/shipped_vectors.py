"""The kit's vectors, loaded once per test process (half a CPU-second each time).

Several modules parametrize over every vector, so each loaded them while pytest
collected it; they share this load. The vectors are read, never changed.
"""

from __future__ import annotations

from functools import cache

from apconform.conformance.vectors import LoadedVector, load_vectors

__all__ = ["shipped_vectors"]


@cache
def shipped_vectors() -> tuple[LoadedVector, ...]:
    return tuple(load_vectors())
