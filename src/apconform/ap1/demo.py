"""The AP-1 demo step: seal the worked example, run it against the built-in endpoint, verify, score.

It ends with the profile report (HTML and Markdown), where each built-in
persona's signature shows up, and a byte-for-byte re-score from the transcript.
"""

from __future__ import annotations

import io
from collections import Counter
from decimal import Decimal
from pathlib import Path

from apconform.ap1.inputs.files import example_paths, load_inputs
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.mock.signatures import signatures
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.scoring import compare_reports, score_run
from apconform.ap1.seal.build import write_sealed_run
from apconform.ap1.seal.verify import verify_seal
from apconform.ap1.transcript.verify import verify_transcript
from apconform.demo_context import DemoContext

__all__ = ["demo_step"]


def demo_step(ctx: DemoContext) -> int:
    paths = example_paths()
    base = load_inputs(paths)
    run_dir = ctx.output_dir / "ap1-run"
    with MockEndpoint(base, seed=7, stall_seconds=Decimal("1.5")) as mock:
        inputs = load_inputs(paths, endpoint=mock.url, model="mock-mixed")
        record = write_sealed_run(run_dir, inputs)
        ctx.say(
            f"  sealed the worked example: seal {record['sealHash'][:16]}..., plan "
            f"{record['plan']['cells']} cells ({record['plan']['derivableItems']} items x 2 "
            f"conditions x {record['plan']['repeats']} repeats + VOID)"
        )
        ctx.say(f"  built-in endpoint {mock.url}, model mock-mixed (seeded personas, no API key)")
        result = run_sealed(run_dir, RunOptions(concurrency=8, progress=io.StringIO(), tty=False))
        served = dict(sorted(mock.served.items()))
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.statuses.items()))
    ctx.say(f"  ran {result.executed_now} cells: {counts}")
    ctx.say("  responses by persona: " + ", ".join(f"{k} {v}" for k, v in served.items()))
    findings, _ = verify_seal(run_dir)
    report = verify_transcript(run_dir / "transcript.jsonl", seal_hash=record["sealHash"])
    fatal = [f for f in findings if f.fatal]
    ctx.say(
        f"  seal verifies: {not fatal}; transcript: {len(report.records)} records, chain "
        f"{'verifies' if report.ok else 'BROKEN'}, finished: {report.finished}"
    )
    ctx.say(f"  run directory: {run_dir}")
    ctx.say(f"  check it yourself: apconform ap1 verify-seal {run_dir}")
    ctx.say(f"                     apconform ap1 verify-transcript {run_dir}")
    scored = score_run(run_dir)
    document = scored.report.document
    ctx.say("  scored the transcript: a profile, not a grade (no pass mark)")
    for cell in document["dimensions"]:
        ctx.say(
            f"    {cell['dimension']:<14} {cell['status']:<11} {cell['summary'] or cell['reason']}"
        )
    _say_signatures(ctx, run_dir)
    again = score_run(run_dir, run_dir / "rescore")
    differ = compare_reports(scored.output_dir, again.output_dir)
    ctx.say(
        "  re-scored from the transcript alone: "
        + ("identical, byte for byte" if not differ else f"DIFFERS in {', '.join(differ)}")
        + f" (apconform ap1 rescore {run_dir})"
    )
    ctx.say(f"  adjudication sheets for two scorers: {scored.output_dir / 'adjudication'}")
    ctx.say(f"  report (Markdown): {scored.output_dir / 'report.md'}")
    ctx.say(f"  report (HTML, one offline file): {scored.output_dir / 'report.html'}")
    ctx.offer("AP-1 profile report (HTML)", scored.output_dir / "report.html")
    ctx.offer("AP-1 profile report (Markdown)", scored.output_dir / "report.md")
    ok = not fatal and report.ok and report.finished and not result.interrupted and not differ
    return 0 if ok else 1


def _say_signatures(ctx: DemoContext, run_dir: Path) -> None:
    found = signatures(run_dir)
    invent = found.get("invent", Counter())
    sign = found.get("sign-invert", Counter())
    decline = found.get("decline", Counter())
    foreign = found.get("foreign-shape", Counter())
    ctx.say("  where each persona's signature shows up:")
    ctx.say(
        f"    inventing persona: {invent['operand UNTRACEABLE']} operand(s) ORIGINATED "
        f"(untraceable), {invent['operand in audit']} listed in the originated-operand audit"
    )
    ctx.say(
        f"    sign-inverting persona: {sign['operand SIGN-INVERSION']} operand(s) reported as "
        "SIGN-INVERSION (step v, not folded into grounded or untraceable)"
    )
    ctx.say(
        f"    decliner: {decline['figure ADJUDICATE-DECLINE']} answer(s) ADJUDICATE-DECLINE, "
        f"{decline['routed to adjudication']} routed to two human scorers"
    )
    ctx.say(
        f"    foreign response shape: {foreign['evidence EV-0']} execution(s) UNOBSERVABLE (EV-0), "
        "kept out of the invocation denominators"
    )
