"""The MCP stdio server: the APx kernel's tools for MCP clients, on the official MCP SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.mcp.server import TOOLS, build_server, call_tool, serve_stdio

__all__ = ["TOOLS", "build_server", "call_tool", "serve_stdio"]

_EXPORTS = {
    "TOOLS": "apconform.mcp.server",
    "build_server": "apconform.mcp.server",
    "call_tool": "apconform.mcp.server",
    "serve_stdio": "apconform.mcp.server",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
