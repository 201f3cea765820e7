"""Typed protocol routes: a generated model as the body, the library's own rules and refusals.

A typed route is documented with the generated models of its body and its
answer, so the OpenAPI document carries every pattern, bound and enumeration.
What it accepts must stay honest to that document in both directions:

- it runs the library function first, on the JSON value as sent, so a refused
  document is refused by the protocol's own rules, in their order, with their
  codes and the reference wording in the first violation (the APx kernel, the
  AP-1 loaders);
- then, when the library accepted, it validates the body against the
  documented model, so nothing the schema refuses is ever answered 2xx (the
  libraries ignore members they do not read, which the schema may constrain).

Routes whose library function needs a typed input (``check_first``) validate
the body first instead. A typed route may take the path of a registered vector
operation (``operation``); it then replaces the generic route, checks the
operation's input schema before anything else (APC-OP-INPUT, as the generic
route does), and every vector of the operation must still pass through it
(``tests/api/test_api_routes.py``).

Its examples are its own (``examples``) and, for an operation's route, the operation's vector
example; each is documented with the answer the route gives to it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from apconform.api.example_store import route_examples
from apconform.api.examples import RouteExamples, answer_examples, operation_examples
from apconform.api.routing import (
    BODY_STATUSES,
    JsonResponse,
    model_ref,
    offload,
    parse_body,
    read_body,
    route_doc,
)
from apconform.conformance.contracts import check_input
from apconform.core.jsonmemo import LoadedBody, MemberMemo
from apconform.core.validation import validate_document

__all__ = ["TypedRoute", "add_typed_routes"]


@dataclass(frozen=True)
class TypedRoute:
    """One typed ``POST`` route: its path, documentation, models and the work it does."""

    path: str
    operation_id: str
    tag: str
    summary: str
    description: str
    body: type[BaseModel]
    answer: type[BaseModel]
    run: Callable[[Any], Any]
    """Takes the request body as a JSON value; returns the answer or raises a kit error."""
    what: str
    """How a refused body is named in the problem's detail, e.g. "evaluation request"."""
    check_first: bool = False
    answer_description: str = "The answer."
    examples: tuple[tuple[str, Callable[[], Any]], ...] = ()
    operation: str | None = None
    """The vector operation whose path the route takes: its input schema is checked first."""
    volatile: bool = False
    """The answer names the digest of the instrument's source code, which changes with every
    edit of it: the request examples are documented without the answers to them."""
    remembers_members: bool = False
    """Bodies repeat large members (the sealed inputs of the AP-1 scoring routes): each is
    parsed, checked and validated once per worker. Only for routes that never change the
    body they are given, since remembered values are shared between requests."""

    def answer_for(self, value: Any, *, validated: bool = False) -> Any:
        """The answer to one body, or the refusal (see the module docstring for the order).

        ``validated``: this very body is known to pass the body model, so it is not checked
        against it again.
        """
        return self._answer(value, None if validated else self._validate)

    def _answer(self, value: Any, validate: Callable[[Any], None] | None) -> Any:
        if self.operation is not None:
            check_input(self.operation, value)
        if self.check_first:
            if validate is not None:
                validate(value)
            return self.run(value)
        answer = self.run(value)
        if validate is not None:
            validate(value)
        return answer

    def _validate(self, value: Any) -> None:
        validate_document(self.body, value, what=self.what)

    def answer_for_bytes(self, body: bytes) -> Any:
        """The answer to one request body's bytes: parsed, answered, validated once per digest.

        Validating a large body against its model costs as much as scoring it; the SHA-256 of
        bytes that passed is remembered (a bounded set per route), and the same bytes again
        parse to the same value, which passes again, so they are not validated twice. A route
        that remembers members parses and validates each large member once instead (see
        :class:`~apconform.core.jsonmemo.MemberMemo`).
        """
        if self.remembers_members:
            loaded = _MEMBERS.loads(body, source="request body")
            return self._answer(loaded.value, lambda value: self._validate_members(loaded))
        value = parse_body(body)
        digest = hashlib.sha256(body).digest()
        answer = self.answer_for(value, validated=_VALIDATED.holds(self.path, digest))
        _VALIDATED.add(self.path, digest)
        return answer

    def _validate_members(self, loaded: LoadedBody) -> None:
        """Validate a body whose remembered members may already be proved to pass.

        When the body model has no validator across members, a body that has only the
        model's members, every required one among them, passes when each passes as its
        field: a remembered member proved so before is not checked again, another one whose
        field is a plain model is checked against that model alone. When that does not
        settle it, the whole body is validated as always, which gives the refusal.
        """
        if not _members_pass(self.body, loaded):
            self._validate(loaded.value)
        for name, entry in loaded.remembered.items():
            entry.proofs.add((self.body, name))


