"""`apconform check`, `apconform vectors verify|lint|list|show|coverage|manifest|diff`, `report`.

Thin over the library: parse arguments, call the runner or the auditors, write
the chosen formats, exit 0 only when everything required passed. `check` exits
1 when the implementation failed, 3 when the run was incomplete (MUST clause
branches never ran), 4 when it was stopped early (the implementation hung);
every command exits 2 for usage or input errors and 1 when a check found faults.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from apconform.cli.convention import add_format, format_names
from apconform.cli.shared import trust_arguments
from apconform.core.errors import UsageError

_REPORT_FORMATS = ("text", "json", "junit", "markdown", "html")
"""The formats a conformance report is written in, by `check` and by `report render` alike."""

__all__ = ["register"]

_PROTOCOLS = ("apx", "ap1", "kit")


def _vectors_root(args: argparse.Namespace) -> Path:
    from apconform.resources import data_path

    return Path(args.vectors) if args.vectors else data_path("vectors")


def _outputs(formats: list[str], outputs: list[str]) -> list[tuple[str, Path | None]]:
    if len(outputs) > len(formats):
        raise UsageError("more --output than --format values; give one --format per --output")
    pairs = [(fmt, Path(outputs[i]) if i < len(outputs) else None) for i, fmt in enumerate(formats)]
    if sum(1 for _, path in pairs if path is None) > 1:
        raise UsageError("only one format can go to standard output; give --output for the others")
    return pairs


def _cmd_check(args: argparse.Namespace) -> int:
    from apconform.cli.recording import record_result
    from apconform.conformance.reports.formats import render, sign_report, write_badges
    from apconform.conformance.reports.text import verdict_line
    from apconform.conformance.runner import CheckOptions, run_check
    from apconform.core.signing import load_signing_key

    pairs = _outputs(args.format or ["pretty"], args.output or [])
    key = load_signing_key(Path(args.sign_key)) if args.sign_key else None
    if key is not None and any(path is None for _, path in pairs):
        raise UsageError("--sign-key signs report files; give --output for every format")
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    options = CheckOptions(
        impl=args.impl,
        protocols=args.protocol or None,
        vectors_dir=Path(args.vectors) if args.vectors else None,
        only=[item for group in args.only or [] for item in group],
        xfail=Path(args.xfail) if args.xfail else None,
        timeout=args.timeout,
        validate_protocol=args.validate_protocol,
        trusted_keys=args.trusted_key or [],
        trust_file=Path(args.trust_file) if args.trust_file else None,
        stop_after_timeouts=args.stop_after_timeouts,
        environment=args.env or [],
    )
    run = run_check(options)
    signer = run.header["vectorManifestSigner"]
    version = run.header.get("vectorSetVersion") or "unversioned"
    sys.stderr.write(
        f"vectors: vector set {version}; the manifest signed by {signer['keyId']} verifies; "
        + (
            "verified against the kit's published TEST key (no trusted key was named)\n"
            if signer["trust"] == "published-test-key"
            else "verified against a key you named\n"
        )
    )
    for fmt, path in pairs:
        text = render(run.records, fmt)
        if path is None:
            sys.stdout.write(text)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        sys.stderr.write(f"wrote {fmt} report to {path}\n")
        if key is not None:
            sys.stderr.write(f"signed it: {sign_report(path, fmt, key)}\n")
    if args.badge:
        for path in write_badges(run.records, Path(args.badge)):
            sys.stderr.write(f"wrote badge {path}\n")
    record_result(args, "conformance-report", run.records)
    if ("pretty", None) not in pairs:  # the console always shows the verdict
        sys.stderr.write(verdict_line(run.records) + "\n")
    return run.exit_status


def _cmd_verify(args: argparse.Namespace) -> int:
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.manifest import verify_manifest

    root = _vectors_root(args)
    verified = verify_manifest(root, load_clause_registry(), anchors=_anchors(args))
    files = len(verified.document["files"])
    version = verified.document.get("vectorSetVersion") or "unversioned"
    print(
        f"{root}: vector set {version}; {files} files match the manifest signed by "
        f"{verified.key_id} "
        f"(manifest SHA-256 {verified.digest}); {verified.statement}"
    )
    return 0


def _anchors(args: argparse.Namespace) -> Any:
    from apconform.core.trust import trust_anchors

    return trust_anchors(args.trusted_key, args.trust_file)


def _cmd_lint(args: argparse.Namespace) -> int:
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.lint import lint_vectors

    vectors, findings = lint_vectors(
        _vectors_root(args), load_clause_registry(), protocols=args.protocol or None
    )
    if args.format == "json":
        findings_json = [
            {"file": f.file, "code": f.code, "path": f.path, "message": f.message} for f in findings
        ]
        print(json.dumps({"vectors": len(vectors), "findings": findings_json}, indent=2))
        return 1 if findings else 0
    for finding in findings:
        print(finding)
    print(f"{len(vectors)} vectors checked; {len(findings)} finding(s)")
    return 1 if findings else 0


def _cmd_coverage(args: argparse.Namespace) -> int:
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.coverage import clause_coverage, render_coverage
    from apconform.conformance.vectors import load_vectors

    clauses = load_clause_registry()
    vectors = load_vectors(_vectors_root(args), clauses=clauses)
    rows = clause_coverage(vectors, clauses, args.protocol or None)
    if args.format == "json":
        print(json.dumps([row.to_dict() for row in rows], indent=2))
    else:
        sys.stdout.write(render_coverage(rows, args.format))
    return 0 if all(row.ok for row in rows) else 1


def _cmd_list(args: argparse.Namespace) -> int:
    from apconform.conformance.catalogue import render_vector_list, select_vectors, vector_summary
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.operations import get_operation
    from apconform.conformance.vectors import load_vectors

    clauses = load_clause_registry()
    if args.operation is not None:
        get_operation(args.operation)  # an unknown name is refused, naming the known ones
    if args.clause is not None and clauses.get(args.clause) is None:
        raise UsageError(
            f"no clause {args.clause} in the clause registry",
            hint="Use an id from spec/clauses.json, such as KIT-LOAD-2.",
        )
    items = select_vectors(
        load_vectors(_vectors_root(args), clauses=clauses),
        operation=args.operation,
        clause=args.clause,
        protocol=args.protocol,
    )
    if args.format == "json":
        summaries = [vector_summary(item) for item in items]
        print(json.dumps({"count": len(items), "vectors": summaries}, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render_vector_list(items))
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from apconform.conformance.catalogue import render_vector_detail, vector_detail
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.vectors import load_vectors

    clauses = load_clause_registry()
    found = {item.id: item for item in load_vectors(_vectors_root(args), clauses=clauses)}
    item = found.get(args.id)
    if item is None:
        raise UsageError(
            f"no vector has the id {args.id!r}",
            hint="List the vectors with `apconform vectors list` (filter with --operation or "
            "--clause) and give one of their ids.",
        )
    detail = vector_detail(item, clauses)
    if args.format == "json":
        print(json.dumps(detail, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render_vector_detail(detail))
    return 0


def _cmd_manifest(args: argparse.Namespace) -> int:
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.manifest import (
        MANIFEST_NAME,
        build_manifest,
        installed_schema_digests,
        load_vector_test_key,
    )
    from apconform.core.signing import load_signing_key

    if not args.vectors:
        raise UsageError(
            "give --vectors DIR; the kit's own manifest is regenerated by `apconform-dev gen`"
        )
    key = load_vector_test_key() if args.test_key else load_signing_key(args.key)
    root = Path(args.vectors)
    clauses = load_clause_registry()
    document = build_manifest(
        root,
        clause_registry_digest=clauses.digest,
        schema_digests=installed_schema_digests(),
        key=key,
        clause_registry=clauses.registry.model_dump(mode="json"),
    )
    target = root / MANIFEST_NAME
    target.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {target}: {len(document['files'])} files, signed by {key.key_id}")
    return 0


def _cmd_vectors_diff(args: argparse.Namespace) -> int:
    from apconform.conformance.vector_diff import (
        diff_vector_sets,
        read_vector_set,
        render_vector_diff,
    )

    diff = diff_vector_sets(read_vector_set(Path(args.old)), read_vector_set(Path(args.new)))
    if args.format == "json":
        sys.stdout.write(json.dumps(diff, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_vector_diff(diff))
    return 0


def _cmd_report_verify(args: argparse.Namespace) -> int:
    from apconform.conformance.reports.formats import verify_report

    verified = verify_report(
        Path(args.report),
        signature=Path(args.signature) if args.signature else None,
        anchors=_anchors(args),
    )
    detail = f"; {verified.records} records, verdict {verified.verdict}" if verified.records else ""
    print(f"{args.report}: signature by {verified.key_id} is valid{detail}; {verified.statement}")
    return 0


def _cmd_report_render(args: argparse.Namespace) -> int:
    from apconform.conformance.reports.formats import render
    from apconform.core.errors import ApconformError
    from apconform.results.records import REPORT_INVALID, read_jsonl, record_problems

    records = read_jsonl(Path(args.report))
    problems = record_problems(records)
    if problems:
        raise ApconformError(REPORT_INVALID, f"{args.report}: " + "; ".join(problems[:5]))
    text = render(records, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _cmd_report_diff(args: argparse.Namespace) -> int:
    from apconform.results import diff_files, render_diff_text

    diff = diff_files(Path(args.before), Path(args.after))
    if args.format == "json":
        sys.stdout.write(json.dumps(diff, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_diff_text(diff))
    return 1 if diff["regression"] else 0


def _vectors_option(parser: Any) -> None:
    parser.add_argument("--vectors", metavar="DIR", help="vector folder (default: the kit's)")


def register(subparsers: Any) -> None:
    from apconform.cli.recording import add_ledger_options

    check = subparsers.add_parser(
        "check", help="check an implementation against the vectors, clause by clause"
    )
    check.add_argument("--impl", required=True, help="direct:MODULE:CALLABLE, exec:CMD or http:URL")
    check.add_argument(
        "--protocol", action="append", choices=_PROTOCOLS, help="limit to a protocol"
    )
    _vectors_option(check)
    check.add_argument(
        "--only", action="append", nargs="+", metavar="ID", help="clause or vector ids"
    )
    check.add_argument("--xfail", metavar="FILE", help="expected-failures list (strict)")
    add_format(
        check,
        _REPORT_FORMATS,
        append=True,
        legacy={"text": "pretty"},
        help="report format (repeatable; default text)",
    )
    check.add_argument("--output", action="append", metavar="PATH", help="file for each --format")
    check.add_argument("--badge", metavar="DIR", help="write shields.io badges, one per protocol")
    check.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    check.add_argument(
        "--stop-after-timeouts",
        type=int,
        default=3,
        metavar="K",
        help="stop the run (verdict errored) after K cases in a row time out (default 3; 0 never)",
    )
    check.add_argument(
        "--env",
        action="append",
        metavar="NAME",
        help="an environment variable the implementation needs (repeatable; names are "
        "recorded in reports and reproduce commands, values never)",
    )
    check.add_argument(
        "--validate-protocol", action="store_true", help="check every message against its schema"
    )
    trust_arguments(check)
    check.add_argument("--sign-key", metavar="FILE", help="sign every report file written")
    add_ledger_options(check)
    check.set_defaults(handler=_cmd_check)

    vectors = subparsers.add_parser("vectors", help="verify, lint and audit a vector suite")
    actions = vectors.add_subparsers(dest="vectors_command", metavar="ACTION")
    verify = actions.add_parser("verify", help="check the files against the signed manifest")
    _vectors_option(verify)
    trust_arguments(verify)
    verify.set_defaults(handler=_cmd_verify)
    lint = actions.add_parser("lint", help="check every vector rule, listing every fault")
    _vectors_option(lint)
    lint.add_argument("--protocol", action="append", choices=_PROTOCOLS)
    lint.add_argument("--format", choices=format_names("text", "json"), default="text")
    lint.set_defaults(handler=_cmd_lint)
    listing = actions.add_parser("list", help="list the vectors, by operation, clause or protocol")
    _vectors_option(listing)
    listing.add_argument("--operation", help="only this operation's vectors, e.g. apx.evaluate")
    listing.add_argument("--clause", help="only the vectors citing this clause, e.g. KIT-LOAD-2")
    listing.add_argument("--protocol", choices=_PROTOCOLS)
    listing.add_argument("--format", choices=format_names("text", "json"), default="text")
    listing.set_defaults(handler=_cmd_list)
    show = actions.add_parser("show", help="print one vector with the clauses it cites, quoted")
    _vectors_option(show)
    show.add_argument("id", help="the vector's id (its file name without .json)")
    show.add_argument("--format", choices=format_names("text", "json"), default="text")
    show.set_defaults(handler=_cmd_show)
    coverage = actions.add_parser("coverage", help="the clause-by-clause coverage table")
    _vectors_option(coverage)
    coverage.add_argument("--protocol", action="append", choices=_PROTOCOLS)
    coverage.add_argument(
        "--format", choices=format_names("text", "markdown", "json"), default="text"
    )
    coverage.set_defaults(handler=_cmd_coverage)
    manifest = actions.add_parser("manifest", help="write and sign DIR/MANIFEST.json")
    _vectors_option(manifest)
    signer = manifest.add_mutually_exclusive_group(required=True)
    signer.add_argument("--key", metavar="FILE", help="your signing key file")
    signer.add_argument("--test-key", action="store_true", help="the kit's published test key")
    manifest.set_defaults(handler=_cmd_manifest)
    vdiff = actions.add_parser(
        "diff", help="what changed between two vector sets, by vector and clause"
    )
    vdiff.add_argument("old", help="the older vector folder or MANIFEST.json")
    vdiff.add_argument("new", help="the newer vector folder or MANIFEST.json")
    vdiff.add_argument("--format", choices=format_names("text", "json"), default="text")
    vdiff.set_defaults(handler=_cmd_vectors_diff)

    report = subparsers.add_parser("report", help="verify or re-render a conformance report")
    report_actions = report.add_subparsers(dest="report_command", metavar="ACTION")
    rverify = report_actions.add_parser("verify", help="verify a signed report")
    rverify.add_argument("report", help="the report file")
    rverify.add_argument("--signature", help="signature file (default: REPORT.sig.json)")
    trust_arguments(rverify)
    rverify.set_defaults(handler=_cmd_report_verify)
    rrender = report_actions.add_parser(
        "render", help="render a JSON-lines report as another format"
    )
    rrender.add_argument("report", help="the JSON-lines report")
    add_format(
        rrender,
        _REPORT_FORMATS,
        required=True,
        legacy={"text": "pretty"},
        help="the format to render",
    )
    rrender.add_argument("--output", help="file to write (default: standard output)")
    rrender.set_defaults(handler=_cmd_report_render)
    rdiff = report_actions.add_parser(
        "diff",
        help="compare two conformance reports (or two AP-1 score reports); exit 1 on a regression",
    )
    rdiff.add_argument("before", help="the earlier report (JSON lines, or score-report.json)")
    rdiff.add_argument("after", help="the later report, of the same kind")
    rdiff.add_argument("--format", choices=format_names("text", "json"), default="text")
    rdiff.set_defaults(handler=_cmd_report_diff)
