"""The kit's own demo step: what the foundation can already do, shown on real data."""

from __future__ import annotations

from collections import Counter

from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.vectors import load_vectors
from apconform.core.canonical import canonical_text, sha256_hex
from apconform.core.signing import generate_signing_key, sign_document, verify_document
from apconform.demo_context import DemoContext

__all__ = ["demo_step"]

_SAMPLE = {"b": [1.0, 1e21, 1e-7, -0.0], "a": "\u20ac text", "c": None}


def demo_step(ctx: DemoContext) -> int:
    clauses = load_clause_registry()
    per_protocol = Counter(c.protocol for c in clauses.registry.clauses)
    ctx.say(
        f"  clause registry: {len(clauses.registry.clauses)} clauses "
        f"({', '.join(f'{k} {v}' for k, v in sorted(per_protocol.items()))}); "
        f"digest {clauses.digest[:16]}..."
    )
    vectors = load_vectors(clauses=clauses)
    per_vector = Counter(v.vector.protocol for v in vectors)
    ctx.say(
        f"  vectors: {len(vectors)} loaded and checked "
        f"({', '.join(f'{k} {v}' for k, v in sorted(per_vector.items()))})"
    )
    ctx.say(f"  canonical JSON (RFC 8785) of a sample: {canonical_text(_SAMPLE)}")
    ctx.say(f"  its SHA-256: {sha256_hex(_SAMPLE)}")
    key = generate_signing_key()  # in memory only: the demo never writes a private key
    signed = sign_document({"sample": _SAMPLE}, key)
    verify_document(signed, trusted_public_keys=[signed["signature"]["publicKey"]])
    path = ctx.output_dir / "signed-sample.json"
    path.write_text(canonical_text(signed) + "\n", encoding="utf-8")
    ctx.say(
        f"  signed with a throw-away key {signed['signature']['keyId']} and verified; "
        f"written to {path}"
    )
    public = signed["signature"]["publicKey"]
    ctx.say(f"  check it yourself: apconform verify {path} --trusted-key {public}")
    ctx.say("    (a verification trusts exactly the keys you name)")
    return 0
