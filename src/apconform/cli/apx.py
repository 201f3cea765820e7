"""`apconform apx validate | freeze | evaluate | promote | demo`, thin over the kernel.

Beyond APx 0.1 (``apconform.apx.population``): `apx preregister`,
`apx check-preregistration`, `apx power` and `apx population`; their refusals
exit with 2.

Each command reads one JSON document from a file or from ``-`` (standard
input) through the kit's bounded loader and writes JSON on standard output
(``--format text`` for a readable summary; ``table`` is its deprecated alias).
A refused document exits with 1 and lists every violation on standard error, as
text and as JSON; usage and input errors exit with 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from apconform.cli.convention import add_format
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


def _cmd_preregister(args: argparse.Namespace) -> int:
    from apconform.apx.population import freeze_preregistration

    return _emit(args, _signed(args, freeze_preregistration(read_document(args.file))))


def _cmd_check_preregistration(args: argparse.Namespace) -> int:
    from apconform.apx.population import check_preregistration
    from apconform.core.trust import trust_anchors, verify_trusted

    # the keys named are read (and a bad trust file refused) whether or not the document is signed
    anchors = trust_anchors(args.trusted_key, args.trust_file)
    checked = check_preregistration(read_document(args.file))
    statement = "unsigned"
    if "signature" in checked:
        statement = "signature valid; " + verify_trusted(checked, anchors)
    report = {"valid": True, "hash": checked["hash"], "signature": statement}
    table = f"preregistration valid: hash {checked['hash']}; {statement}\n"
    return _emit(args, report, table)


def _cmd_power(args: argparse.Namespace) -> int:
    from apconform.apx.population import power_request, power_svg
    from apconform.apx.population.presentation import power_table

    request = read_document(args.file)
    if type(request) is dict:
        overrides = {
            name: value
            for name, value in (
                ("seed", args.seed),
                ("simulations", args.simulations),
                ("budget", args.budget),
            )
            if value is not None
        }
        request = {**request, **overrides}
    document = _signed(args, power_request(request))
    if args.plot:
        Path(args.plot).write_text(power_svg(document), encoding="utf-8")
    return _emit(args, document, power_table(document))


def _cmd_population(args: argparse.Namespace) -> int:
    from apconform.apx.population import population_request
    from apconform.apx.population.presentation import population_table

    request = read_document(args.file)
    if type(request) is dict:
        if args.preregistration:
            request = {**request, "preregistration": read_document(args.preregistration)}
        overrides = {
            name: value
            for name, value in (("iterations", args.iterations), ("seed", args.seed))
            if value is not None
        }
        if overrides:
            options = request.get("options")
            request = {
                **request,
                "options": {**(options if type(options) is dict else {}), **overrides},
            }
    document = _signed(args, population_request(request))
    return _emit(args, document, population_table(document))


def _add_common(parser: argparse.ArgumentParser, *, reads: bool = True) -> None:
    if reads:
        parser.add_argument("file", help="a JSON file, or - for standard input")
    add_format(
        parser,
        ("json", "text"),
        default="json",
        legacy={"text": "table"},
        help="json (default): the document; text: a readable summary",
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
    _register_population(commands)
    demo = commands.add_parser(
        "demo", help="score the built-in tutorial campaign (AP 9, APx 3.169925001442312)"
    )
    _add_common(demo, reads=False)
    demo.add_argument("--output-dir", metavar="DIR", help="also write the documents here")
    demo.set_defaults(handler=_cmd_demo)


def _register_population(commands: Any) -> None:
    """The commands of the extension beyond APx 0.1 (spec/apx/ext-*.md)."""
    from apconform.cli.shared import trust_arguments

    preregister = commands.add_parser(
        "preregister",
        help="beyond APx 0.1: freeze a preregistration draft (hash over RFC 8785 bytes)",
    )
    _add_common(preregister)
    preregister.add_argument("--sign", metavar="KEYFILE", help="sign it with this key file")
    preregister.set_defaults(handler=_cmd_preregister)
    check = commands.add_parser(
        "check-preregistration",
        help="beyond APx 0.1: check a preregistration's schema, hash, plan and signature",
    )
    _add_common(check)
    trust_arguments(check)
    check.set_defaults(handler=_cmd_check_preregistration)
    power = commands.add_parser(
        "power",
        help="beyond APx 0.1: simulated power and precision, and the numbers a target needs",
    )
    _add_common(power)
    power.add_argument("--seed", type=int, help="override the request's seed")
    power.add_argument("--simulations", type=int, help="override simulations per plan")
    power.add_argument("--budget", type=int, help="work units allowed (at most 10,000,000)")
    power.add_argument("--plot", metavar="SVG", help="also write the chart as an offline SVG file")
    power.add_argument("--sign", metavar="KEYFILE", help="sign the analysis with this key file")
    power.set_defaults(handler=_cmd_power)
    population = commands.add_parser(
        "population",
        help="beyond APx 0.1: the population interval of {manifest, comparison}, beside "
        "the APx 0.1 promotion",
    )
    _add_common(population)
    population.add_argument(
        "--preregistration", metavar="FILE", help="the preregistration the analysis follows"
    )
    population.add_argument("--iterations", type=int, help="APx 0.1 bootstrap resamples")
    population.add_argument("--seed", type=int, help="APx 0.1 bootstrap seed")
    population.add_argument("--sign", metavar="KEYFILE", help="sign the result with this key file")
    population.set_defaults(handler=_cmd_population)
