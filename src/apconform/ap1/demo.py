"""The AP-1 demo step: seal the worked example, run it against the built-in endpoint, verify."""

from __future__ import annotations

import io
from decimal import Decimal

from apconform.ap1.engine import RunOptions, run_sealed
from apconform.ap1.input_files import example_paths, load_inputs
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.seal_verify import verify_seal
from apconform.ap1.sealing import write_sealed_run
from apconform.ap1.transcript_verify import verify_transcript
from apconform.demo import DemoContext

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
    ok = not fatal and report.ok and report.finished and not result.interrupted
    return 0 if ok else 1
