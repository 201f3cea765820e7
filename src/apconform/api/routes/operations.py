"""Each operation as a typed route: ``<protocol>.<name>`` at ``POST /v1/<protocol>/<name>``.

This is the convention the harness's ``http:`` adapter speaks: the JSON body
is the vector's input, a 2xx JSON body is the answer, and a refusal is a 4xx
``application/problem+json`` whose ``code`` is the refusal's error code (and
whose ``detail`` is its message). The reference operation checks the body
against the operation's input schema first (422 APC-OP-INPUT at the first bad
member, every violation listed), then answers or refuses with exactly the
codes the library refuses with.

Each route is documented with the generated models of the operation's
contract (:mod:`apconform.conformance.contracts`): the input class as the
body, the answer class as the 200 answer, and a real vector's input as the
example, with the reference answer to it (:mod:`apconform.api.examples`).
Nothing needs adding for a new operation beyond its LinkML classes.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from fastapi import APIRouter
from starlette.requests import Request

from apconform.api.example_store import route_examples
from apconform.api.examples import RouteExamples, operation_examples
from apconform.api.routing import (
    OPERATION_STATUSES,
    JsonResponse,
    model_ref,
    offload,
    read_json,
    route_doc,
)
from apconform.conformance.contracts import operation_contract
from apconform.conformance.operations import get_operation, operation_names

__all__ = ["add_operation_routes", "operation_description", "operation_path"]


def operation_path(name: str) -> str:
    """``apx.evaluate`` -> ``/v1/apx/evaluate``; underscores in the name become hyphens."""
    protocol, _, short = name.partition(".")
    return f"/v1/{protocol}/{short.replace('_', '-')}"


def operation_description(name: str) -> str:
    """What the route does and which codes it refuses with, from the operation's contract."""
    contract = operation_contract(name)
    if contract is None:
        return f"The reference implementation of {name}."
    codes = ", ".join(f"`{code}`" for code in contract.refusals)
    return (
        f"{contract.summary} The body is the operation's input (`{name}` in the operation "
        "catalogue); a body that breaks the input schema is refused with `APC-OP-INPUT` "
        f"(422) at its first bad member. Refusal codes: {codes}."
    )


def _example_note(examples: RouteExamples) -> str:
    if not examples.requests:
        return ""
    (vector_id,) = examples.requests
    return f" The example is the input of vector `{vector_id}`, with the reference answer to it."


def _endpoint(name: str) -> Any:
    operation = get_operation(name)

    async def run(request: Request) -> JsonResponse:
        value = await read_json(request)
        answer = await offload(request, operation, value)
        return JsonResponse(answer)

    run.__name__ = "op_" + name.replace(".", "_")
    return run


def add_operation_routes(router: APIRouter, *, skip: Iterable[str] = ()) -> list[str]:
    """Mount one route per registered operation; return the operation names.

    Paths in ``skip`` already have a typed route (see :mod:`apconform.api.typed`),
    which then serves the operation's vectors.
    """
    names = operation_names()
    taken = set(skip)
    for name in names:
        if operation_path(name) in taken:
            continue
        contract = operation_contract(name)
        if contract is None:
            raise ValueError(f"operation {name} has no contract in the schemas")
        examples = route_examples(f"operation:{name}", partial(operation_examples, name))
        router.add_api_route(
            operation_path(name),
            _endpoint(name),
            methods=["POST"],
            tags=[name.partition(".")[0]],
            summary=f"Run {name}",
            description=operation_description(name) + _example_note(examples),
            operation_id=name.replace(".", "_"),
            **route_doc(
                answer=contract.answer_model,
                statuses=OPERATION_STATUSES,
                body=model_ref(contract.input_model),
                body_examples=examples.requests,
                answer_description=f"The answer of {name}.",
                answer_examples=examples.responses,
            ),
        )
    return names
