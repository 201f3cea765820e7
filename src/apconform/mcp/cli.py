"""`apconform mcp`: serve the APx tools over MCP on standard input and output."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def _cmd_mcp(args: argparse.Namespace) -> int:
    import anyio

    from apconform.mcp.server import serve_stdio

    anyio.run(serve_stdio)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``mcp`` command to the ``apconform`` parser."""
    parser = subparsers.add_parser(
        "mcp",
        help="serve apx_validate, apx_evaluate and apx_promote over MCP (stdio)",
        description=(
            "Run an MCP server on standard input and output with the tools apx_validate, "
            "apx_evaluate and apx_promote. Nothing but MCP messages is written to standard "
            "output; stop it by closing its input."
        ),
    )
    parser.set_defaults(handler=_cmd_mcp)
