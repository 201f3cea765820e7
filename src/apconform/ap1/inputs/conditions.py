"""The two conditions of a run, as sent, and the rule that they differ in one declared quantity.

Each condition is the shared request with the condition's own overrides
applied; the comparison walks both down to the individual parameter, so a
refusal names every difference, not just that there is one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from apconform.ap1.refusal import violation
from apconform.core.errors import Violation, define_code
from apconform.models.ap1 import Ap1RunConfig, ConditionSettings

__all__ = ["ConditionView", "condition_differences", "condition_view", "condition_violations"]

CONDITIONS_DIFFER = define_code(
    "AP1-CONDITIONS-DIFFER",
    "The two conditions do not differ in exactly the one declared quantity",
    "Make base and instructionRemoved identical except for the declared quantity "
    "(conditions.varies), and make that quantity differ.",
    exit_status=1,
)


@dataclass(frozen=True)
class ConditionView:
    """What one condition sends: the shared request with the condition's overrides applied."""

    name: str
    system_prompt: str
    user_preamble: str
    tool: dict[str, Any]
    tool_choice: dict[str, Any]
    sampling: dict[str, Any]

    def quantities(self) -> dict[str, Any]:
        return {
            "systemPrompt": self.system_prompt,
            "userPreamble": self.user_preamble,
            "tool": self.tool,
            "toolChoice": self.tool_choice,
            "sampling": self.sampling,
        }


def _dump(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(mode="json", exclude_unset=True))


def condition_view(config: Ap1RunConfig, name: str, settings: ConditionSettings) -> ConditionView:
    present = settings.model_fields_set
    return ConditionView(
        name=name,
        system_prompt=settings.systemPrompt,
        user_preamble=settings.userPreamble,
        tool=_dump(settings.tool if "tool" in present else config.request.tool),
        tool_choice=_dump(
            settings.toolChoice if "toolChoice" in present else config.request.toolChoice
        ),
        sampling=_dump(settings.sampling if "sampling" in present else config.request.sampling),
    )


def _differences(a: object, b: object, path: str) -> Iterator[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            yield from _differences(a.get(key), b.get(key), f"{path}.{key}")
    elif a != b:
        yield path


def condition_differences(base: ConditionView, removed: ConditionView) -> list[str]:
    """Every quantity (to the individual parameter) in which the two conditions differ."""
    out: list[str] = []
    left, right = base.quantities(), removed.quantities()
    for key in left:
        out.extend(_differences(left[key], right[key], key))
    return out


def condition_violations(config: Ap1RunConfig) -> Iterator[Violation]:
    base = condition_view(config, "base", config.conditions.base)
    removed = condition_view(config, "instruction-removed", config.conditions.instructionRemoved)
    declared = str(config.conditions.varies)
    differences = condition_differences(base, removed)
    others = [d for d in differences if d != declared]
    if declared not in differences:
        yield violation(
            CONDITIONS_DIFFER,
            "$.conditions",
            f"the conditions do not differ in the declared quantity {declared}; "
            "the instruction-removed condition would measure nothing",
        )
    if others:
        yield violation(
            CONDITIONS_DIFFER,
            "$.conditions",
            f"the conditions differ in {len(others)} quantit{'y' if len(others) == 1 else 'ies'} "
            f"besides the declared {declared}: {', '.join(others)}; exactly one may differ",
        )
