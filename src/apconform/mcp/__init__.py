"""The MCP stdio server: the APx kernel's tools for MCP clients, on the official MCP SDK."""

from apconform.mcp.server import TOOLS, build_server, call_tool, serve_stdio

__all__ = ["TOOLS", "build_server", "call_tool", "serve_stdio"]
