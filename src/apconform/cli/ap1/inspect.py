"""`apconform ap1 import inspect LOG --run-dir RUN`: an Inspect AI log into the run's transcript.

Thin and lazy: Inspect is imported only when the command runs, so the rest of
the CLI starts without it and a missing extra is a clear error, not a crash.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["register_inspect"]


def _cmd_import_inspect(args: argparse.Namespace) -> int:
    from apconform.ap1.inspect.log_import import import_inspect_log

    result = import_inspect_log(Path(args.log), Path(args.run_dir))
    counts = ", ".join(f"{k} {v}" for k, v in result.statuses.items()) or "none"
    print(
        f"imported {result.imported} of {result.planned} planned cells into {result.transcript} "
        f"({counts})"
    )
    print(f"  seal {result.seal_hash}; log sha256 {result.log_sha256}")
    if result.missing:
        print(
            f"  {len(result.missing)} cell(s) missing from the log (first: {result.missing[0]}); "
            "the transcript ends with run-stopped"
        )
    print(f"  score it: apconform ap1 score {result.run_dir}")
    return 0


def register_inspect(import_commands: Any) -> None:
    """Add `inspect` to the subcommands of `apconform ap1 import`."""
    command = import_commands.add_parser(
        "inspect",
        help="import an Inspect AI log of the apconform/ap1 task as the run's transcript",
    )
    command.add_argument("log", help="the Inspect log file (.eval or .json)")
    command.add_argument(
        "--run-dir", required=True, help="the sealed run directory the task was run with"
    )
    command.set_defaults(handler=_cmd_import_inspect)
