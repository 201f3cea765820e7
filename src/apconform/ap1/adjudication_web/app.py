"""The adjudication application: a page and a small JSON API over one run's workspace.

Every route is a thin face over :class:`AdjudicationWorkspace` (the stores,
reconciliation) and the run's evidence; every refusal is a problem document
with the kit's stable code, and every request the application does not expect
(another host name, a cross-site origin, a body that is not JSON) is refused
before it reaches the workspace. The page and its two files are served from
the package, with a Content-Security-Policy that lets the browser load nothing
from anywhere else.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field
from starlette.middleware.base import RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response

from apconform.ap1.scoring.adjudication.evidence import RunEvidence, run_evidence
from apconform.ap1.scoring.adjudication.importing import import_adjudication
from apconform.ap1.scoring.adjudication.marks import ITEM_UNKNOWN, CompletenessJson, mark_state
from apconform.ap1.scoring.adjudication.store import SCORER_REFUSED
from apconform.ap1.scoring.adjudication.workspace import (
    RUN_NOT_READY,
    SLOTS,
    AdjudicationWorkspace,
)
from apconform.ap1.scoring.files import ADJUDICATION_FILE
from apconform.ap1.scoring.rows import Disagreement, RowEvidence
from apconform.api.app import add_problem_handlers
from apconform.api.guard import RequestGuard, request_id_of
from apconform.api.problems import (
    CONTENT_TYPE,
    NOT_FOUND,
    PROBLEM_MEDIA_TYPE,
    REQUEST,
    dump_json,
    problem_body,
)
from apconform.api.settings import ApiSettings
from apconform.core.errors import ApconformError
from apconform.core.signing import Ed25519Key

__all__ = ["Desk", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"
_ASSETS = {
    "adjudicate.js": "text/javascript; charset=utf-8",
    "adjudicate.css": "text/css; charset=utf-8",
}
_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HOSTS = ("127.0.0.1", "localhost")


class ScorerState(TypedDict):
    slot: int
    started: bool
    done: bool


class ReconciliationState(TypedDict):
    opened: bool
    ready: bool


class Session(TypedDict):
    """The run served and where each scorer and the reconciliation stand."""

    sealHash: str
    rows: int
    integrity: str
    fixedScorer: str | None
    signed: bool
    scorers: list[ScorerState]
    reconciliation: ReconciliationState
    merged: bool


class Claimed(TypedDict):
    slot: int
    name: str


class Progress(CompletenessJson):
    complete: bool


class OrderEntry(TypedDict):
    rowId: str
    dimension: str
    state: str


class Items(TypedDict):
    """A scorer's rows in their order, with the state of each mark."""

    slot: int
    name: str
    closed: bool
    order: list[OrderEntry]
    progress: Progress
    resume: str


class Item(TypedDict):
    """One row's evidence and the scorer's mark on it."""

    position: int
    count: int
    evidence: RowEvidence
    mark: dict[str, str]


class Marked(TypedDict):
    rowId: str
    mark: dict[str, str]
    written: bool
    state: str
    records: int
    progress: Progress


class ReconciliationRow(Disagreement):
    """A disagreement with the texts the reconciler needs beside it."""

    itemId: str
    question: str
    response: str
    expectedValue: str
    rubric: list[str]
    accuracyMarks: list[str]


class Reconciliation(TypedDict):
    scorers: list[str]
    disagreements: list[ReconciliationRow]
    settled: int
    agreement: list[dict[str, Any]]
    """The merged document's agreement entries, each disagreement list given as its length."""
    merged: bool


class Settled(TypedDict):
    rowId: str
    settled: dict[str, str]


