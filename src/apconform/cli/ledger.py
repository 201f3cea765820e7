"""`apconform ledger list|show|verify|info|diff|export|import|record|submission|site`.

Thin over :mod:`apconform.ledger`: each command opens the ledger named by
--ledger (or ``APCONFORM_LEDGER``), calls one library function and prints.
Exit statuses: 0 done, 1 a broken chain or a regression (verify, diff, site)
or a refused result, 2 usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apconform.cli.convention import format_names

if TYPE_CHECKING:
    from apconform.core.signing import Ed25519Key
    from apconform.results import ResultKind

__all__ = ["register"]


def _open(args: argparse.Namespace, *, create: bool = False) -> Any:
    from apconform.ledger.store import Ledger

    return Ledger.open(args.ledger, create=create)


def _dump(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _cmd_list(args: argparse.Namespace) -> int:
    from apconform.ledger.presentation import summary_line
    from apconform.ledger.store import EntryFilter

    where = EntryFilter(
        kind=args.kind,
        implementation=args.implementation,
        version=args.version,
        protocol=args.protocol,
        model=args.model,
        verdict=args.verdict,
        clause=args.clause,
        current=args.current,
    )
    with _open(args) as ledger:
        summaries = ledger.summaries(where, limit=args.limit, after=args.after)
        head = ledger.head()
    if args.format == "json":
        _dump(
            {
                "count": len(summaries),
                "headSeq": head.seq,
                "headSha256": head.digest,
                "entries": summaries,
            }
        )
        return 0
    for summary in summaries:
        print(summary_line(summary))
    print(f"{len(summaries)} entries shown; head: entry {head.seq} {head.digest or ''}".rstrip())
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from apconform.ledger.presentation import entry_lines

    with _open(args) as ledger:
        stored = ledger.entry(args.entry)
        if args.document:
            _dump(ledger.document(stored.entry["claim"]["documentSha256"]))
            return 0
    if args.format == "json":
        _dump({"entrySha256": stored.digest, "entry": stored.entry})
    else:
        print("\n".join(entry_lines(stored.entry, stored.digest)))
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from apconform.ledger.chain import verify_ledger
    from apconform.ledger.presentation import verification_text

    with _open(args) as ledger:
        report = verify_ledger(ledger, trusted_keys=args.trusted_key, anchors=args.anchor or ())
        where = ledger.location.display()
    document = report.to_dict()
    if args.format == "json":
        _dump(document)
    else:
        sys.stdout.write(verification_text(document, where))
    return 0 if report.intact else 1


def _cmd_info(args: argparse.Namespace) -> int:
    from apconform.ledger.info import ALEMBIC_CONFIG, describe_ledger

    if args.alembic_config:
        print(ALEMBIC_CONFIG)
        return 0
    info = describe_ledger(args.ledger)
    if args.format == "json":
        _dump(info)
        return 0
    for key in ("location", "backend", "schemaRevision", "releaseRevision", "headSeq"):
        print(f"{key:<16} {info[key]}")
    print(f"{'headSha256':<16} {info['headSha256'] or '(empty)'}")
    print(f"{'entries':<16} {info['entries']} ({info['documents']} documents)")
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from apconform.ledger.review import diff_entries
    from apconform.results import render_diff_text

    with _open(args) as ledger:
        diff = diff_entries(ledger, args.before, args.after)
    if args.format == "json":
        _dump(diff)
    else:
        sys.stdout.write(render_diff_text(diff))
    return 1 if diff["regression"] else 0


def _cmd_export(args: argparse.Namespace) -> int:
    from apconform.ledger.exchange import export_records

    with _open(args) as ledger:
        if args.output in (None, "-"):
            count = export_records(ledger, sys.stdout, since=args.since)
        else:
            target = Path(args.output)
            temporary = target.with_name(target.name + ".partial")
            with temporary.open("w", encoding="utf-8") as handle:
                count = export_records(ledger, handle, since=args.since)
            temporary.replace(target)
    sys.stderr.write(f"exported {count} entries\n")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from apconform.ledger.exchange import import_records, read_export

    lines = read_export(args.file)
    with _open(args, create=True) as ledger:
        summary = import_records(ledger, lines, rechain=args.rechain, trusted_keys=args.trusted_key)
    how = "appended anew (rechained)" if summary.rechained else "appended byte for byte"
    print(
        f"read {summary.read} records: {summary.appended} {how}, {summary.skipped} already "
        f"present; head: entry {summary.head.seq} {summary.head.digest}"
    )
    return 0


def _result(args: argparse.Namespace) -> tuple[ResultKind, object, Ed25519Key | None]:
    """The result file's kind and document, and the signing key (--key), if any."""
    from apconform.core.signing import load_signing_key
    from apconform.results import read_result

    kind, document = read_result(Path(args.file))
    key = load_signing_key(Path(args.key)) if args.key else None
    return kind, document, key


def _cmd_record(args: argparse.Namespace) -> int:
    from apconform.ledger.recording import record_result

    kind, document, key = _result(args)
    recorded = record_result(
        args.ledger, kind, document, key=key, supersedes=args.supersedes or (), reason=args.reason
    )
    if recorded.entry is not None:  # always: without keep_once a duplicate is refused
        print(f"recorded as entry {recorded.entry.seq} ({recorded.entry.digest})")
    return 0


def _cmd_submission(args: argparse.Namespace) -> int:
    from apconform.ledger.claim import prepare

    kind, document, key = _result(args)
    submission = prepare(
        kind, document, key=key, supersedes=args.supersedes or [], reason=args.reason
    )
    _dump({"claim": submission.claim, "document": submission.document})
    return 0


