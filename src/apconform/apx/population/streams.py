"""The keyed random streams of the population model: portable, order-free, reproducible.

Every random quantity of a simulated campaign is read from a stream named by a
key, a JSON array such as ``["apx-ext-model/1", seed, simulation, "acceptance",
r, "candidate", f]``. The stream's bytes are SHAKE-256 of the key's RFC 8785
canonical text; each uniform takes the next 8 bytes as a big-endian unsigned
integer and keeps its top 53 bits, times 2^-53, so it lies in [0, 1). Because a
stream depends only on its key, a quantity is the same whatever else is drawn
and in whatever order: two plans that differ in one dimension share every
other draw (common random numbers), and any language with SHAKE-256 and
RFC 8785 reproduces the uniforms bit for bit.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from collections.abc import Sequence

from apconform.core.canonical import canonical_bytes

__all__ = ["MODEL_TAG", "key_bytes", "lomax", "normals", "uniforms"]

MODEL_TAG = "apx-ext-model/1"
"""The first member of every stream key: a new model version never reuses a stream."""

_SCALE = 2.0**-53
_TWO_PI = 2.0 * math.pi

Key = Sequence[int | str] | bytes
"""A key as its items, or already as its canonical text."""


_WORD = re.compile(r"[A-Za-z0-9/_.-]+")


def _item(item: int | str) -> str:
    if type(item) is int and -(2**53) < item < 2**53:
        return str(item)
    if type(item) is str and _WORD.fullmatch(item):
        return f'"{item}"'
    raise _Irregular


class _Irregular(Exception):
    pass


def key_bytes(key: Key) -> bytes:
    """The RFC 8785 text of a key. Keys hold integers and plain ASCII words, whose canonical
    text is their decimal digits and the word in quotes; anything else takes the exact encoder."""
    if isinstance(key, bytes):
        return key
    try:
        return ("[" + ",".join(map(_item, key)) + "]").encode("ascii")
    except _Irregular:
        return canonical_bytes(list(key))


def uniforms(key: Key, count: int) -> list[float]:
    """The first ``count`` uniforms of the stream named by ``key``."""
    if count <= 0:
        return []
    data = hashlib.shake_256(key_bytes(key)).digest(8 * count)
    return [(word >> 11) * _SCALE for word in struct.unpack(f">{count}Q", data)]


def normals(key: Key, count: int) -> list[float]:
    """``count`` standard normals, the i-th from uniforms 2i and 2i + 1 (Box-Muller, cosine).

    z = sqrt(-2 ln(1 - u0)) * cos(2 pi u1); 1 - u0 lies in (0, 1], so the
    logarithm is always defined.
    """
    drawn = uniforms(key, 2 * count)
    log, sqrt, cos = math.log, math.sqrt, math.cos
    return [
        sqrt(-2.0 * log(1.0 - drawn[2 * i])) * cos(_TWO_PI * drawn[2 * i + 1]) for i in range(count)
    ]


def lomax(key: Key, count: int, tail_index: float) -> list[float]:
    """``count`` Pareto (Lomax) multipliers with tail index ``tail_index`` > 1 and mean 1.

    m = ((1 - u) ** (-1 / alpha) - 1) * (alpha - 1): heavy-tailed, with a
    finite variance only when alpha > 2.
    """
    power = -1.0 / tail_index
    scale = tail_index - 1.0
    return [((1.0 - u) ** power - 1.0) * scale for u in uniforms(key, count)]
