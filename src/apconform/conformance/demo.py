"""The demo's last step: check the reference implementation against the full vector suite."""

from __future__ import annotations

from apconform.conformance.reports.formats import render, write_badges
from apconform.conformance.runner import CheckOptions, run_check
from apconform.conformance.summary import must_clauses_text
from apconform.demo_context import DemoContext

__all__ = ["demo_step"]

REFERENCE = "direct:apconform.conformance.reference:adapter"


def demo_step(ctx: DemoContext) -> int:
    folder = ctx.output_dir / "conformance"
    folder.mkdir(parents=True, exist_ok=True)
    run = run_check(CheckOptions(impl=REFERENCE, validate_protocol=True))
    header, footer = run.header, run.footer
    ctx.say(
        f"  vector manifest verified (SHA-256 {header['vectorManifestSha256'][:16]}...); "
        f"clause registry {header['clauseRegistrySha256'][:16]}..."
    )
    ctx.say(f"  checked {REFERENCE} on {len(run.cases)} vectors, every message schema-validated")
    for summary in footer["protocols"]:
        counts = summary["counts"]
        shown = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        ctx.say(
            f"  {summary['protocol']}: {shown}; {must_clauses_text(summary)}; "
            f"{summary['verdict'].upper()}"
        )
    for problem in footer["problems"]:
        ctx.say(f"  problem: {problem}")
    paths = {}
    for fmt, name in (
        ("json", "report.jsonl"),
        ("html", "report.html"),
        ("junit", "junit.xml"),
        ("markdown", "summary.md"),
    ):
        paths[fmt] = folder / name
        paths[fmt].write_text(render(run.records, fmt), encoding="utf-8")
    write_badges(run.records, folder / "badges")
    ctx.say(f"  verdict {footer['verdict'].upper()}; report: {paths['json']}")
    ctx.say(f"  open offline: {paths['html']} (JUnit {paths['junit'].name}, badges in badges/)")
    ctx.offer("conformance report (HTML)", paths["html"])
    ctx.results["conformance"] = footer["verdict"]
    return run.exit_status
