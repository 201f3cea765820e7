"""Credential masking: nothing credential-shaped is stored or printed, in any encoding.

Two layers. Known secrets (the API key actually in use) are replaced wherever
they occur, whatever they look like, and in every form an endpoint echoing
them back could produce: the literal text; JSON text in which any of its
characters is written as a ``\\uXXXX`` escape (or ``\\/``); percent-encoding of
any of its characters (also twice encoded, ``%252D``); HTML character
references; the hexadecimal of its bytes; and base64 (standard and URL-safe)
of any text that contains it, such as ``Bearer <key>`` or ``user:<key>``,
whatever its position inside the encoded text. Independently, anything shaped
like a common credential (OpenAI, Anthropic, GitHub, Google, Slack keys,
bearer tokens) is replaced too, so a key pasted into a config by mistake never
reaches a file or a terminal.

:meth:`Masker.mask_value` applies the known secrets to every string (member
names included) of a JSON value, which is how a transcript record is cleaned
before it is hashed and written.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable

__all__ = ["MASK", "Masker", "looks_like_credential", "mask_text", "secret_pattern"]

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
_ENCODED_MIN = 8
"""Secrets shorter than this many bytes are masked literally and as escapes only: the
base64 and hexadecimal forms of a very short string would match ordinary text."""


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


def _hex(value: int, width: int) -> str:
    """``value`` as ``width`` hex digits, each digit matching either case."""
    digits = f"{value:0{width}x}"
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits)


def _character(char: str) -> str:
    """Every form one character of a secret may take in an echo."""
    code = ord(char)
    forms = [re.escape(char)]
    if code < 0x10000:
        forms.append(r"\\+u" + _hex(code, 4))  # JSON escape, also escaped again (\\u002d)
    else:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(r"\\+u" + _hex(high, 4) + r"\\+u" + _hex(low, 4))
    if char in '/"\\':
        forms.append(r"\\+" + re.escape(char))  # the JSON short escapes \/ \" \\
    forms.append("".join("%(?:25)*" + _hex(byte, 2) for byte in char.encode("utf-8")))
    forms.append(f"&#(?:[xX]0*{_hex(code, 1)}|0*{code});")
    return "(?:" + "|".join(forms) + ")"


def _base64_cores(data: bytes) -> set[str]:
    """The base64 text that ``data`` produces wherever it starts inside an encoded string.

    For each of the three alignments, the characters that depend only on
    ``data`` (not on the bytes before or after it), in both alphabets.
    """
    cores = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        start = (0, 2, 3)[offset]
        end = (offset + len(data)) // 3 * 4 + (0, 1, 2)[(offset + len(data)) % 3]
        core = encoded[start:end]
        cores.add(core)
        cores.add(core.translate(str.maketrans("+/", "-_")))
    return cores


def secret_pattern(secret: str) -> str:
    """A regular expression matching ``secret`` in every form an echo may give it."""
    forms = ["".join(_character(char) for char in secret)]
    raw = secret.encode("utf-8")
    if len(raw) >= _ENCODED_MIN:
        forms.extend(re.escape(core) for core in sorted(_base64_cores(raw), key=len, reverse=True))
        forms.append(_hex(int.from_bytes(raw, "big"), 2 * len(raw)))
    return "|".join(f"(?:{form})" for form in forms)


def _compile(secrets: Iterable[str]) -> re.Pattern[str] | None:
    unique = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not unique:
        return None
    return re.compile("|".join(f"(?:{secret_pattern(s)})" for s in unique))


def _mask_credentials(text: str) -> str:
    return _mask_patterns(text) if _may_hold_credential(text) else text


def _mask_patterns(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        if found[:6].lower() == "bearer":
            return found[: len(found) - len(found.lstrip()[6:].lstrip())] + MASK
        return MASK

    return _PATTERNS.sub(replace, text)


def mask_text(text: str, secrets: Iterable[str] = ()) -> str:
    """The text with known secrets (in every encoding) and credential-shaped substrings
    replaced by [REDACTED]."""
    pattern = _compile(secrets)
    if pattern is not None:
        text = pattern.sub(MASK, text)
    return _mask_credentials(text)


class Masker:
    """Masks one run's secrets and every credential-shaped string; safe to share between threads."""

    __slots__ = ("_pattern", "_secrets")

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = tuple(s for s in secrets if s)
        self._pattern = _compile(self._secrets)

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(MASK, text)
        return _mask_credentials(text)

    @property
    def has_secrets(self) -> bool:
        return self._pattern is not None

    def mask_secrets(self, text: str) -> str:
        """The text with the known secrets (in every encoding) replaced, nothing else."""
        return text if self._pattern is None else self._pattern.sub(MASK, text)

    def mask_object(self, value: dict[str, object]) -> dict[str, object]:
        """:meth:`mask_value` of a JSON object (the object itself when no secret is known)."""
        if self._pattern is None:
            return value
        return {self.mask_secrets(k): self.mask_value(v) for k, v in value.items()}

    def mask_value(self, value: object) -> object:
        """A copy of a JSON value with the known secrets masked in every string and member name."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self._pattern.sub(MASK, value)
        if isinstance(value, dict):
            return {self.mask_value(k): self.mask_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.mask_value(item) for item in value]
        return value

    def __repr__(self) -> str:
        return f"Masker({len(self._secrets)} secret(s))"
