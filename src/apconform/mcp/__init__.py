"""The MCP stdio server: the APx kernel's tools for MCP clients, on the official MCP SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.mcp.server import TOOLS as TOOLS
    from apconform.mcp.server import build_server as build_server
    from apconform.mcp.server import call_tool as call_tool
    from apconform.mcp.server import serve_stdio as serve_stdio

__getattr__ = lazy_exports(__name__)
