"""`apconform ap1 adjudicate import | serve | status | export | load`: human adjudication.

Thin over ``apconform.ap1.scoring.adjudication`` (the marks, the stores, the
merge) and ``apconform.ap1.adjudication_web`` (the browser application).
"""

from __future__ import annotations

import argparse
import contextlib
import re
from pathlib import Path
from typing import Any

__all__ = ["register_adjudication"]

_SHEET_LIMIT = 64 * 1024 * 1024
"""The largest filled-in sheet read (a sheet of 100,000 rows is some 30 MiB)."""
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def _read_sheet(path: str | None, what: str) -> bytes | None:
    from apconform.core.files import read_file

    return None if path is None else read_file(path, max_bytes=_SHEET_LIMIT, what=what)


def _signing_key(path: str | None) -> Any:
    from apconform.core.signing import load_signing_key

    return None if path is None else load_signing_key(Path(path))


def _print_agreement(merged: dict[str, Any]) -> None:
    for scorer in merged["scorers"]:
        incomplete = int(scorer["rows"]) - int(scorer["marked"])
        print(
            f"scorer {scorer['scorer']} ({scorer['name']}): {scorer['marked']} of "
            f"{scorer['rows']} row(s) marked"
            + (
                f", {incomplete} NOT fully marked ({scorer['unmarked']} unmarked, "
                f"{scorer['partlyMarked']} partly): merged as asked (--accept-unmarked)"
                if incomplete
                else ""
            )
        )
    for agreement in merged["agreement"]:
        kappa = agreement["kappa"] if agreement["kappa"] is not None else "undefined"
        interval = agreement["kappaInterval"]
        ci = f" (95% CI {interval['lower']} to {interval['upper']})" if interval else ""
        print(
            f"{agreement['measure']}: n {agreement['n']}, "
            f"raw agreement {agreement['rawAgreement']}, "
            f"Cohen's kappa {kappa}{ci}, {len(agreement['disagreements'])} disagreement(s)"
            + (f" ({agreement['caveat']})" if agreement["caveat"] else "")
        )
        for d in agreement["disagreements"]:
            settled = f"; settled {d['settled']}" if d["settled"] else "; unsettled"
            print(
                f"  {d['rowId']} {d['cellKey']}: scorer 1 {d['scorer1']}, "
                f"scorer 2 {d['scorer2']}{settled}"
            )
    if merged["settledBy"]:
        print(f"disagreements settled by {', '.join(merged['settledBy'])}")


def _cmd_import(args: argparse.Namespace) -> int:
    from apconform.ap1.scoring.adjudication.importing import import_adjudication
    from apconform.cli.ap1.scoring import print_scored
    from apconform.core.errors import UsageError

    if args.completed is not None and not _TIMESTAMP.fullmatch(args.completed):
        raise UsageError(
            f"--completed {args.completed!r} is not an RFC 3339 time such as 2026-12-06T10:00:00Z"
        )
    imported = import_adjudication(
        Path(args.run_dir),
        sheets={
            1: _read_sheet(args.scorer_1, "a filled-in adjudication sheet"),
            2: _read_sheet(args.scorer_2, "a filled-in adjudication sheet"),
        },
        names={1: args.scorer_1_name, 2: args.scorer_2_name},
        settled=_read_sheet(args.settled, "a settlement sheet"),
        accept_unmarked=args.accept_unmarked,
        completed=args.completed,
    )
    _print_agreement(imported.merged)
    print(f"merged into {imported.path} (completed {imported.merged['completed']})")
    print_scored(imported.scored)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from apconform.ap1.adjudication_web import Desk, create_app, serve

    run_dir = Path(args.run_dir)
    desk = Desk(run_dir, scorer=args.scorer, signing_key=_signing_key(args.sign_with))
    who = f"scorer {args.scorer!r} only" if args.scorer else "both scorers and reconciliation"
    signed = f", every mark signed by {desk.signing_key.key_id}" if desk.signing_key else ""

    def ready(url: str) -> None:
        print(f"adjudication of {run_dir} on {url} ({who}{signed})")
        print("every mark is saved as it is made; stop with Ctrl-C", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        serve(create_app(desk), port=args.port, ready=ready)
    print("stopped", flush=True)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from apconform.ap1.scoring.adjudication.workspace import SLOTS, AdjudicationWorkspace

    workspace = AdjudicationWorkspace.open(Path(args.run_dir))
    print(f"{len(workspace.rows)} row(s) for two scorers; every store verifies")
    for slot in SLOTS:
        store = workspace.stores[slot]
        if not store.exists:
            print(f"scorer {slot}: not started")
            continue
        signer = f", signed by {store.signer}" if store.signer else ""
        print(
            workspace.progress(slot).sentence(f"scorer {slot} ({store.name})")
            + f"; {store.records} record(s), last {store.updated_at}{signer}"
        )
    reconciliation = workspace.reconciliation
    if reconciliation.exists:
        print(
            f"reconciliation opened {reconciliation.opened_at}: "
            f"{len(reconciliation.entries)} row(s) settled"
        )
    else:
        print("reconciliation: not opened")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from apconform.ap1.scoring.adjudication.exchange import export_sheets
    from apconform.ap1.scoring.adjudication.workspace import SLOTS, AdjudicationWorkspace
    from apconform.core.errors import ApconformError

    workspace = AdjudicationWorkspace.open(Path(args.run_dir))
    slots: tuple[int, ...] = SLOTS
    if args.scorer is not None:
        slot = workspace.slot_of(args.scorer)
        if slot is None:
            from apconform.ap1.scoring.adjudication.store import SCORER_REFUSED

            raise ApconformError(SCORER_REFUSED, f"no web store belongs to {args.scorer!r}")
        slots = (slot,)
    written = export_sheets(workspace, Path(args.output_dir), slots)
    for path in written:
        print(f"wrote {path}")
    if not written:
        print("nothing to export: no scorer has started in the web store")
    return 0


def _cmd_load(args: argparse.Namespace) -> int:
    from apconform.ap1.scoring.adjudication.exchange import load_sheet
    from apconform.ap1.scoring.adjudication.workspace import AdjudicationWorkspace

    workspace = AdjudicationWorkspace.open(
        Path(args.run_dir), signing_key=_signing_key(args.sign_with)
    )
    sheet = _read_sheet(args.sheet, "a filled-in adjudication sheet")
    assert sheet is not None
    slot, written = load_sheet(workspace, args.scorer, sheet)
    print(
        f"loaded {args.sheet} into scorer {slot}'s store ({args.scorer}): {written} row(s) changed"
    )
    print(workspace.progress(slot).sentence(f"scorer {slot} ({args.scorer})"))
    return 0


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0 picks one)")
    return int(text)


