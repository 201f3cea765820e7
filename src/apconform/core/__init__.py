"""Core services every other package builds on: errors, canonical JSON, bounded loading, signing.

Only the names below are public; everything else in ``apconform.core`` may change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS = {
    "DEFAULT_LIMITS": "apconform.core.jsonload",
    "TEXT_HASH_METHOD": "apconform.core.canonical",
    "ApconformError": "apconform.core.errors",
    "DocumentRefused": "apconform.core.errors",
    "Ed25519Key": "apconform.core.signing",
    "ErrorCode": "apconform.core.errors",
    "Limits": "apconform.core.jsonload",
    "UsageError": "apconform.core.errors",
    "Violation": "apconform.core.errors",
    "canonical_bytes": "apconform.core.canonical",
    "canonical_text": "apconform.core.canonical",
    "check_value": "apconform.core.jsonload",
    "define_code": "apconform.core.errors",
    "format_path": "apconform.core.jsonpath",
    "generate_key_file": "apconform.core.signing",
    "generate_signing_key": "apconform.core.signing",
    "key_id": "apconform.core.signing",
    "load_path": "apconform.core.files",
    "load_signing_key": "apconform.core.signing",
    "load_stream": "apconform.core.files",
    "loads": "apconform.core.jsonload",
    "normalize_newlines": "apconform.core.canonical",
    "public_key_hex": "apconform.core.signing",
    "registered_codes": "apconform.core.errors",
    "sha256_bytes": "apconform.core.canonical",
    "sha256_hex": "apconform.core.canonical",
    "sha256_text": "apconform.core.canonical",
    "sign_document": "apconform.core.signing",
    "sign_value": "apconform.core.signing",
    "validate_document": "apconform.core.validation",
    "verify_document": "apconform.core.signing",
    "verify_value": "apconform.core.signing",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
