"""`apconform`: one command with subcommands, thin over the library.

Each protocol package contributes its own subcommand group through a
``register(subparsers)`` function listed in :data:`_GROUPS`; this module only
parses arguments, calls the library and turns the kit's errors into a message
on stderr and an exit status (0 done, 1 document refused, 2 usage or input
error, 130 interrupted). It never prints a Python traceback unless
``APCONFORM_DEBUG=1`` is set.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from apconform import __version__
from apconform.core.errors import ApconformError, DocumentRefused, UsageError

__all__ = ["main", "print_json", "read_document", "trust_arguments"]

# Modules that add subcommand groups; a module missing from this build is skipped.
_GROUPS = (
    "apconform.commands.kit",
    "apconform.apx.cli",
    "apconform.ap1.cli.instrument",
    "apconform.conformance.cli",
    "apconform.api.cli",
    "apconform.mcp.cli",
)


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors share the error path."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"Run `{self.prog} --help` to see the arguments.")


def read_document(source: str) -> Any:
    """Load a JSON document from a path or from stdin ("-") through the bounded loader."""
    from apconform.core.files import load_path, load_stream

    if source == "-":
        return load_stream(sys.stdin.buffer, source="<stdin>")
    return load_path(Path(source))


def trust_arguments(parser: Any) -> None:
    """--trusted-key (repeatable) and --trust-file: the keys a verification accepts."""
    parser.add_argument(
        "--trusted-key",
        action="append",
        metavar="HEX",
        help="public key (64 hex) to trust; repeat for several. Named keys replace the "
        "default, which is the kit's published TEST key alone",
    )
    parser.add_argument(
        "--trust-file",
        metavar="FILE",
        help="a file of public keys to trust, one per line (# comments allowed)",
    )


def print_json(value: Any, *, stream: Any = None) -> None:
    """Write a JSON document as readable, deterministic text."""
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def _report_error(error: ApconformError) -> int:
    err = sys.stderr
    if isinstance(error, DocumentRefused):
        err.write(f"refused: {len(error.violations)} violation(s)\n")
        for v in error.violations:
            err.write(f"  {v.code} at {v.path}: {v.message}\n")
        err.write(json.dumps({"error": error.to_dict()}, ensure_ascii=False) + "\n")
    else:
        where = f" at {error.path}" if error.path else ""
        err.write(f"error {error.code}{where}: {error.message}\n")
        if error.hint:
            err.write(f"hint: {error.hint}\n")
    return error.exit_status


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="apconform",
        description="Schema-first conformance kit for AP-1 and APx.",
    )
    parser.add_argument("--version", action="version", version=f"apconform {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module_name in _GROUPS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module_name.startswith(exc.name):
                continue
            raise
        register: Callable[[Any], None] = module.register
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(args_list)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
        return int(handler(args))
    except ApconformError as error:
        return _report_error(error)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: no traceback for users
        if os.environ.get("APCONFORM_DEBUG") == "1":
            traceback.print_exc()
        sys.stderr.write(
            f"internal error ({type(exc).__name__}): {exc}\n"
            "hint: this is a bug in apconform; rerun with APCONFORM_DEBUG=1 and report "
            "the output.\n"
        )
        return 70


if __name__ == "__main__":
    raise SystemExit(main())
