"""Where benchmarks keep what they measured: one JSON file each in tests/benchmarks/results/.

A benchmark run with ``--save`` writes its figures, its side-by-side baseline and the load
average there, with a ``figures`` list (one row per headline figure: what was measured, the
figure, its baseline, the ratio and the goal, built by :func:`figure`);
``tests/benchmarks/performance_page.py`` writes docs/performance.md from those files, so the
page's numbers are the last saved run's, never typed in by hand.
Also the one way benchmarks load the code they compare against from an earlier commit.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
REPO = HERE.parents[1]
BEFORE = "d370f68"
"""The commit issue 33 measured: the default side-by-side baseline of its benchmarks."""


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded to two places."""
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, Any]:
    return {"cores": os.cpu_count(), "python": platform.python_version()}


def checkout_commit() -> str:
    """The checkout's commit (short), with ``+changes`` when its tracked files differ from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short=7", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "src")
    return f"{head}+changes" if dirty else head


def figure(
    measure: str,
    value: str,
    *,
    baseline: str | None = None,
    ratio: float | None = None,
    goal: str | None = None,
    met: bool | None = None,
) -> dict[str, Any]:
    """One headline row of a saved run: ``value`` and ``baseline`` are printed as given (the
    benchmark rounds them), ``ratio`` is ours over the baseline's, ``met`` says whether
    ``goal`` holds (None when the figure has no goal)."""
    return {
        "measure": measure,
        "value": value,
        "baseline": baseline,
        "ratio": None if ratio is None else round(ratio, 3),
        "goal": goal,
        "met": met,
    }


def save(
    name: str,
    document: dict[str, Any],
    figures: list[dict[str, Any]],
    commit: str | None = None,
) -> Path:
    """Write ``document`` and its headline ``figures`` as tests/benchmarks/results/NAME.json
    (sorted keys, two-space), with the machine, the commit measured (this checkout's unless
    given) and the UTC date."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    measured = time.strftime("%Y-%m-%d", time.gmtime())
    body = {
        "benchmark": name,
        "machine": machine(),
        "commit": commit or checkout_commit(),
        "measuredOn": measured,
        "figures": figures,
        **document,
    }
    path.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"saved {path.relative_to(REPO)}")
    return path


def module_at(revision: str, path: str, name: str) -> types.ModuleType:
    """The module at ``path`` (repository-relative) as it was at ``revision``, loaded under
    ``name`` (it may import only what the current environment has)."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{revision}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType(name)
    module.__file__ = f"{revision}:{path}"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module
