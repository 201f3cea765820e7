"""Reference operations for the kit's own clauses beyond canonical JSON and parsing.

They let vectors exercise text hashing (KIT-HASH-2), signatures and key ids
(KIT-SIG-1, KIT-SIG-2) and the vector format itself (KIT-VEC-1) through the
same harness every protocol uses.
"""

from __future__ import annotations

from typing import Any

from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.operations import field, operation
from apconform.conformance.vectors import check_vector_document
from apconform.core.canonical import TEXT_HASH_METHOD, sha256_text
from apconform.core.signing import key_id, verify_document
from apconform.core.trust import trust_anchors, verify_trusted

__all__ = ["kit_check_vector", "kit_hash_text", "kit_key_id", "kit_verify_signature"]


@operation("kit.hash_text")
def kit_hash_text(value: Any) -> dict[str, str]:
    """Input {"text": str}; answer the sha256-utf8-lf digest and the method's name."""
    return {"method": TEXT_HASH_METHOD, "sha256": sha256_text(field(value, "text", str))}


@operation("kit.key_id")
def kit_key_id(value: Any) -> dict[str, str]:
    """Input {"publicKey": 64 hex}; answer the key id of KIT-SIG-2."""
    return {"keyId": key_id(field(value, "publicKey", str))}


@operation("kit.verify_signature")
def kit_verify_signature(value: Any) -> dict[str, Any]:
    """Input {"document": object with a "signature" member, "trustedKeys"?: [hex]}; answer its
    key id when valid.

    Without ``trustedKeys`` the check is integrity only (the signer's key is taken from the
    signature), so vectors exercise the signature rules. With it the trust decision is made
    too: the keys named, or the published TEST key alone when the list is empty; the answer
    then says on which grounds the signer was trusted.
    """
    document = field(value, "document", dict)
    if not isinstance(value, dict) or "trustedKeys" not in value:
        verify_document(document)
        return {"valid": True, "keyId": document["signature"]["keyId"]}
    named = field(value, "trustedKeys", list)
    anchors = trust_anchors(named)
    verify_trusted(document, anchors)
    signer = anchors.to_dict(document["signature"]["publicKey"])
    return {"valid": True, "keyId": signer["keyId"], "trust": signer["trust"]}


@operation("kit.check_vector", inputs={"/vector": "vector"})
def kit_check_vector(value: Any) -> dict[str, Any]:
    """Input {"fileName": str, "vector": document}; check it as the vector loader does."""
    name = field(value, "fileName", str)
    vector = check_vector_document(
        field(value, "vector", object), name, load_clause_registry(), what=f"vector {name}"
    )
    negative = vector.expected.kind == "refusal" or "negative" in (vector.tags or [])
    return {"id": vector.id, "protocol": vector.protocol, "negative": negative}
