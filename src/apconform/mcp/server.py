"""The APx tools over MCP (stdio), built on the official MCP Python SDK.

Three tools call the APx kernel with the same bounds and refusals as the
command line: ``apx_validate``, ``apx_evaluate`` and ``apx_promote``. A
refused input is a tool error (``isError: true``) whose first text block is
the first violation's message (the reference kernel's wording) and whose
second block, like ``structuredContent``, is the JSON error listing every
violation with its code and path. Each line read from standard input is
bounded too, so an oversized message cannot exhaust memory.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from apconform import __version__
from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import DEFAULT_LIMITS, check_value, size_error

__all__ = ["MAX_LINE_BYTES", "TOOLS", "build_server", "call_tool", "serve_stdio"]

MAX_LINE_BYTES = DEFAULT_LIMITS.max_bytes + 65_536
"""The longest JSON-RPC line read: a 1 MiB document plus room for the message around it."""

MCP_LINE = define_code(
    "APC-MCP-LINE",
    "An MCP message line is longer than the server accepts",
    "Send tool arguments of at most 1 MiB; the server stops rather than buffer more.",
)


def _object(description: str) -> dict[str, Any]:
    return {"type": "object", "description": description}


_MANIFEST = _object(
    "A frozen apx/0.1 manifest (JSON Schema: schemas/jsonschema/apx-manifest.schema.json)."
)
_RUN = _object("A run receipt (JSON Schema: schemas/jsonschema/apx-run.schema.json).")
_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

TOOLS = [
    types.Tool(
        name="apx_validate",
        description=(
            "Validate an APx manifest, or a run against its manifest; lists every violation "
            "with a stable code and path. No remote calls or code execution."
        ),
        input_schema={
            "type": "object",
            "properties": {"manifest": _MANIFEST, "run": _RUN},
            "required": ["manifest"],
            "additionalProperties": False,
        },
        annotations=_READ_ONLY,
    ),
    types.Tool(
        name="apx_evaluate",
        description=(
            "Score a run against a frozen manifest: the apx-result/0.1 document (AP, APx, "
            "eligibility, credited hours). No remote calls or code execution."
        ),
        input_schema={
            "type": "object",
            "properties": {"manifest": _MANIFEST, "run": _RUN},
            "required": ["manifest", "run"],
            "additionalProperties": False,
        },
        annotations=_READ_ONLY,
    ),
    types.Tool(
        name="apx_promote",
        description=(
            "Compare paired campaigns on one frozen manifest: the apx-promotion/0.1 "
            "recommendation. Never authorises deployment."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "manifest": _MANIFEST,
                "comparison": _object('{"pairs": [{"parent": run, "candidate": run}, ...]}'),
                "options": _object('{"iterations": 100..10000, "seed": 0..4294967295}'),
            },
            "required": ["manifest", "comparison"],
            "additionalProperties": False,
        },
        annotations=_READ_ONLY,
    ),
]
_NAMES = {tool.name for tool in TOOLS}


def _bounded(arguments: dict[str, Any]) -> None:
    """The CLI's bounds on the arguments document: 1 MiB, depth 32, 100,000 values."""
    check_value(arguments)
    size = len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > DEFAULT_LIMITS.max_bytes:
        raise size_error("tool arguments", DEFAULT_LIMITS, size)


def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run one tool on its arguments; the answer document, or an ApconformError."""
    from apconform.apx import compare_document, evaluate_document, validate_manifest, validate_run
    from apconform.apx.checks import MISSING

    _bounded(arguments)
    manifest = arguments.get("manifest", MISSING)
    if name == "apx_validate":
        if "run" in arguments:
            return validate_run(manifest, arguments["run"]).to_dict()
        return validate_manifest(manifest, at=("manifest",)).to_dict()
    if name == "apx_evaluate":
        return evaluate_document(manifest, arguments.get("run", MISSING))
    return compare_document(
        manifest, arguments.get("comparison", MISSING), arguments.get("options", MISSING)
    )


def _result(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    from apconform.apx.presentation import json_numbers

    try:
        document = json_numbers(call_tool(name, arguments))
    except ApconformError as error:
        detail = {"error": error.to_dict()}
        return types.CallToolResult(
            content=[
                types.TextContent(type="text", text=error.message),
                types.TextContent(type="text", text=json.dumps(detail, ensure_ascii=False)),
            ],
            structured_content=detail,
            is_error=True,
        )
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=document,
        is_error=False,
    )


async def _list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name not in _NAMES:
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
    return _result(params.name, dict(params.arguments or {}))


def build_server() -> Server[Any]:
    """The MCP server with the three APx tools."""
    return Server(
        "apconform",
        version=__version__,
        instructions=(
            "APx 0.1 kernel tools. apx_validate lists every violation; apx_evaluate returns "
            "apx-result/0.1; apx_promote returns apx-promotion/0.1 and never authorises "
            "deployment. Inputs are bounded to 1 MiB, depth 32 and 100,000 values."
        ),
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )


class _BoundedLines:
    """Standard input as lines of at most ``MAX_LINE_BYTES``, read off the event loop."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw

    def __aiter__(self) -> _BoundedLines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self._read)
        if not line:
            raise StopAsyncIteration
        return line

    def _read(self) -> str:
        data = self._raw.readline(MAX_LINE_BYTES + 1)
        if len(data) > MAX_LINE_BYTES:
            raise ApconformError(
                MCP_LINE,
                f"an MCP message line is longer than {MAX_LINE_BYTES:,} bytes; the server stops",
            )
        return data.decode("utf-8", errors="replace")


async def serve_stdio() -> None:
    """Serve the tools on standard input and output until the client closes the connection."""
    server = build_server()
    lines = cast(Any, _BoundedLines(sys.stdin.buffer))
    async with stdio_server(stdin=lines) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
