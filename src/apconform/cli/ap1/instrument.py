"""`apconform ap1`: seal, run, verify, score, rescore, adjudicate, serve-mock.

Thin over the library.
"""

from __future__ import annotations

import argparse
import sys
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from apconform.ap1.run.credentials import OVERRIDE_FLAG
from apconform.ap1.run.outage import DEFAULT_FAILURE_LIMIT
from apconform.cli.ap1.adjudication import register_adjudication
from apconform.cli.ap1.importing import register_import
from apconform.cli.ap1.scoring import register_scoring
from apconform.cli.shared import print_json, trust_arguments
from apconform.core.errors import UsageError

__all__ = ["register"]


def _input_paths(args: argparse.Namespace) -> Any:
    from apconform.ap1.inputs.files import InputPaths, example_paths
    from apconform.ap1.inputs.sealed import SEALED_NAMES

    if args.example:
        return example_paths()
    if args.inputs is None and args.config is None:
        return None
    folder = Path(args.inputs) if args.inputs else None

    def pick(value: str | None, name: str) -> Path:
        if value is not None:
            return Path(value)
        if folder is None:
            raise UsageError(f"--{name.replace('_', '-')} is needed (or --inputs DIR)")
        return folder / f"{name}.json"

    if args.ap1_text is None:
        raise UsageError("--ap1-text FILE is needed: the AP-1 text the run is sealed against")
    documents = {name: pick(getattr(args, name), name) for name in SEALED_NAMES}
    return InputPaths(**documents, ap1_text=Path(args.ap1_text))


def _seal(args: argparse.Namespace, paths: Any, key: Any = None) -> dict[str, Any]:
    from apconform.ap1.inputs.files import load_inputs
    from apconform.ap1.seal.build import write_sealed_run

    output = _output_dir(args.output_dir)
    assert output is not None  # both commands require it before sealing
    inputs = load_inputs(paths, endpoint=args.endpoint, model=args.model)
    if key is None:
        key = _signing_key(getattr(args, "sign_key", None))
    record = write_sealed_run(output, inputs, sign_key=key)
    print(f"sealed {args.output_dir}: seal {record['sealHash']}")
    plan = record["plan"]
    print(
        f"  plan: {plan['cells']} cells ({plan['derivableItems']} items x 2 conditions x "
        f"{plan['repeats']} repeats, {plan['voidItems']} VOID items); endpoint "
        f"{inputs.config.model.endpoint.url}, model {inputs.config.model.endpoint.model}"
    )
    return record


def _check_endpoint(args: argparse.Namespace, paths: Any) -> None:
    """A run for a built-in model refuses, before sealing, a server that is not its endpoint."""
    from apconform.ap1.inputs.files import load_inputs
    from apconform.ap1.mock.identity import check_built_in_endpoint, inputs_identity

    check_built_in_endpoint(
        *inputs_identity(load_inputs(paths, endpoint=args.endpoint, model=args.model))
    )


def _cmd_seal(args: argparse.Namespace) -> int:
    paths = _input_paths(args)
    if paths is None:
        raise UsageError("give the inputs: --inputs DIR, --config/--fixture/... or --example")
    _seal(args, paths)
    return 0


