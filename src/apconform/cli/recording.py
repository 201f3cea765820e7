"""What the recording commands share: the --ledger options and one call that appends a result.

``apconform check``, ``apconform ap1 score`` and ``apconform apx evaluate``
each add the options and, after writing their own output, call
:func:`record_result`; the ledger is used only when --ledger or
``APCONFORM_LEDGER`` names one.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ENV_VAR = "APCONFORM_LEDGER"  # the same name as apconform.ledger.location.ENV_VAR

__all__ = ["add_ledger_options", "ledger_requested", "record_result"]


def add_ledger_options(parser: argparse.ArgumentParser) -> None:
    """Add --ledger and --ledger-key to a command that produces a result."""
    group = parser.add_argument_group("results ledger")
    group.add_argument(
        "--ledger",
        metavar="PATH-OR-URL",
        help=f"also record the result in this ledger (an SQLite file or a postgresql+psycopg:// "
        f"URL; default: ${ENV_VAR} when set)",
    )
    group.add_argument(
        "--ledger-key", metavar="KEYFILE", help="sign the ledger entry's claim with this key file"
    )


def ledger_requested(args: argparse.Namespace) -> bool:
    """Whether the arguments (or the environment) name a ledger to record results in."""
    return bool(getattr(args, "ledger", None) or os.environ.get(ENV_VAR))


def record_result(args: argparse.Namespace, kind: str, document: object) -> None:
    """Append ``document`` to the ledger the arguments (or the environment) name, if any."""
    location = getattr(args, "ledger", None) or os.environ.get(ENV_VAR) or None
    if location is None:
        return  # before any import: a command run without a ledger pays nothing for it
    from apconform.core.signing import load_signing_key
    from apconform.ledger.recording import record_result as record
    from apconform.results import ResultKind

    key_file = getattr(args, "ledger_key", None)
    key = load_signing_key(Path(key_file)) if key_file else None
    recorded = record(location, ResultKind(kind), document, key=key, keep_once=True)
    if recorded.entry is None:
        # The same result again (an APx evaluation of the same inputs, say): kept once.
        sys.stderr.write(f"not recorded in ledger {recorded.where}: {recorded.duplicate}\n")
        return
    signed = f", signed by {recorded.signer}" if recorded.signer else ""
    sys.stderr.write(
        f"recorded in ledger {recorded.where} as entry {recorded.entry.seq} "
        f"({recorded.entry.digest[:16]}...{signed})\n"
    )
