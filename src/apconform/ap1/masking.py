"""Credential masking: nothing credential-shaped is stored or printed.

Two layers. Known secrets (the API key actually in use) are replaced wherever
they occur, whatever they look like. Independently, anything shaped like a
common credential (OpenAI, Anthropic, GitHub, Google, Slack keys, bearer
tokens) is replaced too, so a key echoed back by an endpoint in some other
form, or pasted into a config by mistake, never reaches a file or a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MASK", "Masker", "looks_like_credential", "mask_text"]

MASK = "[REDACTED]"

_PATTERNS = re.compile(
    "|".join(
        (
            r"\bsk-[A-Za-z0-9_-]{10,}",  # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-)
            r"\bgh[pousr]_[A-Za-z0-9]{10,}",  # GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{10,}",
            r"\brpa_[A-Za-z0-9]{10,}",
            r"\bAIza[0-9A-Za-z_-]{20,}",  # Google API keys
            r"\bxox[abpers]-[A-Za-z0-9-]{10,}",  # Slack tokens
            r"(?i:bearer)\s+[A-Za-z0-9_.~+/=-]{10,}",
        )
    )
)


_GITHUB = re.compile(r"gh[pousr]_")


def _may_hold_credential(text: str) -> bool:
    """False only when no pattern above can match: cheaper than searching with them all.

    Every pattern starts with a literal (``sk-``, ``gh?_``, ``github_pat_``, ``rpa_``, ``AIza``,
    ``xox``, or ``bearer`` in any case); for ASCII text those are plain substring tests, and any
    other text is searched in full.
    """
    if not text.isascii():
        return True
    return (
        "sk-" in text
        or "github_pat_" in text
        or "rpa_" in text
        or "AIza" in text
        or "xox" in text
        or _GITHUB.search(text) is not None
        or "bearer" in text.lower()
    )


def looks_like_credential(text: str) -> bool:
    """Whether the text contains anything shaped like a credential."""
    return _PATTERNS.search(text) is not None


def mask_text(text: str, secrets: Iterable[str] = ()) -> str:
    """The text with known secrets and credential-shaped substrings replaced by [REDACTED]."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, MASK)

    return _mask_patterns(text) if _may_hold_credential(text) else text


def _mask_patterns(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        if found[:6].lower() == "bearer":
            return found[: len(found) - len(found.lstrip()[6:].lstrip())] + MASK
        return MASK

    return _PATTERNS.sub(replace, text)


class Masker:
    """Masks one run's secrets and every credential-shaped string; safe to share between threads."""

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = tuple(s for s in secrets if s)

    def __call__(self, text: str) -> str:
        return mask_text(text, self._secrets)

    def __repr__(self) -> str:
        return f"Masker({len(self._secrets)} secret(s))"