def _rate(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise UsageError(f"--rate-limit {text!r} is not a number") from None
    if not value.is_finite() or value <= 0:
        raise UsageError("--rate-limit must be above 0 (requests per second)")
    return value


def _seconds(text: str, option: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise UsageError(f"{option} {text!r} is not a number of seconds") from None
    if not value.is_finite() or value < 0 or value > 3600:
        raise UsageError(f"{option} {text!r} must be between 0 and 3600 seconds")
    return value


def _output_dir(text: str | None) -> Path | None:
    """The --output-dir value; an empty one is refused (it would mean the current directory)."""
    if text is None:
        return None
    if not text.strip():
        raise UsageError(
            "--output-dir is empty; name the new run directory (an empty name would seal into "
            "the current directory)"
        )
    return Path(text)


def _cmd_run(args: argparse.Namespace) -> int:
    from apconform.ap1.run.engine import RunOptions, run_sealed
    from apconform.core.stopping import stop_signals

    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    # The key files are read first: a bad one is refused before the endpoint is reached.
    seal_key, sign_with = _signing_key(args.sign_key), _signing_key(args.sign_with)
    paths = None
    if args.resume:
        if args.output_dir or _input_paths(args) is not None or args.endpoint or args.model:
            raise UsageError(
                "--resume takes only the run directory (and the options of how to run it)"
            )
        if not args.resume.strip():
            raise UsageError("--resume is empty; name the run directory to continue")
        run_dir = Path(args.resume)
    else:
        if args.output_dir is None:
            raise UsageError("give --output-dir DIR (a new directory, or a sealed one not yet run)")
        run_dir = _output_dir(args.output_dir) or Path()
        paths = _input_paths(args)
        if paths is not None:
            _check_endpoint(args, paths)  # before the run directory is written
            _seal(args, paths, seal_key)
        elif args.endpoint or args.model:
            raise UsageError(
                "--endpoint and --model apply when sealing; a sealed run cannot change them"
            )
    if args.stop_after_failures < 1:
        raise UsageError("--stop-after-failures must be at least 1")
    share = _share(args.max_unmeasured_share)
    if paths is None and (run_dir / "seal.json").is_file():  # a built-in model: ours?
        from apconform.ap1.mock.identity import check_built_in_endpoint, sealed_identity

        check_built_in_endpoint(*sealed_identity(run_dir))
    started = time.perf_counter()
    options = RunOptions(
        concurrency=args.concurrency,
        rate_limit=_rate(args.rate_limit),
        resume=bool(args.resume),
        allow_plain_http_key=args.send_api_key_over_plain_http_to_remote_host,
        failure_limit=args.stop_after_failures,
        sign_with=sign_with,
    )
    with stop_signals():  # `kill PID` stops the run as cleanly as Ctrl-C, resumably
        result = run_sealed(run_dir, options)
    return _run_summary(run_dir, result, time.perf_counter() - started, share)


def _share(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise UsageError(f"--max-unmeasured-share {text!r} is not a number") from None
    if not value.is_finite() or not 0 <= value <= 1:
        raise UsageError("--max-unmeasured-share must be between 0 and 1 (a share of the cells)")
    return value


def _signing_key(path: str | None) -> Any:
    from apconform.core.signing import load_signing_key

    return load_signing_key(Path(path)) if path else None


def _run_summary(run_dir: Path, result: Any, seconds: float, share: Decimal) -> int:
    """Print what the run did; the exit status says whether it is complete and usable."""
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.statuses.items())) or "none"
    if result.already_finished:
        print(f"{run_dir}: the run is already complete ({result.planned} cells: {counts})")
        return 0
    recorded = result.recorded_before + result.executed_now
    print(
        f"{run_dir}: {recorded}/{result.planned} cells recorded ({result.executed_now} now) in "
        f"{seconds:.1f} s: {counts}"
    )
    if result.retried:
        why = "; ".join(f"{cause} ({n})" for cause, n in result.retry_causes.most_common(3))
        print(f"  retried {result.retried} cell(s) deferred earlier after endpoint failures: {why}")
    if result.deferred_now:
        causes = "; ".join(f"{cause} ({n})" for cause, n in result.deferred_now.most_common(3))
        print(
            f"  deferred {sum(result.deferred_now.values())} execution(s) that failed at the "
            f"endpoint: {causes}"
        )
    print(f"  transcript: {run_dir / 'transcript.jsonl'}")
    resume = f"apconform ap1 run --resume {run_dir}"
    if result.interrupted:
        print(f"  interrupted; continue with: {resume}")
        return 130
    if result.stopped_early or result.cells_deferred:
        reason = result.stopped_early or (
            f"{result.cells_deferred} cell(s) failed at the endpoint and wait to be executed again"
        )
        print(f"  NOT FINISHED: {reason}")
        print(f"  continue with: {resume}")
        return UNFINISHED
    return _unmeasured_warning(result, share)


def _unmeasured_warning(result: Any, share: Decimal) -> int:
    """1 with a warning naming the main cause when too many cells are UNMEASURED."""
    measured = result.planned - result.statuses.get("VOID", 0)
    unmeasured = result.statuses.get("UNMEASURED", 0)
    if measured <= 0 or Decimal(unmeasured) <= share * measured:
        return 0
    cause, count = (
        result.unmeasured_causes.most_common(1)[0]
        if result.unmeasured_causes
        else ("unknown", unmeasured)
    )
    sys.stderr.write(
        f"warning: {unmeasured} of {measured} executed cells are UNMEASURED, more than the "
        f"{share:%} allowed (--max-unmeasured-share); the most common cause ({count}): {cause}\n"
    )
    return 1


def _cmd_verify_seal(args: argparse.Namespace) -> int:
    from apconform.ap1.seal.verify import verify_seal
    from apconform.core.trust import trust_anchors

    anchors = trust_anchors(args.trusted_key, args.trust_file)
    findings, _ = verify_seal(Path(args.run_dir), anchors=anchors)
    fatal = [f for f in findings if f.fatal]
    if args.json:
        print_json({"valid": not fatal, "findings": [f.to_dict() for f in findings]})
    else:
        for f in findings:
            print(f"{'MISMATCH' if f.fatal else 'note'} {f.component}: {f.message}")
        if not any(f.component in ("signature", "seal") for f in findings):
            print(
                "note sealedAt: not covered; sealHash leaves the sealing time out and this seal "
                "is unsigned, so the time is the record's word only (seal with --sign-key to "
                "cover it)"
            )
        print(f"seal of {args.run_dir}: " + ("does NOT verify" if fatal else "verifies"))
    return 1 if fatal else 0


UNFINISHED = 3
"""Exit status of a run or a transcript that is consistent but not complete (resume it)."""


def _cmd_verify_transcript(args: argparse.Namespace) -> int:
    from apconform.ap1.scoring.anchor import check_report_anchor
    from apconform.ap1.transcript.verdict import verify_run_at

    verdict = verify_run_at(
        Path(args.path),
        head_file=args.head,
        trusted_keys=args.trusted_key,
        trust_file=args.trust_file,
        require_anchor=args.require_anchor,
        score_check=check_report_anchor,
    )
    if args.json:
        print_json(_verdict_document(verdict))
    else:
        _print_verdict(verdict)
    return verdict.exit_status


def _verdict_document(verdict: Any) -> dict[str, Any]:
    """``verify-transcript --json``: the verdict as one JSON document."""
    report, scored = verdict.report, verdict.score_report
    return {
        "valid": verdict.valid,
        "records": len(report.records),
        "cellsRecorded": len(report.cells),
        "cellsPlanned": verdict.planned,
        "cellsDeferred": len(verdict.deferred),
        "finished": verdict.finished,
        "anchor": verdict.anchor.to_dict(),
        "scoreReport": scored.to_dict() if scored else None,
        "exitStatus": verdict.exit_status,
        "problems": [p.to_dict() for p in report.problems],
    }


def _print_verdict(verdict: Any) -> None:
    """``verify-transcript``: the verdict in words."""
    report, anchor, path, status = verdict.report, verdict.anchor, verdict.path, verdict.exit_status
    for problem in report.problems:
        print(problem)
    source = verdict.imported_from
    state = "finished" if verdict.finished else "NOT FINISHED (resume to complete it)"
    if source is not None and not verdict.finished:
        # an imported run holds what its source recorded; ap1 run --resume refuses it
        state = (
            f"imported from {source} with the executions it recorded, not finished; an imported "
            f"run is never resumed: score it with `apconform ap1 score {path.parent}`"
        )
    of = f" of {verdict.planned}" if verdict.planned is not None else ""
    print(
        f"{path}: {len(report.records)} records, {len(report.cells)}{of} cells, {state}; "
        + ("chain verifies" if report.ok else f"{len(report.problems)} problem(s)")
    )
    print(f"  end of the chain: {anchor.message}")
    if anchor.signature:
        print(f"  head signature: {anchor.signature}")
    elif verdict.head is not None and not anchor.fault:
        print("  head unsigned: it shows cuts and accidents, not a rewrite of both files")
    if verdict.score_report is not None:
        print(f"  score report: {verdict.score_report.message}")
    words = {0: "verifies", 1: "does NOT verify", UNFINISHED: "verifies so far, unfinished"}
    if source is not None:
        words[UNFINISHED] = "verifies; the imported run is unfinished and stays so"
    print(f"transcript {words[status]} (exit status {status})")


def _cmd_serve_mock(args: argparse.Namespace) -> int:
    from apconform.ap1.inputs.files import example_paths, load_inputs
    from apconform.ap1.mock import MODELS, PERSONAS, MockEndpoint
    from apconform.core.stopping import stop_signals

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0 to 65535; 0 picks one)")
    if args.latency_ms < 0:
        raise UsageError(f"--latency-ms {args.latency_ms} is negative; give 0 or more")
    stall = _seconds(args.stall_seconds, "--stall-seconds")
    paths = _input_paths(args) or example_paths()
    inputs = load_inputs(paths)
    mock = MockEndpoint(
        inputs,
        port=args.port,
        latency=Decimal(args.latency_ms) / 1000,
        seed=args.seed,
        stall_seconds=stall,
    )
    print(f"built-in endpoint on {mock.url} (seed {args.seed}, latency {args.latency_ms} ms)")
    for model in MODELS:
        print(f"  {model:24} {PERSONAS[model[5:]]}")
    # the socket listens since MockEndpoint() returned: connections wait for serve_forever
    print(
        f"ready: the built-in endpoint accepts connections on {mock.url}; "
        "stop it with Ctrl-C or `kill PID`"
    )
    sys.stdout.flush()
    try:
        with stop_signals(interrupt=True):  # a server stops on SIGINT however it was started
            mock.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        mock.stop()
    return 0