class Merged(TypedDict):
    path: str
    report: str
    merged: dict[str, Any]
    """The merged adjudication document."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ClaimBody(_Body):
    name: str = Field(min_length=1, max_length=200)


class MarkBody(_Body):
    name: str = Field(min_length=1, max_length=200)
    mark: dict[str, object]
    """The mark as the page sends it (checked member by member when it is stored)."""


class SettleBody(_Body):
    outcome: str = ""
    accuracy: str = ""
    settledBy: str = Field(default="", max_length=200)
    reason: str = Field(default="", max_length=4000)


class MergeBody(_Body):
    """No members: the merge takes everything from the stores."""


class Desk:
    """The served run: its workspace, its evidence, and the one scorer a server may be fixed to."""

    def __init__(
        self, run_dir: Path, *, scorer: str | None = None, signing_key: Ed25519Key | None = None
    ) -> None:
        self.run_dir = run_dir
        self.fixed = scorer.strip() if scorer is not None else None
        self.signing_key = signing_key
        self.lock = threading.RLock()
        self.workspace = AdjudicationWorkspace.open(run_dir, signing_key=signing_key)
        self.evidence: RunEvidence = run_evidence(run_dir)
        if set(self.evidence.items) != set(self.workspace.rows):
            raise ApconformError(
                RUN_NOT_READY,
                f"the sheets in {run_dir / 'report'} do not match the run's transcript: "
                "score the run again (apconform ap1 score RUN_DIR)",
            )
        if self.fixed is not None:
            self.workspace.claim(self.fixed)

    def _slot(self, slot: int, name: str) -> None:
        if self.fixed is not None and name != self.fixed:
            raise ApconformError(
                SCORER_REFUSED, f"this server serves {self.fixed!r} only, not {name!r}"
            )
        self.workspace.scorer(slot, name)

    def _row(self, row_id: str) -> None:
        if row_id not in self.workspace.rows:
            raise ApconformError(ITEM_UNKNOWN, f"{row_id!r} is not a row of this run")

    def _reconciler(self) -> None:
        if self.fixed is not None:
            raise ApconformError(
                SCORER_REFUSED,
                f"this server serves {self.fixed!r} only; reconciliation is on a server started "
                "without --scorer",
            )

    def _merged(self) -> bool:
        return (self.run_dir / ADJUDICATION_FILE).exists()

    def session(self) -> Session:
        with self.lock:
            self.workspace.refresh()
            ws = self.workspace
            scorers: list[ScorerState] = []
            for slot in SLOTS:
                store = ws.stores[slot]
                scorers.append(
                    {
                        "slot": slot,
                        "started": store.exists,
                        "done": store.exists and ws.progress(slot).complete,
                    }
                )
            return {
                "sealHash": self.evidence.seal_hash,
                "rows": len(ws.rows),
                "integrity": self.evidence.integrity,
                "fixedScorer": self.fixed,
                "signed": self.signing_key is not None,
                "scorers": scorers,
                "reconciliation": {"opened": ws.reconciliation.exists, "ready": ws.both_done()},
                "merged": self._merged(),
            }

    def claim(self, name: str) -> Claimed:
        with self.lock:
            self.workspace.refresh()
            name = name.strip()
            if self.fixed is not None and name != self.fixed:
                raise ApconformError(
                    SCORER_REFUSED, f"this server serves {self.fixed!r} only, not {name!r}"
                )
            return {"slot": self.workspace.claim(name), "name": name}

    def _progress(self, slot: int) -> Progress:
        progress = self.workspace.progress(slot)
        return {**progress.to_json(), "complete": progress.complete}

    def items(self, slot: int, name: str) -> Items:
        with self.lock:
            self.workspace.refresh()
            self._slot(slot, name)
            ws = self.workspace
            store = ws.stores[slot]
            order = ws.order(slot)
            return {
                "slot": slot,
                "name": name,
                "closed": ws.reconciliation.exists,
                "order": [
                    {
                        "rowId": r,
                        "dimension": ws.rows[r],
                        "state": mark_state(ws.rows[r], store.mark(r)),
                    }
                    for r in order
                ],
                "progress": self._progress(slot),
                "resume": store.last_row or order[0],
            }

    def item(self, slot: int, name: str, row_id: str) -> Item:
        with self.lock:
            self.workspace.refresh()
            self._slot(slot, name)
            self._row(row_id)
            order = self.workspace.order(slot)
            return {
                "position": order.index(row_id) + 1,
                "count": len(order),
                "evidence": self.evidence.items[row_id],
                "mark": dict(self.workspace.stores[slot].mark(row_id)),
            }

    def mark(self, slot: int, name: str, row_id: str, raw: dict[str, object]) -> Marked:
        with self.lock:
            self.workspace.refresh()
            self._slot(slot, name)
            self._row(row_id)
            entry, written = self.workspace.put_mark(slot, name, row_id, raw)
            return {
                "rowId": row_id,
                "mark": entry,
                "written": written,
                "state": mark_state(self.workspace.rows[row_id], entry),
                "records": self.workspace.stores[slot].records,
                "progress": self._progress(slot),
            }

    def open_reconciliation(self) -> Reconciliation:
        with self.lock:
            self.workspace.refresh()
            self._reconciler()
            self.workspace.open_reconciliation()
            return self.reconciliation()

    def reconciliation(self) -> Reconciliation:
        with self.lock:
            self.workspace.refresh()
            self._reconciler()
            ws = self.workspace
            disagreements: list[ReconciliationRow] = []
            for d in ws.disagreements():
                evidence = self.evidence.items[d["rowId"]]
                disagreements.append(
                    {
                        **d,
                        "itemId": evidence["itemId"],
                        "question": evidence["question"],
                        "response": evidence["response"],
                        "expectedValue": evidence["expectedValue"],
                        "rubric": evidence["rubric"],
                        "accuracyMarks": evidence["accuracyMarks"],
                    }
                )
            preview = ws.preview()
            return {
                "scorers": [s["name"] for s in preview["scorers"]],
                "disagreements": disagreements,
                "settled": sum(1 for d in disagreements if d["settled"] is not None),
                "agreement": [
                    {k: v for k, v in a.items() if k != "disagreements"}
                    | {"disagreements": len(a["disagreements"])}
                    for a in preview["agreement"]
                ],
                "merged": self._merged(),
            }

    def settle(self, row_id: str, body: SettleBody) -> Settled:
        with self.lock:
            self.workspace.refresh()
            self._reconciler()
            self._row(row_id)
            entry = self.workspace.settle(row_id, body.model_dump())
            return {"rowId": row_id, "settled": entry}

    def merge(self) -> Merged:
        with self.lock:
            self.workspace.refresh()
            self._reconciler()
            ws = self.workspace
            if not ws.reconciliation.exists:
                ws.open_reconciliation()
            imported = import_adjudication(self.run_dir, sheets={}, names={})
            self.workspace = AdjudicationWorkspace.open(self.run_dir, signing_key=self.signing_key)
            return {
                "path": str(imported.path),
                "report": str(imported.scored.output_dir / "report.html"),
                "merged": imported.merged,
            }


def _json(value: object, status: int = 200) -> Response:
    return Response(
        dump_json(value),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def _problem(request: Request, error: ApconformError) -> Response:
    status, body = problem_body(error, request_id_of(request.scope))
    return Response(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE)


@cache
def _asset(name: str) -> bytes:
    return (STATIC / name).read_bytes()


def _page(name: str, media_type: str) -> Response:
    return Response(
        _asset(name),
        media_type=media_type,
        headers={
            "Content-Security-Policy": _POLICY,
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
        },
    )


def create_app(desk: Desk, settings: ApiSettings | None = None) -> FastAPI:
    """The application over ``desk``: the page, its assets and the JSON routes."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    add_problem_handlers(
        app, not_found_hint="Open the application at / ; its routes start with /api/."
    )

    @app.middleware("http")
    async def same_origin(request: Request, call_next: RequestResponseEndpoint) -> Response:
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
        if host not in _HOSTS:
            return _problem(
                request,
                ApconformError(
                    REQUEST,
                    f"the Host {host!r} is not this machine's",
                    hint="Open the application at the 127.0.0.1 address it printed.",
                ),
            )
        origin = request.headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1].rsplit(":", 1)[0] not in _HOSTS:
            return _problem(
                request,
                ApconformError(REQUEST, f"requests from {origin!r} are not accepted"),
            )
        if request.method in ("POST", "PUT"):
            kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                return _problem(
                    request,
                    ApconformError(CONTENT_TYPE, f"the body is declared as {kind or 'nothing'}"),
                )
        response: Response = await call_next(request)
        return response

    @app.get("/", include_in_schema=False)
    def index() -> Response:
        return _page("index.html", "text/html; charset=utf-8")

    @app.get("/static/{name}", include_in_schema=False)
    def asset(name: str) -> Response:
        if name not in _ASSETS:
            raise ApconformError(NOT_FOUND, f"no file {name!r} is served")
        return _page(name, _ASSETS[name])

    @app.get("/api/session")
    def session() -> Response:
        return _json(desk.session())

    @app.post("/api/scorers")
    def claim(body: ClaimBody) -> Response:
        return _json(desk.claim(body.name))

    @app.get("/api/scorers/{slot}/items")
    def items(slot: int, name: str) -> Response:
        return _json(desk.items(slot, name))

    @app.get("/api/scorers/{slot}/items/{row_id}")
    def item(slot: int, row_id: str, name: str) -> Response:
        return _json(desk.item(slot, name, row_id))

    @app.put("/api/scorers/{slot}/marks/{row_id}")
    def mark(slot: int, row_id: str, body: MarkBody) -> Response:
        return _json(desk.mark(slot, body.name, row_id, body.mark))

    @app.post("/api/reconciliation")
    def open_reconciliation() -> Response:
        return _json(desk.open_reconciliation())

    @app.get("/api/reconciliation")
    def reconciliation() -> Response:
        return _json(desk.reconciliation())

    @app.put("/api/reconciliation/settlements/{row_id}")
    def settle(row_id: str, body: SettleBody) -> Response:
        return _json(desk.settle(row_id, body))

    @app.post("/api/reconciliation/merge")
    def merge(body: MergeBody) -> Response:
        return _json(desk.merge())

    app.add_middleware(RequestGuard, settings=settings or ApiSettings(request_timeout=120.0))
    return app
