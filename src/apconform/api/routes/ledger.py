"""Ledger routes, mounted only when the server has a ledger (``apconform serve --ledger``).

A submitted result is checked completely before anything is stored: the
claim's schema and signature (against the trusted keys, when the operator
named any; unsigned claims only when the operator allows them), the
document against its kind, and the document's digest. Each append is one
database transaction under the ledger's append lock, so submissions arriving
at several workers at once still form one linear chain.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from starlette.requests import Request

from apconform.api.ledger_service import LedgerService
from apconform.api.routing import (
    BODY_STATUSES,
    PARAMETER_STATUSES,
    JsonResponse,
    model_ref,
    offload,
    read_json,
    route_doc,
)
from apconform.models.conformance import Protocol
from apconform.models.ledger import (
    LedgerEntryList,
    LedgerEntrySummary,
    LedgerMatrix,
    LedgerRecord,
    LedgerSubmission,
    ResultKind,
)

__all__ = ["LEDGER_TAG", "add_ledger_routes"]

LEDGER_TAG = {
    "name": "ledger",
    "description": "The results ledger (only on a server started with --ledger).",
}
router = APIRouter()

REF = "^(#?[1-9][0-9]{0,17}|[0-9a-f]{8,64})$"
NAME = "[^\\t\\n\\v\\f\\r ]"


def _service(request: Request) -> LedgerService:
    service: LedgerService = request.app.state.ledger
    return service


def _submit(service: LedgerService, value: Any) -> dict[str, Any]:
    from apconform.ledger import accept_submission
    from apconform.ledger.store import EntryFilter

    submission = accept_submission(
        value,
        trusted_keys=service.trusted_keys or None,
        require_signature=not service.allow_unsigned,
    )
    ledger = service.ledger()
    stored = ledger.append(submission)
    summaries = ledger.summaries(EntryFilter(), limit=1, after=stored.seq - 1)
    return dict(summaries[0])


@router.post(
    "/v1/ledger/entries",
    tags=["ledger"],
    operation_id="ledger_submit",
    summary="Submit a result (a signed claim and its document) to the ledger",
    description=(
        "The claim is verified before anything is stored: its schema, its signature (an "
        "unsigned claim only when the server allows it, a signer among the server's trusted "
        "keys when it names any), the document against its kind, and the document's "
        "canonical SHA-256 against the claim. The answer is the new entry."
    ),
    **route_doc(
        answer=LedgerEntrySummary,
        statuses=(409, *BODY_STATUSES),
        body=model_ref(LedgerSubmission),
        answer_description="The entry the result was appended as.",
    ),
)
async def submit(request: Request) -> JsonResponse:
    value = await read_json(request)
    return JsonResponse(await offload(request, _submit, _service(request), value))


def _list(service: LedgerService, query: dict[str, Any]) -> dict[str, Any]:
    from apconform.ledger.store import EntryFilter

    ledger = service.ledger()
    after, limit = query.pop("after"), query.pop("limit")
    summaries = ledger.summaries(EntryFilter(**query), limit=limit, after=after)
    head = ledger.head()
    return {
        "count": len(summaries),
        "headSeq": head.seq,
        "headSha256": head.digest,
        "entries": summaries,
    }


@router.get(
    "/v1/ledger/entries",
    tags=["ledger"],
    operation_id="ledger_list",
    summary="List entries, oldest first, with the ledger's head",
    **route_doc(answer=LedgerEntryList, statuses=PARAMETER_STATUSES),
)
async def list_entries(
    request: Request,
    kind: Annotated[ResultKind | None, Query(description="Only this kind of result.")] = None,
    implementation: Annotated[
        str | None, Query(max_length=256, pattern=NAME, description="Only this implementation.")
    ] = None,
    version: Annotated[
        str | None, Query(max_length=256, pattern=NAME, description="Only this version.")
    ] = None,
    protocol: Annotated[Protocol | None, Query(description="Only this protocol.")] = None,
    model: Annotated[
        str | None, Query(max_length=256, pattern=NAME, description="Only this AP-1 model.")
    ] = None,
    verdict: Annotated[
        str | None, Query(max_length=64, pattern=NAME, description="Only this verdict.")
    ] = None,
    clause: Annotated[
        str | None,
        Query(pattern="^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$", description="Only reports of this clause."),
    ] = None,
    current: Annotated[bool, Query(description="Leave out superseded entries.")] = False,
    after: Annotated[int, Query(ge=0, description="Only entries after this number.")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many entries.")] = 100,
) -> JsonResponse:
    query = {
        "kind": None if kind is None else ResultKind(kind).value,
        "implementation": implementation,
        "version": version,
        "protocol": None if protocol is None else Protocol(protocol).value,
        "model": model,
        "verdict": verdict,
        "clause": clause,
        "current": current,
        "after": after,
        "limit": limit,
    }
    return JsonResponse(await offload(request, _list, _service(request), query))


def _fetch(service: LedgerService, ref: str) -> dict[str, Any]:
    ledger = service.ledger()
    stored = ledger.entry(ref)
    document = ledger.document(stored.entry["claim"]["documentSha256"])
    return {"entrySha256": stored.digest, "entry": stored.entry, "document": document}


@router.get(
    "/v1/ledger/entries/{ref}",
    tags=["ledger"],
    operation_id="ledger_fetch",
    summary="One entry with its document (by number or digest prefix)",
    **route_doc(answer=LedgerRecord, statuses=(404, *PARAMETER_STATUSES)),
)
async def fetch(
    request: Request,
    ref: Annotated[
        str, Path(pattern=REF, description="The entry's number or (8+ hex of) its digest.")
    ],
) -> JsonResponse:
    return JsonResponse(await offload(request, _fetch, _service(request), ref))


def _matrix(service: LedgerService, protocol: str) -> dict[str, Any]:
    from apconform.ledger import build_matrix

    return build_matrix(service.ledger(), protocol)


@router.get(
    "/v1/ledger/matrix/{protocol}",
    tags=["ledger"],
    operation_id="ledger_matrix",
    summary="Implementations x clauses of one protocol, from each one's latest current report",
    **route_doc(answer=LedgerMatrix, statuses=PARAMETER_STATUSES),
)
async def matrix(
    request: Request, protocol: Annotated[Protocol, Path(description="The protocol.")]
) -> JsonResponse:
    value = Protocol(protocol).value
    return JsonResponse(await offload(request, _matrix, _service(request), value))


def add_ledger_routes(target: APIRouter) -> None:
    """Put the ledger routes directly on ``target`` (the application's own router)."""
    target.routes.extend(router.routes)
