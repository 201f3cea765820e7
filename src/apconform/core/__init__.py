"""Core services every other package builds on: errors, canonical JSON, bounded loading, signing.

Only the names below are public; everything else in ``apconform.core`` may change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.core.canonical import TEXT_HASH_METHOD as TEXT_HASH_METHOD
    from apconform.core.canonical import canonical_bytes as canonical_bytes
    from apconform.core.canonical import canonical_text as canonical_text
    from apconform.core.canonical import normalize_newlines as normalize_newlines
    from apconform.core.canonical import sha256_bytes as sha256_bytes
    from apconform.core.canonical import sha256_hex as sha256_hex
    from apconform.core.canonical import sha256_text as sha256_text
    from apconform.core.errors import ApconformError as ApconformError
    from apconform.core.errors import DocumentRefused as DocumentRefused
    from apconform.core.errors import ErrorCode as ErrorCode
    from apconform.core.errors import UsageError as UsageError
    from apconform.core.errors import Violation as Violation
    from apconform.core.errors import define_code as define_code
    from apconform.core.errors import registered_codes as registered_codes
    from apconform.core.files import load_path as load_path
    from apconform.core.files import load_stream as load_stream
    from apconform.core.jsonload import DEFAULT_LIMITS as DEFAULT_LIMITS
    from apconform.core.jsonload import Limits as Limits
    from apconform.core.jsonload import check_value as check_value
    from apconform.core.jsonload import loads as loads
    from apconform.core.jsonpath import format_path as format_path
    from apconform.core.signing import Ed25519Key as Ed25519Key
    from apconform.core.signing import generate_key_file as generate_key_file
    from apconform.core.signing import generate_signing_key as generate_signing_key
    from apconform.core.signing import key_id as key_id
    from apconform.core.signing import load_signing_key as load_signing_key
    from apconform.core.signing import public_key_hex as public_key_hex
    from apconform.core.signing import sign_document as sign_document
    from apconform.core.signing import sign_value as sign_value
    from apconform.core.signing import verify_document as verify_document
    from apconform.core.signing import verify_value as verify_value
    from apconform.core.validation import validate_document as validate_document

__getattr__ = lazy_exports(__name__)
