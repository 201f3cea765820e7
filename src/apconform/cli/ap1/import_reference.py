"""`apconform ap1 import reference OUTPUT_FOLDER ...`: a published run of zorrzai/ap1-run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from apconform.core.errors import UsageError

__all__ = ["register_reference"]


def _cmd_import_reference(args: argparse.Namespace) -> int:
    from apconform.ap1.importers.reference import ReferenceSources, import_reference_run

    if (args.ap1_text is None) == (not args.no_ap1_text):
        raise UsageError("give --ap1-text FILE (the sealed AP-1 text), or --no-ap1-text")
    sources = ReferenceSources(
        output_folder=Path(args.output_folder),
        fixture=Path(args.fixture),
        questions=Path(args.questions),
        derivations=Path(args.derivations),
        ap1_text=None if args.no_ap1_text else Path(args.ap1_text),
        reference_config=Path(args.reference_config) if args.reference_config else None,
        reference_seal=Path(args.reference_seal) if args.reference_seal else None,
    )
    imported = import_reference_run(sources, Path(args.output_dir))
    record = imported.record
    counts = record["records"]
    hashes = record["publishedHashes"]
    print(f"imported {args.output_folder} into {imported.run_dir}: seal {imported.seal_hash}")
    print(
        f"  the reference's own hashes reproduce: config_hash {hashes['configHash']}, "
        f"seal_hash {hashes['sealHash']}"
    )
    print(
        f"  {counts['executions']} executions from {counts['lines']} lines; "
        f"{counts['recordedCells']} of {counts['plannedCells']} planned cells"
    )
    for check in record["inputChecks"]:
        verdict = {True: "matches", False: "DIFFERS from", None: "not checked against"}
        print(f"  {check['input']}: {verdict[check['matches']]} the published hash")
    for check in record["groundTruthChecks"]:
        if not check["agrees"]:
            print(
                f"  item {check['itemId']}: the derivation gives {check['derivationFinal']}, the "
                f"reference recorded {check['referenceFinal']}"
            )
    for dropped in record["claims"]["dropped"]:
        print(f"  claim {dropped['dimension']} dropped: {dropped['reason']}")
    print(f"  import record: {imported.run_dir / 'import' / 'import-record.json'}")
    print(
        f"  next: apconform ap1 score {imported.run_dir}; "
        f"apconform ap1 compare-reference {imported.run_dir}"
    )
    return 0


def register_reference(sources: Any) -> None:
    """Add `reference` to `apconform ap1 import`."""
    parser = sources.add_parser(
        "reference", help="a published run of the reference instrument (zorrzai/ap1-run)"
    )
    parser.add_argument(
        "output_folder", help="the run's output folder (smoke_run.jsonl and report.md)"
    )
    parser.add_argument("--fixture", required=True, help="the reference's example/fixture.json")
    parser.add_argument("--questions", required=True, help="the reference's example/questions.json")
    parser.add_argument(
        "--derivations",
        required=True,
        help="the ground truth in the kit's derivation format (see examples/ap1-reference)",
    )
    parser.add_argument("--ap1-text", help="the sealed AP-1 text (the reference's reference/ copy)")
    parser.add_argument(
        "--no-ap1-text",
        action="store_true",
        help="import without the AP-1 text; the import record says it was not checked",
    )
    parser.add_argument(
        "--reference-config",
        help="instead of report.md: a JSON file holding the resolved configuration, the object "
        "report.md prints in section 2 (its integers stay integers)",
    )
    parser.add_argument(
        "--reference-seal",
        help="instead of report.md (with --reference-config): a JSON object of the seal table "
        'report.md prints in section 1, every value as printed text: {"seal_hash": "...", ...}',
    )
    parser.add_argument("--output-dir", required=True, help="the new run directory")
    parser.set_defaults(handler=_cmd_import_reference)
