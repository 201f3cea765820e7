"""Where benchmarks keep what they measured: one JSON file each in tests/benchmarks/results/.

A benchmark run with ``--save`` writes its figures, its side-by-side baseline and the load
average there; ``tests/benchmarks/performance_page.py`` writes docs/performance.md from
those files, so the page's numbers are the last saved run's, never typed in by hand.
Also the one way benchmarks load the code they compare against from an earlier commit.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
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


def save(name: str, document: dict[str, Any]) -> Path:
    """Write ``document`` as tests/benchmarks/results/NAME.json (sorted keys, two-space)."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    body = {"benchmark": name, "machine": machine(), **document}
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
