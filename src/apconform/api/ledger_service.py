"""The API's optional ledger: where it is, and the operator's trust decision.

``apconform serve --ledger URL`` puts these in ``APCONFORM_API_LEDGER*``
variables, so every worker process opens the same ledger with the same
policy. Without them the API holds no state, as it always did.

A ledger is never served without a trust decision: either the keys whose
results it accepts (``trusted_keys``), or open submission, where any key may
sign and each subject is bound to the key that last signed it (a trusted key
may take a subject over). Unsigned results are accepted only under open
submission, and only when ``allow_unsigned`` says so.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from apconform.core.errors import ApconformError

__all__ = ["LedgerService"]

_URL = "APCONFORM_API_LEDGER"
_UNSIGNED = "APCONFORM_API_LEDGER_ALLOW_UNSIGNED"
_TRUSTED = "APCONFORM_API_LEDGER_TRUSTED_KEYS"
_OPEN = "APCONFORM_API_LEDGER_OPEN_SUBMISSION"


def _flag(env: Mapping[str, str], name: str) -> bool:
    value = env.get(name, "0")
    if value not in ("0", "1"):
        from apconform.ledger.errors import LEDGER_TRUST

        raise ApconformError(LEDGER_TRUST, f"{name} must be 0 or 1, not {value[:20]!r}")
    return value == "1"


@dataclass
class LedgerService:
    """A ledger the API serves; opened on first use, once per worker process."""

    location: str
    allow_unsigned: bool = False
    trusted_keys: tuple[str, ...] = ()
    open_submission: bool = False
    clock: Callable[[], datetime] | None = field(default=None, repr=False, compare=False)
    """The ledger's clock (None: the system's); the OpenAPI examples fix it."""
    _opened: Any = field(default=None, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        from apconform.core.signing import key_id
        from apconform.ledger.errors import LEDGER_TRUST

        for key in self.trusted_keys:
            key_id(key)  # a malformed key is refused now, not at the first submission
        if not self.trusted_keys and not self.open_submission:
            raise ApconformError(
                LEDGER_TRUST,
                "a ledger is served only with a trust decision: no trusted key was named and "
                "open submission was not chosen",
            )
        if self.allow_unsigned and not self.open_submission:
            raise ApconformError(
                LEDGER_TRUST,
                "unsigned results are accepted only under open submission: add "
                "--open-submission, or drop --allow-unsigned",
            )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LedgerService | None:
        env = os.environ if environ is None else environ
        location = env.get(_URL, "").strip()
        if not location:
            return None
        keys = tuple(k for k in env.get(_TRUSTED, "").split(",") if k)
        return cls(location, _flag(env, _UNSIGNED), keys, _flag(env, _OPEN))

    def to_env(self) -> dict[str, str]:
        return {
            _URL: self.location,
            _UNSIGNED: "1" if self.allow_unsigned else "0",
            _TRUSTED: ",".join(self.trusted_keys),
            _OPEN: "1" if self.open_submission else "0",
        }

    @staticmethod
    def variables() -> tuple[str, ...]:
        """The environment variables that carry a service to the workers."""
        return (_URL, _UNSIGNED, _TRUSTED, _OPEN)

    def policy(self) -> str:
        """The trust decision in words, for the API's description and the start-up log."""
        from apconform.core.signing import key_id

        named = ", ".join(key_id(k) for k in self.trusted_keys)
        if not self.open_submission:
            return (
                f"Trusted submission: this server's ledger accepts only results signed by "
                f"{named}. Each entry names its signer."
            )
        unsigned = (
            " Unsigned results are accepted too, for subjects no key has signed yet."
            if self.allow_unsigned
            else " Unsigned results are refused."
        )
        rebind = (
            f" The trusted keys {named} may take any subject over." if self.trusted_keys else ""
        )
        return (
            "OPEN SUBMISSION: this server's ledger accepts results signed by any key, so a "
            "signature here shows which key signed a result, not that anyone vouched for it. "
            "Each subject (an implementation's conformance reports, a model's AP-1 profile) "
            "is bound to the key that last signed one of its results; another key is "
            "refused (APC-LEDGER-BOUND)." + rebind + unsigned
        )

    def admission(self) -> Any:
        """The :class:`apconform.ledger.admission.Admission` the server appends with."""
        from apconform.ledger.admission import Admission

        return Admission(rebind_keys=frozenset(self.trusted_keys))

    def ledger(self) -> Any:
        """The open :class:`apconform.ledger.Ledger` (created on first use if it is new)."""
        with self._lock:
            if self._opened is None:
                from apconform.ledger import Ledger

                self._opened = Ledger.open(self.location, create=True, clock=self.clock)
            return self._opened
