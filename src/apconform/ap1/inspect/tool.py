"""The calculator as an Inspect tool: the instrument's evaluator, argument rules and return text.

Offered to the model with the sealed name, description and argument. The AP-1
task's own loop executes the model's calls from their raw argument text (see
``solver``); this tool is the same calculator for Inspect's usual tool
execution, so a call made through either path gets the instrument's answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.tool import Tool, ToolDef, ToolParam, ToolParams

from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.run.toolcall import run_tool_call
from apconform.core.canonical import canonical_text

__all__ = ["calculator_tool"]


def calculator_tool(spec: Mapping[str, str], calculator: Calculator) -> Tool:
    """The sealed calculator tool (``spec`` is the condition's tool object) for Inspect."""
    name = str(spec["name"])
    argument = str(spec["argumentName"])

    async def execute(**arguments: Any) -> str:
        outcome = run_tool_call(
            name,
            canonical_text(arguments),
            tool_name=name,
            argument_name=argument,
            calculator=calculator,
        )
        return outcome.content

    return ToolDef(
        execute,
        name=name,
        description=str(spec["description"]),
        parameters=ToolParams(
            properties={
                argument: ToolParam(type="string", description=str(spec["argumentDescription"]))
            },
            required=[argument],
        ),
    ).as_tool()
