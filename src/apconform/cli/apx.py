"""`apconform apx validate | freeze | evaluate | promote | demo`, thin over the kernel.

Each command reads one JSON document from a file or from ``-`` (standard
input) through the kit's bounded loader and writes JSON on standard output
(``--format table`` for a readable summary). A refused document exits with 1
and lists every violation on standard error, as text and as JSON; usage and
input errors exit with 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from apconform.cli.shared import read_document

__all__ = ["register"]


def _member(document: Any, name: str) -> Any:
    from apconform.apx.checks import MISSING

    return document.get(name, MISSING) if type(document) is dict else MISSING


def _emit(args: argparse.Namespace, document: Any, table: str | None = None) -> int:
    from apconform.apx.presentation import json_text

    if args.format == "table" and table is not None:
        sys.stdout.write(table)
    else:
        sys.stdout.write(json_text(document))
    return 0


def _signed(args: argparse.Namespace, document: dict[str, Any]) -> dict[str, Any]:
    if not getattr(args, "sign", None):
        return document
    from apconform.apx.signing import sign
    from apconform.core.signing import load_signing_key

    return sign(document, load_signing_key(Path(args.sign)))


def _cmd_validate(args: argparse.Namespace) -> int:
    from apconform.apx import validate_manifest, validate_run
    from apconform.apx.presentation import validation_table

    document = read_document(args.file)
    if type(document) is dict and "run" in document:
        report = validate_run(_member(document, "manifest"), document["run"]).to_dict()
        what = "manifest and run"
    elif type(document) is dict and "manifest" in document:
        report = validate_manifest(document["manifest"], at=("manifest",)).to_dict()
        what = "manifest"
    else:
        report = validate_manifest(document).to_dict()
        what = "manifest"
    return _emit(args, report, validation_table(report, what))


def _cmd_freeze(args: argparse.Namespace) -> int:
    from apconform.apx import freeze, rebind

    document = read_document(args.file)
    if type(document) is dict and "manifest" in document:
        manifest = freeze(document["manifest"])
        out: dict[str, Any] = {"manifest": manifest}
        if "run" in document:
            out["run"] = rebind(manifest, document["run"])
        return _emit(args, out)
    return _emit(args, freeze(document))


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from apconform.apx import evaluate_document
    from apconform.apx.presentation import result_table
    from apconform.cli.recording import record_result

    document = read_document(args.file)
    result = _signed(
        args, evaluate_document(_member(document, "manifest"), _member(document, "run"))
    )
    status = _emit(args, result, result_table(result))
    record_result(args, "apx-result", result)
    return status


def _cmd_promote(args: argparse.Namespace) -> int:
    from apconform.apx import compare_document
    from apconform.apx.checks import MISSING
    from apconform.apx.presentation import promotion_table

    document = read_document(args.file)
    options = _member(document, "options")
    overrides = {
        name: value
        for name, value in (("iterations", args.iterations), ("seed", args.seed))
        if value is not None
    }
    if overrides:
        options = {**(options if type(options) is dict else {}), **overrides}
    promotion = compare_document(
        _member(document, "manifest"),
        _member(document, "comparison"),
        MISSING if options is MISSING else options,
    )
    promotion = _signed(args, promotion)
    return _emit(args, promotion, promotion_table(promotion))


def _cmd_demo(args: argparse.Namespace) -> int:
    from apconform.apx import evaluate_document
    from apconform.apx.presentation import json_text, result_table
    from apconform.apx.tutorial import NOTICE, tutorial_campaign

    manifest, run = tutorial_campaign()
    result = evaluate_document(manifest, run)
    document = {"notice": NOTICE, "manifest": manifest, "run": run, "result": result}
    if args.output_dir:
        folder = Path(args.output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("manifest", "run", "result"):
            (folder / f"{name}.json").write_text(json_text(document[name]), encoding="utf-8")
        (folder / "request.json").write_text(
            json_text({"manifest": manifest, "run": run}), encoding="utf-8"
        )
    return _emit(args, document, NOTICE + "\n\n" + result_table(result))


def _add_common(parser: argparse.ArgumentParser, *, reads: bool = True) -> None:
    if reads:
        parser.add_argument("file", help="a JSON file, or - for standard input")
    parser.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="json (default): the document; table: a readable summary",
    )


def register(subparsers: Any) -> None:
    """Add the ``apx`` command group to the ``apconform`` parser."""
    from apconform.cli.recording import add_ledger_options

    group = subparsers.add_parser(
        "apx",
        help="APx 0.1: validate, freeze, evaluate and promote agent campaigns",
        description="APx 0.1 kernel: the Agentic Power exponent of agent campaigns.",
    )
    commands = group.add_subparsers(dest="apx_command", metavar="COMMAND", required=True)
    validate = commands.add_parser(
        "validate",
        help="check {manifest, run}, {manifest} or a bare manifest; list every violation",
    )
    _add_common(validate)
    validate.set_defaults(handler=_cmd_validate)
    freeze = commands.add_parser(
        "freeze",
        help="hash a manifest's components ({manifest, run}: also rebind the run)",
    )
    _add_common(freeze, reads=True)
    freeze.set_defaults(handler=_cmd_freeze)
    evaluate = commands.add_parser("evaluate", help="score {manifest, run}: apx-result/0.1")
    _add_common(evaluate)
    evaluate.add_argument("--sign", metavar="KEYFILE", help="sign the result with this key file")
    add_ledger_options(evaluate)
    evaluate.set_defaults(handler=_cmd_evaluate)
    promote = commands.add_parser(
        "promote", help="compare {manifest, comparison, options?}: apx-promotion/0.1"
    )
    _add_common(promote)
    promote.add_argument("--iterations", type=int, help="bootstrap resamples (100..10000)")
    promote.add_argument("--seed", type=int, help="bootstrap seed (0..4294967295)")
    promote.add_argument("--sign", metavar="KEYFILE", help="sign the promotion with this key file")
    promote.set_defaults(handler=_cmd_promote)
    demo = commands.add_parser(
        "demo", help="score the built-in tutorial campaign (AP 9, APx 3.169925001442312)"
    )
    _add_common(demo, reads=False)
    demo.add_argument("--output-dir", metavar="DIR", help="also write the documents here")
    demo.set_defaults(handler=_cmd_demo)
