"""`apconform-dev`: the maintainers' command (generation and its drift check).

It follows the same convention as `apconform` (docs/cli.md): ``--help`` and
``--version`` on the entry point, a bare command prints its help (exit 2),
``--format json`` on the command that prints results, exit 0 done, 1 generated
files differ, 2 usage errors. Generation needs LinkML, which only the ``dev``
extra installs: without it the command says which extra to install instead of
failing with a traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys
from contextlib import redirect_stdout
from typing import NoReturn

from apconform import __version__

__all__ = ["build_parser", "main"]

_EXTRA_HINT = (
    "apconform-dev needs LinkML, which the dev extra installs: "
    "pip install 'apconform[dev]' (in a checkout: pip install -e '.[dev]')"
)


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors exit 2 with a hint, like `apconform`'s."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error APC-USAGE: {message}\nhint: Run `{self.prog} --help`.\n")


def build_parser() -> argparse.ArgumentParser:
    """The `apconform-dev` parser."""
    parser = _Parser(
        prog="apconform-dev",
        description="Maintainers' command: regenerate what the schemas and the spec produce.",
    )
    parser.add_argument("--version", action="version", version=f"apconform-dev {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    gen = commands.add_parser(
        "gen",
        help="regenerate models, JSON Schema, reference docs, clauses.json and the other products",
        description="Regenerate every registered product from the sources (schemas/*.yaml, "
        "spec/**/*.md), or with --check change nothing and list what differs.",
    )
    gen.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list every generated file that differs (exit 1 if any)",
    )
    gen.add_argument("--root", metavar="DIR", help="work on another checkout (default: this one)")
    gen.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text (default) or json: {command, exitStatus, text} on standard output",
    )
    gen.add_argument(
        "products",
        nargs="*",
        metavar="PRODUCT",
        help="limit to some products (models, json-schema, reference-docs, clauses, ...)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        parser.print_help()
        return 2
    if importlib.util.find_spec("linkml") is None:
        sys.stderr.write(f"error: {_EXTRA_HINT}\n")
        if args.format == "json":
            error = {"message": _EXTRA_HINT}
            print(json.dumps({"command": "gen", "exitStatus": 2, "error": error}, indent=2))
        return 2
    from apconform.dev.gen import main_gen

    forwarded = (["--check"] if args.check else []) + (["--root", args.root] if args.root else [])
    forwarded += args.products
    if args.format == "text":
        return main_gen(forwarded)
    captured = io.StringIO()
    with redirect_stdout(captured):
        status = main_gen(forwarded)
    document = {"command": "gen", "exitStatus": status, "text": captured.getvalue().splitlines()}
    print(json.dumps(document, indent=2, ensure_ascii=False))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
