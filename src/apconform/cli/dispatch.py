"""`apconform`: one command with subcommands, thin over the library.

Each protocol package contributes its own subcommand group through a
``register(subparsers)`` function listed in :data:`_COMMANDS`; this module only
parses arguments, calls the library and turns the kit's errors into a message
on stderr and an exit status (the table in docs/cli.md). The convention every
command follows (bare groups print their help, ``--format json`` everywhere,
errors as JSON on standard output in JSON mode) is applied to the whole parser
tree by :mod:`apconform.cli.convention`. It never prints a Python
traceback unless ``APCONFORM_DEBUG=1`` is set.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import sys
import traceback
from collections.abc import Callable, Collection, Sequence
from typing import Any, NoReturn

from apconform import __version__
from apconform.cli.convention import (
    apply_convention,
    check_input_paths,
    json_mode,
    run_as_json,
)
from apconform.core.errors import ApconformError, DocumentRefused, UsageError

__all__ = ["build_parser", "main"]

# The modules whose ``register(subparsers)`` add top-level commands, each with the names and
# one-line helps of the commands it adds, in order. The top-level parser lists every command from
# this table and imports only the module of the command being run, so `apconform --help` or
# `apconform canonicalize` does not pay for the HTTP API, the MCP server or the AP-1 instrument.
# tests/test_cli.py checks this table against what each module's ``register`` adds.
_COMMANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "apconform.cli.kit": (
        ("demo", "run the kit's main job on built-in inputs (no network, no key)"),
        ("validate", "validate a document against its schema, listing every violation"),
        ("canonicalize", "print the RFC 8785 canonical form of a JSON document"),
        ("hash", "print the SHA-256 of a JSON document's canonical form"),
        ("key", "manage Ed25519 signing keys"),
        ("sign", "print a JSON object with an Ed25519 signature attached"),
        ("verify", "verify a JSON object's attached signature"),
    ),
    "apconform.cli.apx": (
        ("apx", "APx 0.1: validate, freeze, evaluate and promote agent campaigns"),
    ),
    "apconform.cli.ap1.instrument": (("ap1", "the AP-1 instrument: seal, run, verify and score"),),
    "apconform.cli.conformance": (
        ("check", "check an implementation against the vectors, clause by clause"),
        ("vectors", "verify, lint and audit a vector suite"),
        ("report", "verify or re-render a conformance report"),
    ),
    "apconform.cli.api": (
        ("serve", "run the HTTP API (stateless; see docs/api/deployment.md)"),
        ("openapi", "print or write the API's OpenAPI document"),
    ),
    "apconform.cli.mcp": (
        ("mcp", "serve apx_validate, apx_evaluate and apx_promote over MCP (stdio)"),
    ),
    "apconform.cli.ledger": (
        ("ledger", "the results ledger: list, show, verify, diff, export, import, record, site"),
    ),
}
_MODULES = {name: module for module, commands in _COMMANDS.items() for name, _ in commands}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors share the error path."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"Run `{self.prog} --help` to see the arguments.")


def _report_error(error: ApconformError, command: tuple[str, ...] | None = None) -> int:
    """Explain the error on stderr; in JSON mode (``command`` given) also as JSON on stdout."""
    err = sys.stderr
    if command is not None:
        document = {
            "command": " ".join(command),
            "exitStatus": error.exit_status,
            "error": error.to_dict(),
        }
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    if isinstance(error, DocumentRefused):
        err.write(f"refused: {len(error.violations)} violation(s)\n")
        for v in error.violations:
            err.write(f"  {v.code} at {v.path}: {v.message}\n")
        if command is None:
            err.write(json.dumps({"error": error.to_dict()}, ensure_ascii=False) + "\n")
    else:
        where = f" at {error.path}" if error.path else ""
        err.write(f"error {error.code}{where}: {error.message}\n")
        if error.hint:
            err.write(f"hint: {error.hint}\n")
    return error.exit_status


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The `apconform` parser with the full parsers of the commands named in ``load`` (all if None).

    Every other command is listed with its one-line help only, without importing the module
    that implements it.
    """
    parser = _Parser(
        prog="apconform",
        description="Schema-first conformance kit for AP-1 and APx.",
    )
    parser.add_argument("--version", action="version", version=f"apconform {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted = {_MODULES[name] for name in load if name in _MODULES} if load is not None else None
    loaded: list[str] = []
    for module_name, commands in _COMMANDS.items():
        if wanted is None or module_name in wanted:
            _register(module_name, subparsers)
            loaded.extend(name for name, _ in commands)
        else:
            for name, help_text in commands:
                subparsers.add_parser(name, help=help_text, add_help=False)
    apply_convention(parser, tuple(loaded))
    return parser


def _register(module_name: str, subparsers: Any) -> None:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise UsageError(
                f"this installation of apconform has no {module_name}",
                hint="Reinstall apconform (pip install --force-reinstall apconform).",
            ) from None
        raise
    register: Callable[[Any], None] = module.register
    register(subparsers)


def _command_of(args: Sequence[str]) -> str | None:
    """The command named on the command line: the first argument that is not an option."""
    for arg in args:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


def _asks_for_json(args: Sequence[str]) -> bool:
    """``--format json`` on the command line (before the parser could read it)."""
    return "--format=json" in args or any(
        a == "--format" and b == "json" for a, b in itertools.pairwise(args)
    )


def _command_path(parser: argparse.ArgumentParser, args_list: Sequence[str]) -> tuple[str, ...]:
    """The command and subcommand names the command line starts with (for JSON errors)."""
    path: list[str] = []
    words = iter(arg for arg in args_list if not arg.startswith("-"))
    current: argparse.ArgumentParser | None = parser
    while current is not None:
        choices = next(
            (a.choices for a in current._actions if isinstance(a, argparse._SubParsersAction)),
            None,
        )
        word = next(words, None)
        if not isinstance(choices, dict) or word not in choices:
            break
        path.append(word)
        current = choices[word]
    return tuple(path)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    args: argparse.Namespace | None = None
    parser: argparse.ArgumentParser | None = None
    try:
        command = _command_of(args_list)
        parser = build_parser(load=() if command is None else (command,))
        args, unknown = parser.parse_known_args(args_list)
        if unknown:  # name the command whose help lists the arguments it does take
            prog = " ".join(("apconform", *getattr(args, "_command", ())))
            raise UsageError(
                f"unrecognized arguments: {' '.join(unknown)}",
                hint=f"Run `{prog} --help` to see the arguments.",
            )
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
        check_input_paths(args)
        if getattr(args, "_text_as_json", False) and args.format == "json":
            return run_as_json(args._command, handler, args)
        return int(handler(args))
    except ApconformError as error:
        # JSON errors only when JSON was asked for: a document command's default stays quiet.
        in_json = _asks_for_json(args_list) and (args is None or json_mode(args))
        path = getattr(args, "_command", None) or (
            _command_path(parser, args_list) if parser is not None else ()
        )
        return _report_error(error, path if in_json else None)
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
