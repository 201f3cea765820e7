"""`apconform demo`: the kit's main job on built-in inputs, with no network and no key.

The demo is a sequence of steps. Each protocol package that exists in this
build contributes a ``demo_step(ctx)`` (listed in :data:`_STEPS`); a step that
is not built yet is reported as such instead of being skipped silently.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

from apconform.demo_context import DemoContext

__all__ = ["default_output_dir", "run_demo"]

# (title, module providing demo_step) in the order the demo runs them.
_STEPS = (
    ("The kit: clauses, vectors, canonical JSON and signatures", "apconform.cli.kit_demo"),
    ("APx: score the demo campaign", "apconform.apx.demo"),
    ("AP-1: seal and run the worked example against the built-in endpoint", "apconform.ap1.demo"),
    ("Conformance: check the reference implementation", "apconform.conformance.demo"),
    ("Ledger: keep the results, signed and chained, and publish the site", "apconform.ledger.demo"),
)


def default_output_dir() -> Path:
    """A new folder, apconform-demo-XXXX under the system's temporary directory (see --help)."""
    return Path(tempfile.mkdtemp(prefix="apconform-demo-"))


def run_demo(output_dir: Path | None = None, *, out: TextIO | None = None) -> int:
    """Run every available step; return the exit status (0 when every built step succeeded)."""
    if output_dir is None:
        output_dir = default_output_dir()
    else:
        output_dir.mkdir(parents=True, exist_ok=True)
    ctx = DemoContext(output_dir, out or sys.stdout)
    ctx.say(f"apconform demo; files go to {output_dir}")
    status = 0
    missing = []
    for number, (title, module_name) in enumerate(_STEPS, start=1):
        ctx.say()
        ctx.say(f"[{number}/{len(_STEPS)}] {title}")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module_name.startswith(exc.name):
                ctx.say("  not built yet in this release; skipped")
                missing.append(title)
                continue
            raise
        started = time.perf_counter()
        step_status = int(module.demo_step(ctx))
        elapsed_ms = (time.perf_counter() - started) * 1000
        suffix = "" if step_status == 0 else f" (exit status {step_status})"
        ctx.say(f"  done in {elapsed_ms:.0f} ms{suffix}")
        status = status or step_status
    ctx.say()
    if ctx.reports:
        ctx.say("reports to open (offline):")
        width = max(len(label) for label, _ in ctx.reports)
        for label, path in ctx.reports:
            ctx.say(f"  {label:<{width}}  {path}")
    if missing:
        ctx.say(f"{len(missing)} of {len(_STEPS)} steps are not built yet: " + "; ".join(missing))
    ctx.say("demo finished" + (" with failures" if status else ""))
    return status
