"""Schemathesis tests built when they run, not when pytest collects them.

``@schema.parametrize()`` builds every operation's Hypothesis test while pytest
collects the module, and building one generates that operation's whole coverage
phase (thousands of cases, each passed through the fuzz hooks): about 25 CPU-seconds
for the API's fuzz module, paid by every collection (every ``-k``, the ``fast``
selection, each pytest-xdist worker) whether the test runs or not. Here pytest is
parametrized over the operations' labels, which cost nothing to list, and
:func:`run` builds the operation's test with schemathesis's own builder, exactly as
its pytest plugin would (the same configuration, seed, phases and extracted
constants), then runs it. The test ids are the plugin's: ``test_x[POST /v1/...]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemathesis.generation.feedback import FeedbackSources
from schemathesis.pytest._test_builder import build_operation_test
from schemathesis.python._constants.orchestrator import make_constants_value_source

__all__ = ["labels", "run"]


def labels(schema: Any) -> list[str]:
    """The label of every operation the schema holds (a malformed one keeps its label)."""
    found = []
    for result in schema.get_all_operations():
        try:
            found.append(result.ok().label)
        except Exception:  # the plugin reports a malformed operation as a failing test
            found.append(result.err().label)
    return found


_FEEDBACK: dict[int, tuple[Any, FeedbackSources]] = {}


def _feedback(schema: Any) -> FeedbackSources:
    """One feedback object per schema, shared by its operations (as the plugin does)."""
    kept = _FEEDBACK.get(id(schema))
    if kept is None or kept[0] is not schema:
        pool = make_constants_value_source(schema)
        kept = _FEEDBACK[id(schema)] = (schema, FeedbackSources(constants_value_source=pool))
    return kept[1]


def run(schema: Any, label: str, check: Callable[[Any], None]) -> None:
    """Build the Hypothesis test of the operation ``label`` around ``check`` and run it."""
    for result in schema.get_all_operations():
        try:
            operation = result.ok()
        except Exception:
            error = result.err()
            if error.label == label:
                raise error from None
            continue
        if operation.label == label:
            build_operation_test(
                config=schema.config,
                operation=operation,
                test_func=check,
                given_kwargs={},
                feedback=_feedback(schema),
            )()
            return
    raise LookupError(f"the schema has no operation {label}")
