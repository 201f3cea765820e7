"""The demo's last step: keep the demo's three results in a ledger and publish the results site.

It reads what the earlier steps wrote (the conformance report, the AP-1 score
report, the APx result), appends each to ``ledger.db`` in the demo folder,
signed with a throw-away key, verifies the chain against that key, and
writes the offline site.
"""

from __future__ import annotations

from apconform.core.signing import generate_signing_key
from apconform.demo_context import DemoContext
from apconform.ledger.chain import verify_ledger
from apconform.ledger.claim import prepare
from apconform.ledger.store import Ledger
from apconform.results import read_result
from apconform.site import write_site

__all__ = ["demo_step"]

_RESULTS = (
    ("apx", "apx/result.json"),
    ("ap1", "ap1-run/report/score-report.json"),
    ("conformance", "conformance/report.jsonl"),
)


def demo_step(ctx: DemoContext) -> int:
    key = generate_signing_key()
    target = ctx.output_dir / "ledger.db"
    with Ledger.open(target, create=True) as ledger:
        for label, rel in _RESULTS:
            path = ctx.output_dir / rel
            if not path.is_file():
                ctx.say(f"  {label}: {rel} was not written by its step; nothing to record")
                continue
            kind, document = read_result(path)
            stored = ledger.append(prepare(kind, document, key=key))
            ctx.say(f"  recorded the {kind.value} as entry {stored.seq} ({stored.digest[:16]}...)")
        report = verify_ledger(ledger, trusted_keys=[key.public_key_hex])
        head = ledger.head()
        ctx.say(
            f"  verified: {report.entries} entries, {report.signed} signed by the demo key, "
            f"chain {'intact' if report.intact else 'BROKEN'}; head {str(head.digest)[:16]}..."
        )
        site = write_site(
            ledger, ctx.output_dir / "results-site", trusted_keys=[key.public_key_hex]
        )
    ctx.say(f"  ledger: {target} (try: apconform ledger list --ledger {target})")
    ctx.say(f"  results site: {site.pages} pages in {site.folder}")
    ctx.offer("results site (HTML)", site.index)
    return 0 if report.intact else 1
