"""`apconform mcp`: serve the APx tools over MCP on standard input and output."""

from __future__ import annotations

import argparse
from typing import Any

from apconform.core.errors import ApconformError

__all__ = ["register"]


def _first_kit_error(group: BaseExceptionGroup) -> ApconformError | None:
    """The kit error inside the task group's exceptions (an over-long line), if any."""
    for inner in group.exceptions:
        if isinstance(inner, ApconformError):
            return inner
        if isinstance(inner, BaseExceptionGroup):
            found = _first_kit_error(inner)
            if found is not None:
                return found
    return None


TERMINAL_NOTE = (
    "apconform mcp: an MCP server on standard input and output, with the tools apx_validate, "
    "apx_evaluate and apx_promote. It waits for an MCP client's JSON-RPC messages; configure "
    "your MCP client to start `apconform mcp` (docs/apx/interfaces.md). Press Ctrl-D to stop.\n"
)
"""Said on standard error when a person runs the server at a terminal (a client never sees
it: its input is a pipe), so the command does not sit there silently."""


def _cmd_mcp(args: argparse.Namespace) -> int:
    import sys

    import anyio

    from apconform.mcp.server import serve_stdio

    if sys.stdin.isatty():
        sys.stderr.write(TERMINAL_NOTE)
        sys.stderr.flush()
    try:
        anyio.run(serve_stdio)
    except BaseExceptionGroup as group:
        found = _first_kit_error(group)
        if found is None:
            raise
        raise found from None
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
