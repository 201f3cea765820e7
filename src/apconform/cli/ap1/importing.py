"""`apconform ap1 import SOURCE ...` and `apconform ap1 compare-reference`: other instruments' runs.

``import`` is a command group with one subcommand per source; each source's
arguments and handler live in their own module (``import_reference``,
``inspect``), so a new source is one module and one line here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from apconform.cli.ap1.import_reference import register_reference
from apconform.cli.ap1.inspect import register_inspect

__all__ = ["register_import"]


def _cmd_compare(args: argparse.Namespace) -> int:
    from apconform.ap1.importers.reference.comparison import compare_reference, render_comparison

    run_dir = Path(args.run_dir)
    comparison = compare_reference(run_dir)
    document = comparison.document
    output = Path(args.output_dir) if args.output_dir else run_dir / "comparison"
    output.mkdir(parents=True, exist_ok=True)
    (output / "reference-comparison.json").write_text(
        json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    text = render_comparison(document)
    (output / "reference-comparison.md").write_text(text, encoding="utf-8")
    print(text.split("\n## Disagreements")[0])
    unexplained = next(
        int(c["count"]) for c in document["classifications"] if c["classification"] == "unexplained"
    )
    print(f"written: {output / 'reference-comparison.json'} and reference-comparison.md")
    if unexplained:
        print(f"{unexplained} disagreement(s) are UNEXPLAINED; see the list in the Markdown file")
        return 1
    return 0


def register_import(commands: Any, parser_class: Any) -> None:
    """Add `import` (one subcommand per source) and `compare-reference` to `apconform ap1`."""
    group = commands.add_parser(
        "import", help="import a run recorded by another harness or AP-1 instrument"
    )
    sources = group.add_subparsers(
        dest="import_source", metavar="SOURCE", parser_class=parser_class
    )
    group.set_defaults(handler=lambda _args: (group.print_help(), 2)[1])
    register_reference(sources)
    register_inspect(sources)

    compare = commands.add_parser(
        "compare-reference",
        help="an imported run's verdicts beside the source's, every difference classified",
    )
    compare.add_argument("run_dir", help="a run directory written by `apconform ap1 import`")
    compare.add_argument(
        "--output-dir", help="where the comparison goes (default RUN_DIR/comparison)"
    )
    compare.set_defaults(handler=_cmd_compare)
