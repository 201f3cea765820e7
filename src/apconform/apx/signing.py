"""Signing APx results and promotions (and the extension's documents) with Ed25519, offline.

A signature covers the RFC 8785 bytes of the document without its
``signature`` member and carries the signer's public key. It shows who
published the document and that it has not changed since; it does not make
the evidence behind it true. Only documents that conform to their published
schema are signed, so a signed document is always a well-formed one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from apconform.core.errors import ApconformError, define_code
from apconform.core.signing import Ed25519Key, sign_document, verify_document
from apconform.core.validation import validate_document
from apconform.models.apx import Promotion, Result

__all__ = ["sign", "verify"]

NOT_SIGNABLE = define_code(
    "APX-SIGN-KIND",
    "Only APx results, promotions and the extension's documents are signed",
    "Sign the output of apconform apx evaluate, promote, preregister, power or population.",
    exit_status=1,
    http_status=422,
)


def _models() -> dict[str, type[BaseModel]]:
    from apconform.models.apx_population import ApxExtPopulation, ApxExtPower, ApxExtPreregistration

    return {
        "apx-result/0.1": Result,
        "apx-promotion/0.1": Promotion,
        "apx-ext-preregistration/1": ApxExtPreregistration,
        "apx-ext-power/1": ApxExtPower,
        "apx-ext-population/1": ApxExtPopulation,
    }


def _body(document: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    if isinstance(document, BaseModel):
        document = document.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if not isinstance(document, Mapping):
        raise ApconformError(NOT_SIGNABLE, "the document is not a JSON object", path="$")
    body = {key: value for key, value in document.items() if key != "signature"}
    models = _models()
    model = models.get(str(body.get("schemaVersion")))
    if model is None:
        raise ApconformError(
            NOT_SIGNABLE,
            f"schemaVersion {body.get('schemaVersion')!r} is not one of "
            f"{', '.join(sorted(models))}",
            path="$.schemaVersion",
        )
    validate_document(model, body, what=str(body["schemaVersion"]))
    return body


def sign(document: Mapping[str, Any] | BaseModel, key: Ed25519Key) -> dict[str, Any]:
    """The document with a ``signature`` member over everything else (an old one is replaced)."""
    return sign_document(_body(document), key)


def verify(
    document: Mapping[str, Any] | BaseModel,
    *,
    trusted_public_keys: Iterable[str] | None = None,
) -> None:
    """Check a signed result or promotion: its schema, then its signature (and signer, if given)."""
    _body(document)
    verify_document(
        document if isinstance(document, Mapping) else document.model_dump(mode="json"),
        trusted_public_keys=trusted_public_keys,
    )
