"""Core services every other package builds on: errors, canonical JSON, bounded loading, signing.

Only the names below are public; everything else in ``apconform.core`` may change.
"""

from apconform.core.canonical import (
    TEXT_HASH_METHOD,
    canonical_bytes,
    canonical_text,
    normalize_newlines,
    sha256_bytes,
    sha256_hex,
    sha256_text,
)
from apconform.core.errors import (
    ApconformError,
    DocumentRefused,
    ErrorCode,
    UsageError,
    Violation,
    define_code,
    registered_codes,
)
from apconform.core.files import load_path, load_stream
from apconform.core.jsonload import DEFAULT_LIMITS, Limits, check_value, loads
from apconform.core.jsonpath import format_path
from apconform.core.signing import (
    Ed25519Key,
    generate_key_file,
    generate_signing_key,
    key_id,
    load_signing_key,
    public_key_hex,
    sign_document,
    sign_value,
    verify_document,
    verify_value,
)
from apconform.core.validation import validate_document

__all__ = [
    "DEFAULT_LIMITS",
    "TEXT_HASH_METHOD",
    "ApconformError",
    "DocumentRefused",
    "Ed25519Key",
    "ErrorCode",
    "Limits",
    "UsageError",
    "Violation",
    "canonical_bytes",
    "canonical_text",
    "check_value",
    "define_code",
    "format_path",
    "generate_key_file",
    "generate_signing_key",
    "key_id",
    "load_path",
    "load_signing_key",
    "load_stream",
    "loads",
    "normalize_newlines",
    "public_key_hex",
    "registered_codes",
    "sha256_bytes",
    "sha256_hex",
    "sha256_text",
    "sign_document",
    "sign_value",
    "validate_document",
    "verify_document",
    "verify_value",
]
