"""The API's optional ledger: where it is, whether unsigned results are accepted, whom to trust.

``apconform serve --ledger URL`` puts these in ``APCONFORM_API_LEDGER*``
variables, so every worker process opens the same ledger with the same
policy. Without them the API holds no state, as it always did.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from apconform.core.errors import UsageError

__all__ = ["LedgerService"]

_URL = "APCONFORM_API_LEDGER"
_UNSIGNED = "APCONFORM_API_LEDGER_ALLOW_UNSIGNED"
_TRUSTED = "APCONFORM_API_LEDGER_TRUSTED_KEYS"


@dataclass
class LedgerService:
    """A ledger the API serves; opened on first use, once per worker process."""

    location: str
    allow_unsigned: bool = False
    trusted_keys: tuple[str, ...] = ()
    clock: Callable[[], datetime] | None = field(default=None, repr=False, compare=False)
    """The ledger's clock (None: the system's); the OpenAPI examples fix it."""
    _opened: Any = field(default=None, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LedgerService | None:
        env = os.environ if environ is None else environ
        location = env.get(_URL, "").strip()
        if not location:
            return None
        unsigned = env.get(_UNSIGNED, "0")
        if unsigned not in ("0", "1"):
            raise UsageError(f"{_UNSIGNED} must be 0 or 1, not {unsigned!r}")
        keys = tuple(k for k in env.get(_TRUSTED, "").split(",") if k)
        return cls(location, unsigned == "1", keys)

    def to_env(self) -> dict[str, str]:
        return {
            _URL: self.location,
            _UNSIGNED: "1" if self.allow_unsigned else "0",
            _TRUSTED: ",".join(self.trusted_keys),
        }

    def ledger(self) -> Any:
        """The open :class:`apconform.ledger.Ledger` (created on first use if it is new)."""
        with self._lock:
            if self._opened is None:
                from apconform.ledger import Ledger

                self._opened = Ledger.open(self.location, create=True, clock=self.clock)
            return self._opened