def _inputs_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("inputs (for sealing)")
    group.add_argument("--example", action="store_true", help="use the built-in worked example")
    group.add_argument(
        "--inputs",
        help="folder holding config.json, fixture.json, questions.json, derivations.json",
    )
    group.add_argument("--config", help="run configuration (JSON)")
    group.add_argument("--fixture", help="fixture (JSON)")
    group.add_argument("--questions", help="question set (JSON)")
    group.add_argument("--derivations", help="derivations (JSON)")
    group.add_argument("--ap1-text", help="the AP-1 text the run is sealed against")
    group.add_argument("--endpoint", help="replace the configured endpoint URL before sealing")
    group.add_argument("--model", help="replace the configured model before sealing")


def register(subparsers: Any) -> None:
    """Add `apconform ap1 ...`."""
    ap1 = subparsers.add_parser("ap1", help="the AP-1 instrument: seal, run, verify and score")
    commands = ap1.add_subparsers(dest="ap1_command", metavar="COMMAND", parser_class=type(ap1))
    ap1.set_defaults(handler=lambda _args: (ap1.print_help(), 2)[1])

    seal = commands.add_parser("seal", help="seal the inputs into a new run directory")
    _inputs_arguments(seal)
    seal.add_argument("--output-dir", required=True, help="the new run directory")
    seal.add_argument("--sign-key", help="Ed25519 key file to sign the seal with")
    seal.set_defaults(handler=_cmd_seal)

    run = commands.add_parser(
        "run", help="run a sealed run (sealing it first when inputs are given)"
    )
    _inputs_arguments(run)
    run.add_argument("--output-dir", help="the run directory (new, or sealed and not yet run)")
    run.add_argument("--resume", metavar="RUN_DIR", help="continue a run that stopped")
    run.add_argument("--concurrency", type=int, default=4, help="executions at once (default 4)")
    run.add_argument("--rate-limit", help="at most this many requests per second")
    run.add_argument("--sign-key", help="Ed25519 key file to sign the seal with")
    run.add_argument(
        "--sign-with",
        metavar="KEYFILE",
        help="sign the transcript's head with this Ed25519 key file (the strong anchor)",
    )
    run.add_argument(
        "--stop-after-failures",
        type=int,
        default=DEFAULT_FAILURE_LIMIT,
        metavar="N",
        help="stop (resumably) after N executions in a row fail at the endpoint (default "
        f"{DEFAULT_FAILURE_LIMIT})",
    )
    run.add_argument(
        "--max-unmeasured-share",
        default="0.1",
        metavar="FRACTION",
        help="exit 1 with a warning when more than this share of the executed cells is "
        "UNMEASURED (default 0.1)",
    )
    run.add_argument(
        OVERRIDE_FLAG,
        action="store_true",
        help="send the API key over plain http to a host that is not loopback (refused "
        "otherwise; the transcript records it)",
    )
    run.set_defaults(handler=_cmd_run)

    verify_seal = commands.add_parser(
        "verify-seal", help="recompute a run's seal; name each mismatch"
    )
    verify_seal.add_argument("run_dir")
    trust_arguments(verify_seal)
    verify_seal.add_argument("--json", action="store_true", help="print the findings as JSON")
    verify_seal.set_defaults(handler=_cmd_verify_seal)

    verify = commands.add_parser(
        "verify-transcript",
        help="check a transcript's hash chain, its end against its head, and the score report",
    )
    verify.add_argument("path", help="run directory or transcript.jsonl")
    verify.add_argument("--json", action="store_true", help="print the result as JSON")
    verify.add_argument(
        "--head", metavar="FILE", help="the head file (default: transcript.head.json beside it)"
    )
    verify.add_argument(
        "--require-anchor",
        action="store_true",
        help="treat a transcript without a head (older format) as a fault",
    )
    trust_arguments(verify)
    verify.set_defaults(handler=_cmd_verify_transcript)

    register_scoring(commands, type(ap1))
    register_adjudication(commands, type(ap1))
    register_import(commands, type(ap1))

    mock = commands.add_parser("serve-mock", help="serve the built-in model endpoint on 127.0.0.1")
    _inputs_arguments(mock)
    mock.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks one)")
    mock.add_argument("--latency-ms", type=int, default=0, help="delay before every response")
    mock.add_argument("--seed", type=int, default=0, help="seed of the personas' choices")
    mock.add_argument("--stall-seconds", default="3", help="how long a simulated timeout stalls")
    mock.set_defaults(handler=_cmd_serve_mock)
