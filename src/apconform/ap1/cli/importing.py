"""`apconform ap1 import ...`: records made elsewhere brought into a sealed run directory."""

from __future__ import annotations

from typing import Any

from apconform.ap1.cli.inspect import register_inspect

__all__ = ["register_import"]


def register_import(commands: Any, parser_class: Any) -> None:
    """Add the `import` group to `apconform ap1`, with each source's subcommand."""
    group = commands.add_parser("import", help="import a run recorded by another harness")
    sources = group.add_subparsers(
        dest="import_source", metavar="SOURCE", parser_class=parser_class
    )
    group.set_defaults(handler=lambda _args: (group.print_help(), 2)[1])
    register_inspect(sources)
