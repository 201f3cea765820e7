"""Ed25519 signatures over RFC 8785 canonical bytes.

Signing the canonical form (not the file bytes) means a signed document can be
re-indented, re-ordered or re-serialised by any JSON library and still verify,
while any change to the data itself is detected. The secret seed is read from a
private file or the environment only, and never appears in a message or repr.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

from nacl.exceptions import CryptoError
from nacl.signing import SigningKey, VerifyKey

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import ApconformError, define_code
from apconform.core.files import FILE_NOT_FOUND, FILE_NOT_REGULAR, FILE_UNREADABLE
from apconform.core.jsonpath import format_path

__all__ = [
    "ALGORITHM",
    "DEFAULT_KEY_ENV",
    "Ed25519Key",
    "generate_key_file",
    "generate_signing_key",
    "key_id",
    "load_signing_key",
    "public_key_hex",
    "sign_document",
    "sign_value",
    "verify_document",
    "verify_value",
]

ALGORITHM = "ed25519"
DEFAULT_KEY_ENV = "APCONFORM_SIGNING_KEY"
_KEY_FILE_MAX = 4096

KEY_MISSING = define_code(
    "APC-KEY-MISSING",
    "No signing key was given",
    f"Pass a key file (create one with generate_key_file) or set {DEFAULT_KEY_ENV} "
    "to the key's 64 hexadecimal characters.",
)
KEY_MALFORMED = define_code(
    "APC-KEY-MALFORMED",
    "The signing key is not 64 lowercase hexadecimal characters",
    "A key is a 32-byte Ed25519 seed written as 64 lowercase hex characters; "
    "create a fresh one with generate_key_file.",
)
KEY_PERMISSIONS = define_code(
    "APC-KEY-PERMISSIONS",
    "The key file can be read or written by other users",
    "Restrict the file to its owner: chmod 600 FILE.",
)
KEY_EXISTS = define_code(
    "APC-KEY-EXISTS",
    "A file already exists where the new key file should go",
    "Choose another path, or delete the old key deliberately if it is no longer needed.",
)
KEY_WRITE = define_code(
    "APC-KEY-WRITE",
    "The key file could not be created",
    "Check that the directory exists and that you may write to it.",
)
KEY_PUBLIC = define_code(
    "APC-KEY-PUBLIC",
    "A public key is not 64 lowercase hexadecimal characters",
    "Give Ed25519 public keys as the 64 lowercase hex characters of their 32 bytes.",
)
SIG_MISSING = define_code(
    "APC-SIG-MISSING",
    "The document carries no signature",
    "Sign the document first (sign_document), or check the name of the signature field.",
)
SIG_MALFORMED = define_code(
    "APC-SIG-MALFORMED",
    "The signature object is malformed",
    'A signature object has exactly "algorithm": "ed25519", "keyId", "publicKey" '
    '(64 hex) and "signature" (128 hex); regenerate it with sign_value.',
)
SIG_KEY_ID = define_code(
    "APC-SIG-KEY-ID",
    "The signature's keyId does not belong to its public key",
    'keyId must be "ed25519:" plus the first 16 hex characters of the SHA-256 of the '
    "public key bytes; the signature object was altered or built by hand.",
)
SIG_UNTRUSTED = define_code(
    "APC-SIG-UNTRUSTED",
    "The document was signed by a key that is not trusted",
    "Obtain the signer's public key through a trusted channel and add it to the trusted "
    "keys, or reject the document.",
)
SIG_INVALID = define_code(
    "APC-SIG-INVALID",
    "The signature does not match the data",
    "The data changed after signing or was signed by another key: do not trust it; "
    "obtain a fresh, signed copy from its publisher.",
)

_HEX64 = re.compile(r"[0-9a-f]{64}")  # a seed or a public key: 32 bytes in lowercase hex
_SIGNATURE_HEX = re.compile(r"[0-9a-f]{128}")
_KEY_ID = re.compile(r"ed25519:[0-9a-f]{16}")
_FIELDS = ("algorithm", "keyId", "publicKey", "signature")
_FIELD_FORMS: dict[str, tuple[str, re.Pattern[str]]] = {
    "algorithm": ("the string 'ed25519'", re.compile(ALGORITHM)),
    "keyId": ("'ed25519:' and 16 lowercase hex characters", _KEY_ID),
    "publicKey": ("64 lowercase hex characters", _HEX64),
    "signature": ("128 lowercase hex characters", _SIGNATURE_HEX),
}


class Ed25519Key:
    """A private signing key. Its seed stays inside: repr, str and pickling never reveal it."""

    __slots__ = ("_signer", "key_id", "public_key_hex")

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise ApconformError(KEY_MALFORMED, "an Ed25519 seed must be exactly 32 bytes")
        self._signer = SigningKey(seed)
        self.public_key_hex: str = self._signer.verify_key.encode().hex()
        self.key_id: str = key_id(self.public_key_hex)

    def _sign(self, message: bytes) -> bytes:
        return self._signer.sign(message).signature

    def _seed_text(self) -> str:
        return self._signer.encode().hex()

    def __repr__(self) -> str:
        return f"Ed25519Key(key_id={self.key_id!r}, seed=<hidden>)"

    __str__ = __repr__

    def __reduce__(self) -> NoReturn:
        raise TypeError("signing keys cannot be pickled; load them from their key file instead")


def _parse_seed(text: str, origin: str) -> Ed25519Key:
    """Turn key text into a key; the message names where it came from, never what it holds."""
    candidate = text.strip()
    if _HEX64.fullmatch(candidate) is None:
        raise ApconformError(
            KEY_MALFORMED,
            f"{origin}: the signing key must be exactly 64 lowercase hexadecimal characters "
            f"(a 32-byte Ed25519 seed); found {len(candidate)} characters that do not match",
        )
    return Ed25519Key(bytes.fromhex(candidate))


def _read_key_file(path: Path) -> str:
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ApconformError(
            FILE_NOT_FOUND,
            f"key file {name} does not exist",
            hint="Check the path, or create a key with generate_key_file.",
        ) from None
    except OSError as exc:
        raise ApconformError(
            FILE_UNREADABLE, f"key file {name} cannot be opened ({exc.strerror})"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ApconformError(FILE_NOT_REGULAR, f"key file {name} is not a regular file")
        if os.name == "posix" and info.st_mode & 0o077:
            raise ApconformError(
                KEY_PERMISSIONS,
                f"key file {name} has mode {stat.S_IMODE(info.st_mode):04o}; other users "
                "could read or replace the key, so it is refused",
                hint=f"Restrict the file to its owner: chmod 600 {name}",
            )
        raw = os.read(fd, _KEY_FILE_MAX)
    finally:
        os.close(fd)
    return raw.decode("ascii", errors="replace")  # non-ASCII cannot be hex: refused later


def load_signing_key(
    path: str | Path | None = None, *, env_var: str = DEFAULT_KEY_ENV
) -> Ed25519Key:
    """Load the signing key from a private file, or else from the environment variable."""
    if path is not None:
        target = Path(path)
        return _parse_seed(_read_key_file(target), f"key file {target}")
    text = os.environ.get(env_var, "")
    if not text.strip():
        raise ApconformError(
            KEY_MISSING,
            f"no signing key: no key file was given and the environment variable {env_var} "
            "is not set",
            hint=f"Pass a key file (create one with generate_key_file) or set {env_var}.",
        )
    return _parse_seed(text, f"environment variable {env_var}")


def generate_signing_key() -> Ed25519Key:
    """A fresh key held in memory only, for throw-away signatures (demos, tests)."""
    return Ed25519Key(os.urandom(32))


def generate_key_file(path: str | Path) -> Ed25519Key:
    """Create a new key file readable by its owner only; an existing file is never replaced.

    The key is written to a private temporary file and hard-linked into place, so
    the target either does not exist or holds a complete key with mode 0600.
    """
    target = Path(path)
    if os.path.lexists(target):
        _exists(target)
    key = generate_signing_key()
    content = (key._seed_text() + "\n").encode("ascii")
    try:
        fd, temporary = tempfile.mkstemp(prefix=".apconform-key-", dir=target.parent)
    except OSError as exc:
        raise ApconformError(
            KEY_WRITE, f"cannot create a key file in {target.parent} ({exc.strerror})"
        ) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), 0o600)
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError:
            _exists(target)
        except OSError:
            _create_exclusive(target, content)  # file systems without hard links
    finally:
        os.unlink(temporary)
    return key


def _create_exclusive(target: Path, content: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(target, flags, 0o600)
    except FileExistsError:
        _exists(target)
    except OSError as exc:
        raise ApconformError(
            KEY_WRITE, f"cannot create key file {target} ({exc.strerror})"
        ) from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)


def _exists(target: Path) -> NoReturn:
    raise ApconformError(KEY_EXISTS, f"{target} already exists; a key file is never overwritten")


def public_key_hex(key: Ed25519Key) -> str:
    """The 64-hex public half of ``key``: safe to publish and to list as trusted."""
    return key.public_key_hex


def key_id(public_key_hex: str) -> str:
    """A short, stable name for a public key: ``ed25519:`` + 16 hex of the SHA-256 of its bytes."""
    if not isinstance(public_key_hex, str) or _HEX64.fullmatch(public_key_hex) is None:
        raise ApconformError(KEY_PUBLIC, f"public key {_describe(public_key_hex)} is not 64 hex")
    return f"{ALGORITHM}:{sha256_bytes(bytes.fromhex(public_key_hex))[:16]}"


def sign_value(value: Any, key: Ed25519Key) -> dict[str, str]:
    """Sign the canonical bytes of ``value``; returns the signature object to store beside it."""
    signature = key._sign(canonical_bytes(value))
    return {
        "algorithm": ALGORITHM,
        "keyId": key.key_id,
        "publicKey": key.public_key_hex,
        "signature": signature.hex(),
    }


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} characters)"
    return f"of type {type(value).__name__}"


def _malformed(where: list[str], field: str | None, message: str) -> NoReturn:
    segments = where + ([field] if field else [])
    raise ApconformError(SIG_MALFORMED, message, path=format_path(segments))


def _check_shape(signature: Any, where: list[str]) -> dict[str, str]:
    """Check the signature object field by field, naming the first field that is wrong."""
    if not isinstance(signature, Mapping):
        _malformed(where, None, f"the signature must be an object, not {_describe(signature)}")
    for field in _FIELDS:
        if field not in signature:
            _malformed(where, field, f"the signature object has no {field!r} field")
    for field in signature:
        if field not in _FIELDS:
            _malformed(where, str(field), f"unexpected field {field!r} in the signature object")
    for field, (wanted, pattern) in _FIELD_FORMS.items():
        actual = signature[field]
        if not isinstance(actual, str) or pattern.fullmatch(actual) is None:
            _malformed(where, field, f"{field} must be {wanted}; found {_describe(actual)}")
    return {field: signature[field] for field in _FIELDS}


def _trusted_set(keys: Iterable[str]) -> set[str]:
    if isinstance(keys, str):  # one key, not an iterable of its characters
        keys = [keys]
    trusted = set()
    for public in keys:
        if not isinstance(public, str) or _HEX64.fullmatch(public) is None:
            raise ApconformError(
                KEY_PUBLIC, f"trusted public key {_describe(public)} is not 64 lowercase hex"
            )
        trusted.add(public)
    return trusted


def _verify(value: Any, signature: Any, trusted: Iterable[str] | None, where: list[str]) -> None:
    fields = _check_shape(signature, where)
    expected_id = key_id(fields["publicKey"])
    if fields["keyId"] != expected_id:
        raise ApconformError(
            SIG_KEY_ID,
            f"keyId {fields['keyId']!r} does not match the public key, whose id is {expected_id!r}",
            path=format_path([*where, "keyId"]),
        )
    trusted_set = _trusted_set(trusted) if trusted is not None else None
    verifier = VerifyKey(bytes.fromhex(fields["publicKey"]))
    try:  # the data first: a changed document is reported as changed, whoever signed it
        verifier.verify(canonical_bytes(value), bytes.fromhex(fields["signature"]))
    except CryptoError:
        raise ApconformError(
            SIG_INVALID,
            f"the signature by {expected_id} does not match the canonical bytes of the data",
            path=format_path([*where, "signature"]),
        ) from None
    if trusted_set is not None and fields["publicKey"] not in trusted_set:
        raise ApconformError(
            SIG_UNTRUSTED,
            f"the signing key {expected_id} is not among the trusted public keys",
            path=format_path([*where, "publicKey"]),
        )


def verify_value(
    value: Any, signature: Any, *, trusted_public_keys: Iterable[str] | None = None
) -> None:
    """Check ``signature`` (from ``sign_value``) over ``value``; raise a typed error if not valid.

    With ``trusted_public_keys`` the signer must also be one of those keys; without it
    the check proves integrity only, not who signed. Paths are relative to the signature.
    """
    _verify(value, signature, trusted_public_keys, [])


def sign_document(
    doc: Mapping[str, Any], key: Ed25519Key, *, field: str = "signature"
) -> dict[str, Any]:
    """Return a shallow copy of ``doc`` carrying, under ``field``, a signature of the rest."""
    body = {name: item for name, item in doc.items() if name != field}
    signed = dict(body)
    signed[field] = sign_value(body, key)
    return signed


def verify_document(
    doc: Any, *, field: str = "signature", trusted_public_keys: Iterable[str] | None = None
) -> None:
    """Verify a document signed by ``sign_document``: the signature covers every other field."""
    if not isinstance(doc, Mapping) or field not in doc:
        what = "is not a JSON object" if not isinstance(doc, Mapping) else f"has no {field!r} field"
        raise ApconformError(
            SIG_MISSING,
            f"the document {what}, so it carries no signature to verify",
            path=format_path([field]) if isinstance(doc, Mapping) else "$",
        )
    body = {name: item for name, item in doc.items() if name != field}
    _verify(body, doc[field], trusted_public_keys, [field])