def _cmd_site(args: argparse.Namespace) -> int:
    from apconform.site import write_site

    with _open(args) as ledger:
        written = write_site(
            ledger,
            Path(args.output),
            trusted_keys=args.trusted_key,
            anchors=args.anchor or (),
            publish_broken=args.publish_broken,
        )
    print(f"wrote {written.pages} pages to {written.folder}; open {written.index}")
    if written.findings:
        sys.stderr.write(
            f"the ledger does not verify ({written.findings} findings); every page says so\n"
        )
        return 1
    return 0


def _entry_number(text: str) -> int:
    from apconform.ledger.entry import MAX_SEQ

    if not text.isdigit() or int(text) > MAX_SEQ:
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not an entry number (0 to {MAX_SEQ})")
    return int(text)


def _ledger_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ledger",
        metavar="PATH-OR-URL",
        help="the ledger: an SQLite file or a postgresql+psycopg:// URL (default: "
        "$APCONFORM_LEDGER)",
    )


def _format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=format_names("text", "json"), default="text")


def register(subparsers: Any) -> None:
    """Add the ``ledger`` command group."""
    group = subparsers.add_parser(
        "ledger",
        help="the results ledger: list, show, verify, diff, export, import, record, site",
        description="An append-only, hash-chained store of results (SQLite or PostgreSQL).",
    )
    commands = group.add_subparsers(dest="ledger_command", metavar="COMMAND")
    group.set_defaults(handler=lambda _args: (group.print_help(), 2)[1])

    listing = commands.add_parser("list", help="list entries, oldest first")
    _ledger_option(listing)
    for name in ("kind", "implementation", "version", "protocol", "model", "verdict", "clause"):
        listing.add_argument(f"--{name}", help=f"only entries with this {name}")
    listing.add_argument("--current", action="store_true", help="leave out superseded entries")
    listing.add_argument("--limit", type=_entry_number, help="at most this many entries")
    listing.add_argument(
        "--after", type=_entry_number, default=0, help="only entries after this number"
    )
    _format_option(listing)
    listing.set_defaults(handler=_cmd_list)

    show = commands.add_parser("show", help="one entry (by number or digest prefix)")
    _ledger_option(show)
    show.add_argument("entry", help="the entry's number or (a prefix of) its digest")
    show.add_argument("--document", action="store_true", help="print the result document instead")
    _format_option(show)
    show.set_defaults(handler=_cmd_show)

    verify = commands.add_parser(
        "verify", help="walk the chain, the documents and the signatures; exit 1 if broken"
    )
    _ledger_option(verify)
    verify.add_argument(
        "--trusted-key", action="append", help="require every entry signed by one of these keys"
    )
    verify.add_argument(
        "--anchor", action="append", metavar="SHA256", help="a digest that must be in the chain"
    )
    _format_option(verify)
    verify.set_defaults(handler=_cmd_verify)

    info = commands.add_parser(
        "info", help="backend, schema revision, head and entry count (reads nothing else)"
    )
    _ledger_option(info)
    info.add_argument(
        "--alembic-config",
        action="store_true",
        help="print the path of the Alembic configuration of the ledger's migrations",
    )
    _format_option(info)
    info.set_defaults(handler=_cmd_info)

    diff = commands.add_parser(
        "diff", help="compare two entries' results (as `report diff`); exit 1 on a regression"
    )
    _ledger_option(diff)
    diff.add_argument("before", help="the earlier entry")
    diff.add_argument("after", help="the later entry")
    _format_option(diff)
    diff.set_defaults(handler=_cmd_diff)

    export = commands.add_parser("export", help="write the entries as JSON lines")
    _ledger_option(export)
    export.add_argument("--output", help="file to write (default: standard output)")
    export.add_argument(
        "--since", type=_entry_number, default=1, help="first entry number (default 1)"
    )
    export.set_defaults(handler=_cmd_export)

    importing = commands.add_parser("import", help="append the entries of an export")
    _ledger_option(importing)
    importing.add_argument("file", help="an export (JSON lines), or - for standard input")
    importing.add_argument(
        "--rechain",
        action="store_true",
        help="append into a ledger with another history (new entries, origin recorded)",
    )
    importing.add_argument("--trusted-key", action="append", help="require these signers")
    importing.set_defaults(handler=_cmd_import)

    for name, handler, text in (
        ("record", _cmd_record, "append a result file (a correction with --supersedes)"),
        ("submission", _cmd_submission, "print a signed submission for the API's submit route"),
    ):
        command = commands.add_parser(name, help=text)
        if name == "record":
            _ledger_option(command)
        command.add_argument("file", help="a conformance report, AP-1 score report or APx result")
        command.add_argument("--key", metavar="KEYFILE", help="sign the claim with this key")
        command.add_argument(
            "--supersedes",
            action="append",
            metavar="ENTRY" if name == "record" else "SHA256",
            help="an entry this result corrects (repeatable; give --reason too)",
        )
        command.add_argument("--reason", help="why the superseded entries are corrected")
        command.set_defaults(handler=handler)

    site = commands.add_parser(
        "site", help="verify the ledger, then write the offline results site"
    )
    _ledger_option(site)
    site.add_argument("output", help="the folder to write (replaced if it holds an earlier site)")
    site.add_argument(
        "--trusted-key", action="append", help="require every entry signed by one of these keys"
    )
    site.add_argument(
        "--anchor", action="append", metavar="SHA256", help="a digest that must be in the chain"
    )
    site.add_argument(
        "--publish-broken",
        action="store_true",
        help="write the site even if the ledger does not verify, with a banner naming the "
        "broken entry on every page (exit 1)",
    )
    site.set_defaults(handler=_cmd_site)
