"""The generated JSON-typing helpers agree with the JSON Schema format checker on timestamps."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from apconform.core.schemas import schema_validator
from apconform.models._jsontypes import _TIMESTAMP_PATTERN, JsonTimestamp
from apconform.models.common import Ed25519Signature

_ADAPTER: TypeAdapter[str] = TypeAdapter(JsonTimestamp)
_SCHEMA = schema_validator({"type": "string", "format": "date-time", "pattern": _TIMESTAMP_PATTERN})


@pytest.mark.parametrize(
    "text,valid",
    [
        ("2026-11-30T06:28:33Z", True),
        ("2026-11-30T07:28:33.5+01:00", True),
        ("2000-02-29T00:00:00Z", True),
        ("0000-02-29T00:00:00Z", False),
        ("0000-01-01T00:00:00Z", False),
        ("0001-01-01T00:00:00Z", True),
        ("2400-02-29T00:00:00Z", True),
        ("1900-02-29T00:00:00Z", False),
        ("2026-02-30T00:00:00Z", False),
        ("2026-04-31T00:00:00Z", False),
        ("2026-13-01T00:00:00Z", False),
        ("2026-11-30T24:00:00Z", False),
        ("2026-11-30T23:59:60Z", False),
        ("2026-11-30T06:28:33", False),
        ("2026-11-30t06:28:33z", False),
        ("2026-11-30T06:28:33Z\n", False),
        ("2026-11-30 06:28:33Z", False),
    ],
)
def test_timestamps(text: str, valid: bool) -> None:
    try:
        _ADAPTER.validate_python(text)
        accepted = True
    except ValidationError:
        accepted = False
    assert accepted is valid
    assert _SCHEMA.is_valid(text) is valid


@pytest.mark.parametrize("value", [True, 0, 1.5, None, ["2026-11-30T06:28:33Z"]])
def test_timestamps_take_only_strings(value: object) -> None:
    with pytest.raises(ValidationError):
        _ADAPTER.validate_python(value)


def test_signature_fields_refuse_other_json_types() -> None:
    good = {
        "algorithm": "ed25519",
        "keyId": "ed25519:0123456789abcdef",
        "publicKey": "a" * 64,
        "signature": "b" * 128,
    }
    assert Ed25519Signature.model_validate(good).keyId == "ed25519:0123456789abcdef"
    for key, bad in [
        ("publicKey", "A" * 64),
        ("signature", "b" * 127),
        ("algorithm", "rsa"),
        ("keyId", "ed25519:0123456789abcdef\n"),
        ("publicKey", None),
    ]:
        with pytest.raises(ValidationError):
            Ed25519Signature.model_validate({**good, key: bad})
