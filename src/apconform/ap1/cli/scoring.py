"""`apconform ap1 score | rescore | adjudicate import`: the scorer's commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from apconform.core.errors import UsageError

__all__ = ["register_scoring"]

_SHEET_LIMIT = 64 * 1024 * 1024
"""The largest filled-in sheet read (a sheet of 100,000 rows is some 30 MiB)."""


def _print_scored(scored: Any) -> None:
    document = scored.report.document
    workers = "one process" if scored.jobs == 1 else f"{scored.jobs} worker processes"
    print(
        f"scored {document['integrity']['transcript']['executions']} executions "
        f"into {scored.output_dir} ({workers})"
    )
    print(f"  {document['integrity']['statement']}")
    print(f"  dimensions claimed: {', '.join(document['run']['dimensionsClaimed'])}")
    for cell in document["dimensions"]:
        text = cell["summary"] or cell["reason"]
        claimed = "" if cell["claimed"] else "not claimed; "
        print(f"  {cell['dimension']:<14} {cell['status']:<17} {claimed}{text}")
    print(f"  report: {scored.output_dir / 'report.html'} (offline) and report.md")
    print(
        f"  adjudication sheets: {scored.output_dir / 'adjudication'} "
        f"({document['adjudication']['routed']} rows for two scorers)"
    )


def _cmd_score(args: argparse.Namespace) -> int:
    from apconform.ap1.scoring import score_run
    from apconform.ap1.scoring.anchor import write_score_anchor
    from apconform.core.signing import load_signing_key
    from apconform.ledger.recording import ledger_requested, record_result

    key = load_signing_key(Path(args.sign_with)) if args.sign_with else None
    scored = score_run(
        Path(args.run_dir), Path(args.output_dir) if args.output_dir else None, jobs=args.jobs
    )
    _print_scored(scored)
    if key is not None:
        path = write_score_anchor(scored.output_dir, scored.report.document, key)
        print(f"  signed what it scored with {key.key_id}: {path}")
    if ledger_requested(args):  # the whole document, its spooled listings read back
        record_result(args, "ap1-score-report", scored.report.plain_document())
    return 0


def _cmd_rescore(args: argparse.Namespace) -> int:
    from apconform.ap1.inputs.files import read_text_file
    from apconform.ap1.scoring import compare_reports, score_run, score_transcript
    from apconform.core.files import load_path

    if args.transcript:
        if not args.output_dir or not args.inputs:
            raise UsageError(
                "with --transcript give --inputs DIR (the sealed copies) and --output-dir"
            )
        folder = Path(args.inputs)
        documents = {
            n: load_path(folder / f"{n}.json")
            for n in ("config", "fixture", "questions", "derivations")
        }
        text = folder / "ap1-text.md"
        scored = score_transcript(
            Path(args.transcript),
            documents,
            Path(args.output_dir),
            ap1_text=read_text_file(text) if text.is_file() else None,
            seal=load_path(Path(args.seal)) if args.seal else None,
            jobs=args.jobs,
        )
        _print_scored(scored)
        return 0
    if not args.run_dir:
        raise UsageError("give RUN_DIR, or --transcript with --inputs and --output-dir")
    run_dir = Path(args.run_dir)
    output = Path(args.output_dir) if args.output_dir else run_dir / "rescore"
    scored = score_run(run_dir, output, jobs=args.jobs)
    _print_scored(scored)
    published = run_dir / "report"
    if not (published / "score-report.json").is_file():
        print(f"  nothing to compare with: {published} holds no report")
        return 0
    differ = compare_reports(published, output)
    change = _transcript_change(published, run_dir)
    if change is not None:
        print(f"  THE TRANSCRIPT CHANGED since {published} was scored: {change}")
    if differ:
        print(f"  DIFFERS from {published}: {', '.join(differ)}")
        return 1
    print(f"  identical, byte for byte, to {published} (every report file)")
    return 0


def _transcript_change(published: Path, run_dir: Path) -> str | None:
    """How the run's transcript differs from the one the published report scored, if it does."""
    from apconform.ap1.rundir import load_in
    from apconform.ap1.scoring.anchor import transcript_change
    from apconform.ap1.transcript.verify import verify_transcript

    document = load_in(published, "score-report.json")
    transcript = document.get("integrity", {}).get("transcript", {})
    if "headSha256" not in transcript:
        return "unknown: the published report carries no transcript anchor (older format)"
    report = verify_transcript(run_dir / "transcript.jsonl", in_run_dir=True)
    return transcript_change((int(transcript["records"]), transcript["headSha256"]), report)


