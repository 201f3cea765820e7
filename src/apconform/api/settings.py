"""The API's limits, in one value, read from the environment so every worker process agrees.

``apconform serve --workers N`` starts N processes that each build the app
from scratch; they learn the limits from ``APCONFORM_API_*`` variables the
command sets, never from shared state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from apconform.core.errors import UsageError
from apconform.core.jsonload import DEFAULT_LIMITS

__all__ = ["ApiSettings"]

_PREFIX = "APCONFORM_API_"


@dataclass(frozen=True)
class ApiSettings:
    """Per-worker limits. Bodies above ``max_body_bytes`` are refused before they are read."""

    max_body_bytes: int = DEFAULT_LIMITS.max_bytes
    """Largest request body accepted (the loader's document limit, 1 MiB)."""
    request_timeout: float = 10.0
    """Seconds from the end of the body to the start of the response."""
    body_timeout: float = 5.0
    """Seconds a client may take to send the whole body (then 408)."""
    max_in_flight: int = 64
    """Requests one worker works on at once (their bodies have arrived); more are answered
    503 at once."""
    max_uploading: int = 512
    """Requests one worker receives bodies for at once; they do not take places of
    ``max_in_flight``, so slow uploads cannot crowd out requests. More are answered 503."""
    threads: int = 1
    """Threads per worker process that run operations. The work is CPU-bound Python, so
    more threads only contend for the interpreter lock; add worker processes instead.
    0 runs operations on the event loop itself: faster, but the worker answers nothing
    else meanwhile and the time limit is only noticed once the operation returns."""

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            low = 0 if item.name == "threads" else 1e-9
            if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
                raise UsageError(
                    f"API setting {item.name} must be a positive number, not {value!r}"
                )
        if self.max_body_bytes > DEFAULT_LIMITS.max_bytes:
            raise UsageError(
                f"API setting max_body_bytes may be at most {DEFAULT_LIMITS.max_bytes:,} "
                "(the loader's document limit)"
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """Settings from ``APCONFORM_API_<NAME>`` variables; unset ones keep their default."""
        env = os.environ if environ is None else environ
        values: dict[str, int | float] = {}
        for item in fields(cls):
            raw = env.get(_PREFIX + item.name.upper())
            if raw is None:
                continue
            kind = int if item.type in ("int", int) else float
            try:
                values[item.name] = kind(raw)
            except ValueError:
                raise UsageError(
                    f"{_PREFIX}{item.name.upper()}={raw!r} is not a {kind.__name__}"
                ) from None
        return cls(**values)  # type: ignore[arg-type]

    def to_env(self) -> dict[str, str]:
        """The variables that make :meth:`from_env` return these settings in another process."""
        return {_PREFIX + item.name.upper(): str(getattr(self, item.name)) for item in fields(self)}
