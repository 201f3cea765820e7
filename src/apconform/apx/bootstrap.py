"""The paired percentile bootstrap of APx 0.1, reproducible to the last bit from its seed.

The generator is the 32-bit linear congruential generator with the Numerical
Recipes constants: ``state = (1664525 * state + 1013904223) mod 2**32``; each
draw advances the state first and returns ``state / 2**32``. A resample draws
n pair indices ``floor(u * n)`` and applies the same indices to parents and
candidates (that is what makes it paired); its statistic is
``log2(c / p)`` where p and c are the resampled sums of W over sums of T,
each sum taken term by term in draw order from zero. A resample with p or c
equal to 0 discards every sample. The interval takes the floor-index
percentiles ``s[floor((N - 1) * 0.025)]`` and ``s[floor((N - 1) * 0.975)]``.

Speed. Drawing a million indices one Python statement at a time is slow, so
blocks of states are computed with one big-integer multiplication: with the
jump-ahead coefficients ``A_k = a**k`` and ``C_k`` (mod 2**32), the states
``s_{j+1} .. s_{j+B}`` are ``A_k * s_j + C_k``, and packing every ``A_k`` into
its own 64-bit lane of one integer makes a single multiplication compute the
whole block (no lane can carry into the next). The index ``floor(s * n / 2**32)``
is the high word of ``s * n``, so a second packed multiplication gives every
index of the block. The sums use complex numbers: adding ``W + Tj`` terms adds
W and T with two ordinary IEEE additions in one step, and the built-in
``sum`` does so in order (checked at import; a plain loop is used otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

__all__ = [
    "DEFAULT_ITERATIONS",
    "DEFAULT_SEED",
    "bootstrap_deltas",
    "draws",
    "indices",
    "percentile",
]

DEFAULT_ITERATIONS = 2000
DEFAULT_SEED = 20260907
_A = 1664525
_C = 1013904223
_MASK = 0xFFFFFFFF
_LANE = 64
_BLOCK = 4096


def draws(seed: int, count: int) -> list[float]:
    """The first ``count`` uniform draws of the generator (for inspection and tests)."""
    state = seed & _MASK
    out = []
    for _ in range(count):
        state = (_A * state + _C) & _MASK
        out.append(state / 4294967296)
    return out


@cache
def _jump_table(size: int) -> tuple[int, int, int]:
    """Packed A_k and C_k for k = 1..size (lane 0 holds k = 1), and the low-word lane mask."""
    packed_a = packed_c = mask = 0
    a_k, c_k = 1, 0
    for k in range(size):
        a_k = (a_k * _A) & _MASK
        c_k = (c_k * _A + _C) & _MASK
        packed_a |= a_k << (_LANE * k)
        packed_c |= c_k << (_LANE * k)
        mask |= _MASK << (_LANE * k)
    return packed_a, packed_c, mask


def indices(seed: int, count: int, n: int) -> bytes:
    """The first ``count`` pair indices ``floor(u * n)`` for 1 <= n <= 255, one byte each."""
    if not 1 <= n <= 255:
        raise ValueError("the packed generator serves 1 to 255 pairs")
    packed_a, packed_c, mask = _jump_table(_BLOCK)  # built on first use: evaluate never needs it
    width = _LANE // 8 * _BLOCK
    last = _LANE * (_BLOCK - 1)
    chunks: list[bytes] = []
    state = seed & _MASK
    for _ in range(-(-count // _BLOCK)):
        states = (packed_a * state + packed_c) & mask
        state = states >> last
        # Lane k of states * n is s_k * n < 2**40; its byte 4 is floor(s_k * n / 2**32).
        chunks.append((states * n).to_bytes(width, "little")[4::8])
    return b"".join(chunks)[:count]


def _sum_is_sequential() -> bool:
    probe = [complex(1.0, 1.0), complex(1e100, 1e100), complex(1.0, 1.0), complex(-1e100, -1e100)]
    return sum(probe, 0j) == 0j


_SEQUENTIAL_SUM = _sum_is_sequential()


def _ordered_sum(terms: Sequence[complex], picks: bytes) -> complex:
    if _SEQUENTIAL_SUM:
        return sum(map(terms.__getitem__, picks), 0j)
    total = 0j  # pragma: no cover - only on interpreters whose sum() compensates
    for pick in picks:  # pragma: no cover
        total += terms[pick]
    return total  # pragma: no cover


def bootstrap_deltas(
    parent: Sequence[tuple[float, float]],
    candidate: Sequence[tuple[float, float]],
    iterations: int,
    seed: int,
) -> list[float]:
    """The sorted resampled APx differences, or [] when a resample has zero power.

    ``parent`` and ``candidate`` hold (W, T) per pair, in pair order.
    """
    n = len(parent)
    parents = [complex(w, t) for w, t in parent]
    candidates = [complex(w, t) for w, t in candidate]
    picks = indices(seed, iterations * n, n)
    log2 = math.log2
    samples: list[float] = []
    for start in range(0, iterations * n, n):
        chosen = picks[start : start + n]
        p = _ordered_sum(parents, chosen)
        c = _ordered_sum(candidates, chosen)
        parent_power = p.real / p.imag
        candidate_power = c.real / c.imag
        if parent_power == 0 or candidate_power == 0:
            return []
        samples.append(log2(candidate_power / parent_power))
    samples.sort()
    return samples


def percentile(ordered: Sequence[float], q: float) -> float:
    """The floor-index percentile of the contract: no interpolation."""
    return ordered[math.floor((len(ordered) - 1) * q)]
