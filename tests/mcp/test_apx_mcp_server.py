"""`apconform mcp` as a subprocess, driven by the official MCP client: tools/list and every tool."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from apconform.apx.tutorial import tutorial_campaign, tutorial_manifest, tutorial_pairs

SERVER = StdioServerParameters(command=sys.executable, args=["-m", "apconform.cli", "mcp"])


def _text(result: types.CallToolResult, index: int = 0) -> str:
    block = result.content[index]
    assert isinstance(block, types.TextContent)
    return block.text


async def _session_run() -> dict[str, Any]:
    manifest, run = tutorial_campaign()
    base = tutorial_manifest()
    pairs = tutorial_pairs(base, [0.5] * 5, [0.25] * 5)
    bad_run = dict(run, costUSD=-1, outcomes=[dict(run["outcomes"][0], quality=1.1)])
    seen: dict[str, Any] = {}
    async with stdio_client(SERVER) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)
        seen["evaluate"] = await session.call_tool(
            "apx_evaluate", {"manifest": manifest, "run": run}
        )
        seen["validate"] = await session.call_tool(
            "apx_validate", {"manifest": manifest, "run": run}
        )
        seen["validate-manifest"] = await session.call_tool("apx_validate", {"manifest": manifest})
        seen["promote"] = await session.call_tool(
            "apx_promote",
            {
                "manifest": base,
                "comparison": {"pairs": pairs},
                "options": {"iterations": 100, "seed": 7},
            },
        )
        seen["refused"] = await session.call_tool(
            "apx_evaluate", {"manifest": manifest, "run": bad_run}
        )
        seen["empty"] = await session.call_tool("apx_evaluate", {})
        seen["null-options"] = await session.call_tool(
            "apx_promote", {"manifest": base, "comparison": {"pairs": pairs}, "options": None}
        )
        seen["deep"] = await session.call_tool(
            "apx_evaluate", {"manifest": manifest, "run": run, "x": json.loads("[" * 40 + "]" * 40)}
        )
        try:
            await session.call_tool("shell_exec", {"command": "ls"})
        except MCPError as error:
            seen["unknown"] = error
    return seen


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    return anyio.run(_session_run)


def test_tools_list_names_the_three_tools(seen: dict[str, Any]) -> None:
    assert seen["tools"] == ["apx_evaluate", "apx_promote", "apx_validate"]


def test_evaluate_returns_the_result_document(seen: dict[str, Any]) -> None:
    result = seen["evaluate"]
    assert result.is_error is False
    document = json.loads(_text(result))
    assert document["AP"] == 9
    assert document["APx"] == 3.169925001442312
    assert document["eligibility"] == "ELIGIBLE"
    assert result.structured_content["creditedHumanHours"] == 4.5


def test_validate_reports_the_calibration(seen: dict[str, Any]) -> None:
    for key in ("validate", "validate-manifest"):
        document = json.loads(_text(seen[key]))
        assert document["valid"] is True
        assert document["calibration"]["output-verification"]["referenceHumanHours"] == 1.5


def test_promote_returns_the_recommendation(seen: dict[str, Any]) -> None:
    document = json.loads(_text(seen["promote"]))
    assert document["decision"] == "PROMOTE"
    assert document["deployAuthorized"] is False
    assert document["interval"]["lower"] == 1 and document["interval"]["seed"] == 7


def test_refusal_lists_every_violation_with_codes(seen: dict[str, Any]) -> None:
    result = seen["refused"]
    assert result.is_error is True
    assert _text(result) == "APx validation: costUSD must be finite in [0, 1000000000000]"
    error = json.loads(_text(result, 1))["error"]
    assert [(v["code"], v["path"]) for v in error["violations"]] == [
        ("APX-VAL-NUMBER", "$.run.costUSD"),
        ("APX-RUN-COVERAGE", "$.run.outcomes"),
        ("APX-VAL-NUMBER", "$.run.outcomes[0].quality"),
    ]


def test_missing_and_null_inputs_are_clear_refusals(seen: dict[str, Any]) -> None:
    assert seen["empty"].is_error is True
    assert _text(seen["empty"]) == "APx validation: manifest must be an object"
    assert seen["null-options"].is_error is True
    assert _text(seen["null-options"]) == "APx validation: options must be an object"


def test_arguments_are_bounded_like_the_cli(seen: dict[str, Any]) -> None:
    assert seen["deep"].is_error is True
    assert json.loads(_text(seen["deep"], 1))["error"]["code"] == "APC-JSON-DEPTH"


def test_unknown_tool_is_a_protocol_error(seen: dict[str, Any]) -> None:
    error = seen["unknown"]
    assert error.code == types.INVALID_PARAMS
    assert "shell_exec" in error.message


def test_an_over_long_line_stops_the_server_with_a_clear_error() -> None:
    import subprocess

    huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * 1_200_000 + b'"}}\n'
    done = subprocess.run(
        [sys.executable, "-m", "apconform.cli", "mcp"], input=huge, capture_output=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.startswith(b"error APC-MCP-LINE: an MCP message line is longer than")
