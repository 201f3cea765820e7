"""Preregistrations: frozen by a hash over RFC 8785 bytes, signed like APx results, checked.

A preregistration's ``hash`` is the APx digest of the document without its
``hash`` and ``signature`` members: the same canonical digest APx freezes
manifest components with (``apconform.apx.hashing``). Freezing drops any old
signature, since it would cover another text. Checking validates the schema,
then the hash and the plan's rule, and reports every fault; a signature is
checked by :func:`apconform.apx.verify` as for results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apconform.apx.hashing import component_digest
from apconform.apx.population import errors
from apconform.core.errors import DocumentRefused, ErrorCode, Violation

__all__ = [
    "SCHEMA_VERSION",
    "check_preregistration",
    "freeze_preregistration",
    "preregistration_hash",
    "reference",
    "require_preregistration",
]

SCHEMA_VERSION = "apx-ext-preregistration/1"


def _body(document: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key not in ("hash", "signature")}


def preregistration_hash(document: Mapping[str, Any]) -> str:
    """The frozen hash: the digest of every member but ``hash`` and ``signature``."""
    return component_digest(_body(document))


def freeze_preregistration(draft: Any) -> dict[str, Any]:
    """The draft with its ``hash`` computed (and no signature); then checked in full."""
    if type(draft) is not dict:
        raise DocumentRefused(
            [Violation("APC-SCHEMA-VIOLATION", "$", "a preregistration must be a JSON object")],
            what="preregistration",
        )
    from apconform.apx.guard import guard

    guard(draft)
    frozen = _body(draft)
    frozen["hash"] = preregistration_hash(frozen)
    return check_preregistration(frozen)


def check_preregistration(document: Any) -> dict[str, Any]:
    """The preregistration if it meets its schema, its hash and its plan rule; else refused.

    Schema faults come first (APC-DOC-REFUSED, every violation); then the hash
    (APX-EXT-PRE-HASH) and the plan (APX-EXT-PRE-PLAN), both reported together.
    """
    from apconform.core.validation import validate_document
    from apconform.models.apx_population import ApxExtPreregistration

    validate_document(ApxExtPreregistration, document, what="preregistration")
    faults: list[tuple[ErrorCode, Violation]] = []
    expected = preregistration_hash(document)
    if document["hash"] != expected:
        faults.append(
            (
                errors.PREREG_HASH,
                Violation(
                    errors.PREREG_HASH.code,
                    "$.hash",
                    f"the preregistration's hash is {document['hash']}, but its content hashes "
                    f"to {expected}",
                ),
            )
        )
    plan = document["plan"]
    if plan["runsPerConfiguration"] != plan["pairs"]:
        faults.append(
            (
                errors.PREREG_PLAN,
                Violation(
                    errors.PREREG_PLAN.code,
                    "$.plan.runsPerConfiguration",
                    f"{plan['runsPerConfiguration']} runs per configuration planned for "
                    f"{plan['pairs']} pairs; APx 0.1 pairs every run, so they must be equal",
                ),
            )
        )
    if faults:
        raise DocumentRefused(
            [violation for _, violation in faults], what="preregistration", code=faults[0][0]
        )
    return dict(document)


def reference(document: Mapping[str, Any]) -> dict[str, str]:
    """How a result names the preregistration it follows."""
    return {"id": document["id"], "version": document["version"], "hash": document["hash"]}


def require_preregistration(document: Any) -> dict[str, Any]:
    """A checked preregistration, with refusal paths below ``$.preregistration``."""
    try:
        return check_preregistration(document)
    except DocumentRefused as refused:
        moved = [
            Violation(v.code, "$.preregistration" + v.path[1:], v.message, v.hint)
            for v in refused.violations
        ]
        raise DocumentRefused(moved, what="preregistration", code=refused.error_code) from None
