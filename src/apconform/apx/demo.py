"""The APx step of `apconform demo`: score the tutorial campaign and show what the kernel refuses.

Everything runs offline on built-in inputs and prints the same lines every
time (only the throw-away signing key differs between runs, and it is never
written to disk).
"""

from __future__ import annotations

from apconform.apx import ApxRefused, compare_document, evaluate_document, sign, verify
from apconform.apx.presentation import json_numbers, json_text
from apconform.apx.tutorial import NOTICE, tutorial_campaign, tutorial_manifest, tutorial_pairs
from apconform.core.canonical import canonical_text
from apconform.core.signing import generate_signing_key
from apconform.demo_context import DemoContext

__all__ = ["demo_step"]


def _number(value: object) -> str:
    return "null" if value is None else canonical_text(json_numbers(value))


def demo_step(ctx: DemoContext) -> int:
    folder = ctx.output_dir / "apx"
    folder.mkdir(parents=True, exist_ok=True)
    manifest, run = tutorial_campaign()
    ctx.say(f"  {NOTICE}")
    ctx.say(f"  taskSetHash {manifest['suite']['taskSetHash']}")
    for part in ("suite", "baseline", "evaluator", "environment"):
        ctx.say(f"  {part} hash {manifest[part]['hash']}")
    result = evaluate_document(manifest, run)
    ctx.say(
        f"  result: AP {_number(result['AP'])}, APx {_number(result['APx'])}, "
        f"W {_number(result['creditedHumanHours'])} h over T {_number(result['wallHours'])} h, "
        f"{result['eligibility']}, {result['status']}, certified {str(result['certified']).lower()}"
    )
    unsafe = {**run, "outcomes": [dict(run["outcomes"][0], safety="fail"), *run["outcomes"][1:]]}
    flagged = evaluate_document(manifest, unsafe)
    ctx.say(
        f"  with a known safety failure on finance-1: {flagged['eligibility']}, official AP "
        f"{_number(flagged['AP'])} and APx {_number(flagged['APx'])}; diagnostic AP "
        f"{_number(flagged['diagnostic']['AP'])} kept ({flagged['policyViolations'][0]})"
    )
    broken = {**run, "costUSD": -1, "outcomes": [dict(run["outcomes"][0], quality=1.1)]}
    del broken["assistanceMode"]
    try:
        evaluate_document(manifest, broken)
    except ApxRefused as refused:
        ctx.say(
            f"  a run with several faults is refused with {len(refused.violations)} violations:"
        )
        for violation in refused.violations:
            ctx.say(f"    {violation.code} at {violation.path}: {violation.message}")
    base = tutorial_manifest()
    promotion = compare_document(base, {"pairs": tutorial_pairs(base, [0.5] * 5, [0.25] * 5)}, {})
    interval = promotion["interval"]
    ctx.say(
        f"  five paired campaigns (T 0.5 vs 0.25): {promotion['decision']}, deltaAPx "
        f"{_number(promotion['deltaAPx'])}, 95% interval [{_number(interval['lower'])}, "
        f"{_number(interval['upper'])}], deployAuthorized "
        f"{str(promotion['deployAuthorized']).lower()}"
    )
    key = generate_signing_key()
    signed = sign(result, key)
    verify(signed, trusted_public_keys=[key.public_key_hex])
    for name, document in (
        ("request", {"manifest": manifest, "run": run}),
        ("manifest", manifest),
        ("run", run),
        ("result", result),
        ("result.signed", signed),
        ("promotion", promotion),
    ):
        (folder / f"{name}.json").write_text(json_text(document), encoding="utf-8")
    ctx.say("  the result was signed with a throw-away Ed25519 key and verified")
    ctx.say(f"  documents written to {folder}")
    ctx.say(f"  try: apconform apx evaluate --format table {folder / 'request.json'}")
    return 0
