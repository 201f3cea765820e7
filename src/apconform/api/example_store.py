"""The OpenAPI examples, computed by `apconform-dev gen` and read back when a worker starts.

Every example is a real request and the reference implementation's real answer to it
(:mod:`apconform.api.examples`, :mod:`apconform.api.example_runs`): computing them loads
every vector and runs a conformance check, about two CPU-seconds, which each API worker
paid at start-up before it could answer anything. The generation command computes them
once, beside the OpenAPI document they appear in, into ``openapi_examples.json`` next to
this module (a generated file: `apconform-dev gen --check` computes them again and names
the file if it differs). A worker reads that file instead. A route whose examples the
file does not hold (a source tree whose file is missing or behind) computes them as
before, so the document it serves is never wrong, only slower to build.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from apconform.api.examples import RouteExamples

__all__ = ["EXAMPLES_FILE", "recording", "route_examples", "stored"]

EXAMPLES_FILE = Path(__file__).with_name("openapi_examples.json")
_recorded: dict[str, Any] | None = None


@cache
def _file() -> dict[str, Any]:
    try:
        text = EXAMPLES_FILE.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    value: dict[str, Any] = json.loads(text)
    return value


def stored(key: str, compute: Callable[[], Any]) -> Any:
    """The JSON value kept under ``key``: recorded while generating, else read from the file
    (computed when the file lacks it)."""
    if _recorded is not None:
        value = compute()
        _recorded[key] = json.loads(json.dumps(value, ensure_ascii=False))
        return _recorded[key]
    found = _file().get(key)
    return compute() if found is None else found


def route_examples(key: str, compute: Callable[[], RouteExamples]) -> RouteExamples:
    """A route's request examples and answers, kept under ``key`` (see :func:`stored`)."""

    def as_json() -> dict[str, Any]:
        examples = compute()
        return {
            "requests": examples.requests,
            "responses": {str(status): named for status, named in examples.responses.items()},
        }

    value = stored(key, as_json)
    return RouteExamples(
        requests=value["requests"],
        responses={int(status): named for status, named in value["responses"].items()},
    )


@contextmanager
def recording() -> Iterator[Callable[[], str]]:
    """Compute every example asked for inside the block; yields a function giving the text
    of the file they make (what the generation command writes)."""
    global _recorded
    previous, _recorded = _recorded, {}
    record = _recorded
    try:
        yield lambda: json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    finally:
        _recorded = previous
