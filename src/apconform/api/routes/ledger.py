"""Ledger routes, mounted only when the server has a ledger (``apconform serve --ledger``).

A submitted result is checked completely before anything is stored: the
claim's schema and signature (against the trusted keys, unless the operator
chose open submission; unsigned claims only when the operator allows them),
its creation time, the document against its kind, and the document's digest.
Each append is one database transaction under the ledger's append lock, in
which the ledger's admission rules run (the same claim again is answered
with its entry; an older result cannot become the latest; under open
submission a subject stays with the key that signed it), so submissions
arriving at several workers at once still form one linear chain. The served
API description states the server's trust decision.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.routing import APIRoute
from starlette.requests import Request

from apconform.api.example_store import stored
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
from apconform.ledger.entry import MAX_SEQ
from apconform.models.conformance import Protocol
from apconform.models.ledger import (
    LedgerEntryList,
    LedgerEntrySummary,
    LedgerMatrix,
    LedgerRecord,
    LedgerSubmission,
    ResultKind,
)

__all__ = ["LEDGER_TAG", "add_ledger_routes", "state_policy"]

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
    from apconform.ledger.recording import submit_result

    return submit_result(
        service.ledger,
        value,
        trusted_keys=None if service.open_submission else service.trusted_keys,
        require_signature=not service.allow_unsigned,
        admission=service.admission(),
    )


@router.post(
    "/v1/ledger/entries",
    tags=["ledger"],
    operation_id="ledger_submit",
    summary="Submit a result (a signed claim and its document) to the ledger",
    description=(
        "The claim is verified before anything is stored: its schema, its signature (a "
        "signer among the server's trusted keys, or any signer on a server with open "
        "submission; an unsigned claim only when the server allows it), its `createdAt` (at "
        "most 5 minutes ahead of the server's clock: APC-LEDGER-CREATED), the document "
        "against its kind, and the document's canonical SHA-256 against the claim. Then, "
        "under the ledger's append lock: a claim the ledger already holds is answered with "
        "its entry and nothing is appended (a retried or replayed submission); the same "
        "document under another claim is refused (409 APC-LEDGER-DUPLICATE); a result older "
        "than the latest current result of its kind and subject is refused unless it "
        "supersedes that result (409 APC-LEDGER-STALE); on a server with open submission, a "
        "subject whose results another key signed is refused unless the signer is a trusted "
        "key (409 APC-LEDGER-BOUND). The answer is the entry: the new one, or the one that "
        "already held the claim. The server's trust decision is stated in this document's "
        "description."
    ),
    **route_doc(
        answer=LedgerEntrySummary,
        statuses=(409, *BODY_STATUSES),
        body=model_ref(LedgerSubmission),
        answer_description="The entry the result was appended as, or the entry that already "
        "held the same claim.",
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
    description=(
        "A summary of each entry (number, digest, previous digest, time, kind, subject, "
        "implementation, verdict, the document's digest and the entries that supersede it), "
        "oldest first, narrowed by every filter given, at most `limit` after entry `after`; "
        "and the ledger's head, so a client can page and later ask only for what is new."
    ),
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
    after: Annotated[
        int, Query(ge=0, le=MAX_SEQ, description="Only entries after this number.")
    ] = 0,
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
    description=(
        "The entry as it is chained (its RFC 8785 bytes hash to `entrySha256`) with the "
        "document it records: the line `apconform ledger export` writes for it. `ref` is the "
        "entry's number (`7` or `#7`) or at least 8 hex digits of its digest; 404 when no entry "
        "has it, or when a digest prefix is shared by several entries."
    ),
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
    description=(
        "One column per implementation and version, from its latest conformance report that no "
        "later entry supersedes; one row per clause of the protocol with each column's outcome. "
        "A protocol no report covers is answered with no columns."
    ),
    **route_doc(answer=LedgerMatrix, statuses=PARAMETER_STATUSES),
)
async def matrix(
    request: Request, protocol: Annotated[Protocol, Path(description="The protocol.")]
) -> JsonResponse:
    value = Protocol(protocol).value
    return JsonResponse(await offload(request, _matrix, _service(request), value))


@cache
def _examples() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Per operation id, its named request examples and the answers to them (200).

    Two results are submitted to a new ledger whose clock reads the example time: the APx result
    of the ledger-submission example, then the example check of the reference implementation
    (both unsigned and dated at the example time, as a server started with --open-submission
    --allow-unsigned takes them). The list, the first entry and the kit matrix are then what
    that ledger answers.
    """
    from apconform.api.example_runs import (
        REPORT_VECTORS,
        example_moment,
        example_report,
        run_example,
        scratch,
    )
    from apconform.ledger.claim import prepare
    from apconform.results import ResultKind

    found = run_example("ledger-submission")
    assert found is not None  # an example run makes it from a shipped vector
    records = example_report()
    moment = example_moment()
    report = prepare(ResultKind.CONFORMANCE_REPORT, records, created_at=moment)
    submissions = {
        found[0]: found[1],
        f"check-of-{len(REPORT_VECTORS)}-vectors": {"claim": report.claim, "document": records},
    }
    with scratch() as folder:
        service = LedgerService(
            str(folder / "ledger.db"),
            allow_unsigned=True,
            open_submission=True,
            clock=lambda: moment,
        )
        submitted = {name: _submit(service, value) for name, value in submissions.items()}
        query: dict[str, Any] = dict.fromkeys(
            ("kind", "implementation", "version", "protocol", "model", "verdict", "clause")
        )
        query.update(current=False, after=0, limit=100)
        examples = {
            "ledger_submit": (submissions, submitted),
            "ledger_list": ({}, {"everything": _list(service, query)}),
            "ledger_fetch": ({}, {"1": _fetch(service, "1")}),
            "ledger_matrix": ({}, {"kit": _matrix(service, "kit")}),
        }
        service.ledger().close()
    return examples


def add_ledger_routes(target: APIRouter) -> None:
    """Put the ledger routes directly on ``target`` (the application's own router).

    The examples are filled in here, not when the module is imported: they are made by running
    a ledger (see :func:`_examples`).
    """
    examples = stored("ledger", _examples)  # from the generated file (api.example_store)
    for route in router.routes:
        if isinstance(route, APIRoute) and route.operation_id in examples:
            requests, answers = examples[route.operation_id]
            if requests and route.openapi_extra is not None:
                body = route.openapi_extra["requestBody"]["content"]["application/json"]
                body["examples"] = {name: {"value": value} for name, value in requests.items()}
            media = next(iter(route.responses[200]["content"].values()))
            media["examples"] = {name: {"value": value} for name, value in answers.items()}
    target.routes.extend(router.routes)


def state_policy(document: dict[str, Any], service: LedgerService) -> None:
    """Say in the served OpenAPI document which results this server's ledger accepts."""
    policy = service.policy()
    info = dict(document.get("info", {}))  # copies: the parts may be shared with other apps
    info["description"] = f"{info.get('description', '').rstrip()}\n\n{policy}\n".lstrip()
    document["info"] = info
    document["tags"] = [
        {**tag, "description": f"{tag['description']} {policy}"}
        if tag.get("name") == LEDGER_TAG["name"]
        else tag
        for tag in document.get("tags", [])
    ]