def _members_pass(model: type[BaseModel], loaded: LoadedBody) -> bool:
    """Whether the body surely passes ``model``, from its members (False: not settled)."""
    value = loaded.value
    fields = model.model_fields
    if type(value) is not dict or not loaded.remembered or any(n not in fields for n in value):
        return False
    rules = model.__pydantic_decorators__
    if rules.model_validators or rules.field_validators:
        return False  # a rule that may look across members: only the whole body can tell
    unproved: list[tuple[type[BaseModel], Any]] = []
    for name, info in fields.items():
        if name not in value:
            if info.is_required():
                return False
            continue
        if info.alias is not None or info.validation_alias is not None:
            return False
        entry = loaded.remembered.get(name)
        if entry is not None and (model, name) in entry.proofs:
            continue
        kind = info.annotation
        if info.metadata or not (isinstance(kind, type) and issubclass(kind, BaseModel)):
            return False
        unproved.append((kind, value[name]))
    for kind, member in unproved:
        try:
            kind.model_validate(member)
        except ValidationError:
            return False
    return True


class _ValidatedBodies:
    """Digests of request bodies that passed their route's body model; a bounded LRU."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._seen: OrderedDict[tuple[str, bytes], None] = OrderedDict()
        self._lock = threading.Lock()

    def holds(self, path: str, digest: bytes) -> bool:
        with self._lock:
            if (path, digest) in self._seen:
                self._seen.move_to_end((path, digest))
                return True
            return False

    def add(self, path: str, digest: bytes) -> None:
        with self._lock:
            self._seen[path, digest] = None
            while len(self._seen) > self.size:
                self._seen.popitem(last=False)


_VALIDATED = _ValidatedBodies(4096)
"""Per worker process: 4,096 digests with their paths are well under a megabyte."""

_MEMBERS = MemberMemo(max_chars=4 * 1024 * 1024)
"""Per worker process: 4 MiB of member text (about 24 MB with the parsed values) is fifty
input sets of the AP-1 demo's size, or its inputs with a few hundred repeated records."""


def _endpoint(route: TypedRoute) -> Any:
    async def endpoint(request: Request) -> JsonResponse:
        body = await read_body(request)
        return JsonResponse(await offload(request, route.answer_for_bytes, body))

    endpoint.__name__ = route.operation_id
    return endpoint


def _examples(route: TypedRoute) -> RouteExamples:
    requests = {name: make() for name, make in route.examples}
    if route.operation is not None:
        requests.update(operation_examples(route.operation).requests)
    if route.volatile:
        return RouteExamples(requests=requests)
    return answer_examples(requests, route.answer_for)


def add_typed_routes(router: APIRouter, routes: Iterable[TypedRoute]) -> list[str]:
    """Mount the routes; return their paths (so generic operation routes can skip them)."""
    paths: list[str] = []
    for route in routes:
        if route.path in paths:
            raise ValueError(f"two typed routes have the path {route.path}")
        paths.append(route.path)
        examples = route_examples(f"typed:{route.operation_id}", partial(_examples, route))
        router.add_api_route(
            route.path,
            _endpoint(route),
            methods=["POST"],
            tags=[route.tag],
            summary=route.summary,
            description=route.description,
            operation_id=route.operation_id,
            **route_doc(
                answer=route.answer,
                statuses=BODY_STATUSES,
                body=model_ref(route.body),
                body_examples=examples.requests,
                answer_description=route.answer_description,
                answer_examples=examples.responses,
            ),
        )
    return paths
