"""Trust anchors: which public keys a verification accepts, and how the output says so.

A verification trusts exactly the keys the user names (``--trusted-key``,
repeatable, and the keys of a ``--trust-file``). Only when none is named does
it fall back to the kit's published TEST key, whose private half is public on
purpose: a signature by it shows that nothing changed since signing, never
who vouched for the content, and every output that relied on it says so in
words. A key that is named replaces the default; it is not added to it.

A trust file is UTF-8 text, one public key per line (64 lowercase hex
characters, optionally followed by a space and a label); blank lines and
lines starting with ``#`` are ignored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from apconform.core.errors import ApconformError, define_code
from apconform.core.files import read_text
from apconform.core.signing import SIG_UNTRUSTED, key_id, verify_document

__all__ = [
    "PUBLISHED_TEST_KEY",
    "TEST_KEY_STATEMENT",
    "TrustAnchors",
    "load_trust_file",
    "trust_anchors",
    "verify_trusted",
]

PUBLISHED_TEST_KEY = "bf5a2b8310cf77bfa31a77d46cf7070754307ece3d1bea496751fc3964cbc662"
"""The public half of the kit's published TEST key (its private half ships with the kit)."""

TEST_KEY_STATEMENT = (
    "verified against the kit's published TEST key (no trusted key was named; its private half "
    "is public, so this shows the data is unchanged, not who vouched for it)"
)

TRUST_FILE = define_code(
    "APC-TRUST-FILE",
    "The trust file is not a list of public keys",
    "Write one Ed25519 public key per line (64 lowercase hex characters, optionally followed by "
    "a space and a label); blank lines and lines starting with # are ignored.",
)

_KEY = re.compile(r"[0-9a-f]{64}")
_TRUST_FILE_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class TrustAnchors:
    """The public keys one verification accepts, and whether the user named them."""

    keys: tuple[str, ...]
    named: bool

    def statement(self, public_key: str) -> str:
        """In words, what a valid signature by ``public_key`` establishes under these anchors."""
        if not self.named:
            return TEST_KEY_STATEMENT
        return f"verified against the trusted key {key_id(public_key)} (named by you)"

    def to_dict(self, public_key: str) -> dict[str, str]:
        """What a report records about the key that verified something."""
        return {
            "keyId": key_id(public_key),
            "publicKey": public_key,
            "trust": "named-key" if self.named else "published-test-key",
        }


def load_trust_file(path: str | os.PathLike[str]) -> list[str]:
    """The public keys listed in a trust file (at least one)."""
    text = read_text(path, max_bytes=_TRUST_FILE_LIMIT, what="a trust file")
    keys = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        first = stripped.split(maxsplit=1)[0]
        if _KEY.fullmatch(first) is None:
            raise ApconformError(
                TRUST_FILE,
                f"{os.fspath(path)}, line {number}: {first[:20]!r} is not a public key "
                "(64 lowercase hex characters)",
            )
        keys.append(first)
    if not keys:
        raise ApconformError(TRUST_FILE, f"{os.fspath(path)} lists no public key")
    return keys


def trust_anchors(
    keys: Iterable[str] | None = None, trust_file: str | os.PathLike[str] | None = None
) -> TrustAnchors:
    """The anchors for the keys named (and those of ``trust_file``); the TEST key if none is."""
    named = [*(keys or []), *(load_trust_file(trust_file) if trust_file is not None else [])]
    if named:
        return TrustAnchors(tuple(dict.fromkeys(named)), named=True)
    return TrustAnchors((PUBLISHED_TEST_KEY,), named=False)


def verify_trusted(doc: Any, anchors: TrustAnchors, *, field: str = "signature") -> str:
    """Verify a signed document against ``anchors``; return the statement for the output.

    An intact signature by a key outside the anchors is refused
    (APC-SIG-UNTRUSTED) with advice that fits how the anchors were chosen.
    """
    try:
        verify_document(doc, field=field, trusted_public_keys=anchors.keys)
    except ApconformError as error:
        if error.error_code is SIG_UNTRUSTED and not anchors.named:
            raise ApconformError(
                SIG_UNTRUSTED,
                error.message + "; no trusted key was named, so only the kit's published TEST key "
                "is trusted",
                path=error.path,
                hint="If you trust the signer, name its public key with --trusted-key "
                "(or list it in a --trust-file); otherwise reject the document.",
            ) from None
        raise
    signature = doc[field] if isinstance(doc, Mapping) else {}
    return anchors.statement(str(signature["publicKey"]))