def _cmd_adjudicate_import(args: argparse.Namespace) -> int:
    import json
    import os

    from apconform.ap1.rundir import create_file, load_in
    from apconform.ap1.scoring import score_run
    from apconform.ap1.scoring.adjudication.merge import merge_sheets
    from apconform.ap1.scoring.files import ADJUDICATION_FILE
    from apconform.core.files import read_file

    run_dir = Path(args.run_dir)
    key_rel = "report/adjudication/key.json"
    if not os.path.lexists(run_dir / key_rel):
        raise UsageError(
            f"{run_dir / key_rel} is missing: score the run first (apconform ap1 score RUN_DIR)"
        )
    target = run_dir / ADJUDICATION_FILE
    if os.path.lexists(target):
        raise UsageError(
            f"{target} exists: an import is never overwritten; move it aside to replace it"
        )
    names = (args.scorer_1_name, args.scorer_2_name)
    first, second = (
        read_file(path, max_bytes=_SHEET_LIMIT, what="a filled-in adjudication sheet")
        for path in (args.scorer_1, args.scorer_2)
    )
    merged = merge_sheets(load_in(run_dir, key_rel), first, second, names)
    text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    create_file(run_dir, ADJUDICATION_FILE, text.encode("utf-8"))
    for agreement in merged["agreement"]:
        kappa = agreement["kappa"] if agreement["kappa"] is not None else "undefined"
        print(
            f"{agreement['measure']}: n {agreement['n']}, "
            f"raw agreement {agreement['rawAgreement']}, "
            f"Cohen's kappa {kappa}, {len(agreement['disagreements'])} disagreement(s)"
            + (f" ({agreement['caveat']})" if agreement["caveat"] else "")
        )
        for d in agreement["disagreements"]:
            print(
                f"  {d['rowId']} {d['cellKey']}: scorer 1 {d['scorer1']}, scorer 2 {d['scorer2']}"
            )
    print(f"merged into {target}")
    _print_scored(score_run(run_dir))
    return 0


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


_JOBS_HELP = (
    "worker processes that score the transcript (default: 2 for a transcript of 128 MiB or "
    "more on a multi-core machine, else 1); the report is the same bytes for any value"
)


def register_scoring(commands: Any, parser_class: Any) -> None:
    """Add score, rescore and adjudicate to `apconform ap1`."""
    from apconform.ledger.recording import add_ledger_options

    score = commands.add_parser(
        "score", help="score a run: the profile report and adjudication sheets"
    )
    score.add_argument("run_dir")
    score.add_argument("--output-dir", help="where the report goes (default RUN_DIR/report)")
    score.add_argument("--jobs", type=_jobs, help=_JOBS_HELP)
    score.add_argument(
        "--sign-with",
        metavar="KEYFILE",
        help="sign the report together with the transcript it scored (score-report.sig.json)",
    )
    add_ledger_options(score)
    score.set_defaults(handler=_cmd_score)

    rescore = commands.add_parser(
        "rescore",
        help="re-score from the transcript alone and compare with the report byte for byte",
    )
    rescore.add_argument("run_dir", nargs="?", help="the run directory")
    rescore.add_argument("--output-dir", help="where the new report goes (default RUN_DIR/rescore)")
    rescore.add_argument("--transcript", help="a transcript file, instead of a run directory")
    rescore.add_argument("--inputs", help="with --transcript: the folder of sealed copies")
    rescore.add_argument(
        "--seal", help="with --transcript: the seal record to check the inputs against"
    )
    rescore.add_argument("--jobs", type=_jobs, help=_JOBS_HELP)
    rescore.set_defaults(handler=_cmd_rescore)

    adjudicate = commands.add_parser("adjudicate", help="human adjudication of routed answers")
    adj_commands = adjudicate.add_subparsers(
        dest="adjudicate_command", metavar="COMMAND", parser_class=parser_class
    )
    adjudicate.set_defaults(handler=lambda _args: (adjudicate.print_help(), 2)[1])
    adj_import = adj_commands.add_parser(
        "import", help="merge two scorers' sheets: agreement, kappa, and the agreed outcomes"
    )
    adj_import.add_argument("run_dir")
    adj_import.add_argument("--scorer-1", required=True, help="scorer 1's filled-in CSV")
    adj_import.add_argument("--scorer-2", required=True, help="scorer 2's filled-in CSV")
    adj_import.add_argument("--scorer-1-name", default="scorer 1", help="how to name scorer 1")
    adj_import.add_argument("--scorer-2-name", default="scorer 2", help="how to name scorer 2")
    adj_import.set_defaults(handler=_cmd_adjudicate_import)