def register_adjudication(ap1_commands: Any, parser_class: Any) -> None:
    """Add `apconform ap1 adjudicate` with import, serve, status, export and load."""
    adjudicate = ap1_commands.add_parser("adjudicate", help="human adjudication of routed answers")
    commands = adjudicate.add_subparsers(
        dest="adjudicate_command", metavar="COMMAND", parser_class=parser_class
    )
    adjudicate.set_defaults(handler=lambda _args: (adjudicate.print_help(), 2)[1])
    imp = commands.add_parser(
        "import",
        help="merge two scorers' marks (sheets, the web store or both): agreement, kappa, "
        "agreed marks",
    )
    imp.add_argument("run_dir")
    imp.add_argument("--scorer-1", help="scorer 1's filled-in CSV (default: the web store)")
    imp.add_argument("--scorer-2", help="scorer 2's filled-in CSV (default: the web store)")
    imp.add_argument(
        "--scorer-1-name",
        help="scorer 1's name (for a sheet; default 'scorer 1'; a store has its own)",
    )
    imp.add_argument(
        "--scorer-2-name",
        help="scorer 2's name (for a sheet; default 'scorer 2'; a store has its own)",
    )
    imp.add_argument(
        "--settled",
        help="a settlement sheet of agreed marks (default: the web store's reconciliation)",
    )
    imp.add_argument(
        "--accept-unmarked",
        action="store_true",
        help="merge even though rows are unmarked or partly marked (the merge says so)",
    )
    imp.add_argument(
        "--completed",
        metavar="TIME",
        help="when the adjudication was completed, RFC 3339 (default: now)",
    )
    imp.set_defaults(handler=_cmd_import)

    serve = commands.add_parser(
        "serve", help="mark in the browser: two blind scorers, then reconciliation (127.0.0.1)"
    )
    serve.add_argument("run_dir")
    serve.add_argument(
        "--scorer",
        metavar="NAME",
        help="serve this scorer only (no reconciliation); default: both scorers, by name",
    )
    serve.add_argument("--port", type=_port, default=8765, help="TCP port (default 8765; 0: any)")
    serve.add_argument(
        "--sign-with", metavar="KEYFILE", help="sign every record of the store with this key"
    )
    serve.set_defaults(handler=_cmd_serve)

    status = commands.add_parser(
        "status", help="how far each scorer is (counts only), every store verified"
    )
    status.add_argument("run_dir")
    status.set_defaults(handler=_cmd_status)

    export = commands.add_parser(
        "export", help="write the web store's marks as filled-in sheets (and settled.csv)"
    )
    export.add_argument("run_dir")
    export.add_argument("--output-dir", required=True, help="a folder for the sheets")
    export.add_argument("--scorer", metavar="NAME", help="only this scorer's sheet")
    export.set_defaults(handler=_cmd_export)

    load = commands.add_parser("load", help="record a filled-in sheet's marks in the web store")
    load.add_argument("run_dir")
    load.add_argument("sheet", help="the filled-in CSV")
    load.add_argument("--scorer", metavar="NAME", required=True, help="whose marks they are")
    load.add_argument(
        "--sign-with", metavar="KEYFILE", help="the store's signing key, if it is signed"
    )
    load.set_defaults(handler=_cmd_load)
