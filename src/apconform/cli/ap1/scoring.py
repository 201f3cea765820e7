"""`apconform ap1 score | rescore`: the scorer's commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apconform.core.errors import UsageError

if TYPE_CHECKING:
    from apconform.ap1.scoring import RescoreOutcome

__all__ = ["print_rescore_outcome", "print_scored", "register_scoring"]


def print_scored(scored: Any) -> None:
    """The lines every command that scores a run prints about the report it wrote."""
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
    from apconform.cli.recording import ledger_requested, record_result
    from apconform.core.signing import load_signing_key

    key = load_signing_key(Path(args.sign_with)) if args.sign_with else None
    scored = score_run(
        Path(args.run_dir), Path(args.output_dir) if args.output_dir else None, jobs=args.jobs
    )
    print_scored(scored)
    if key is not None:
        path = write_score_anchor(scored.output_dir, scored.report.document, key)
        print(f"  signed what it scored with {key.key_id}: {path}")
    if ledger_requested(args):  # the whole document, its spooled listings read back
        record_result(args, "ap1-score-report", scored.report.plain_document())
    return 0


def _cmd_rescore(args: argparse.Namespace) -> int:
    from apconform.ap1.inputs.sealed import SealedInputs
    from apconform.ap1.scoring import rescore_run, score_transcript
    from apconform.core.files import load_path

    if args.transcript:
        if not args.output_dir or not args.inputs:
            raise UsageError(
                "with --transcript give --inputs DIR (the sealed copies) and --output-dir"
            )
        sealed = SealedInputs.from_folder(Path(args.inputs))
        scored = score_transcript(
            Path(args.transcript),
            sealed.documents(),
            Path(args.output_dir),
            ap1_text=sealed.ap1_text,
            seal=load_path(Path(args.seal)) if args.seal else None,
            jobs=args.jobs,
        )
        print_scored(scored)
        return 0
    if not args.run_dir:
        raise UsageError("give RUN_DIR, or --transcript with --inputs and --output-dir")
    outcome = rescore_run(
        Path(args.run_dir), Path(args.output_dir) if args.output_dir else None, jobs=args.jobs
    )
    print_scored(outcome.scored)
    print_rescore_outcome(outcome)
    return outcome.exit_status


def print_rescore_outcome(outcome: RescoreOutcome) -> None:
    """The lines `apconform ap1 rescore RUN_DIR` prints after the report's own: how the new
    report compares with the published one."""
    published = outcome.published
    if not outcome.compared:
        print(f"  nothing to compare with: {published} holds no report")
        return
    if outcome.transcript_change is not None:
        print(f"  THE TRANSCRIPT CHANGED since {published} was scored: {outcome.transcript_change}")
    if outcome.differ:
        print(f"  DIFFERS from {published}: {', '.join(outcome.differ)}")
        return
    print(f"  identical, byte for byte, to {published} (every report file)")


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


_JOBS_HELP = (
    "worker processes that score the transcript (default: 2 for a transcript of 128 MiB or "
    "more on a multi-core machine, else 1); the report is the same bytes for any value"
)


def register_scoring(commands: Any, parser_class: Any) -> None:
    """Add score and rescore to `apconform ap1`."""
    from apconform.cli.recording import add_ledger_options

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
