"""How loosely typed the library still is: ``dict[str, Any]`` and ``Any`` parameters, counted.

    python tests/benchmarks/bench_typing.py [--json]

Issue 28 asks for typed records inside the library. This prints, per package of
``src/apconform`` (the generated ``models/`` left out), the number of annotations
that spell ``dict[str, Any]`` anywhere in them (parameters, returns, variables and
attributes; ``list[dict[str, Any]]`` counts once), those that spell ``Mapping[str, Any]``
(so that swapping one loose spelling for the other shows), and the number of
parameters annotated exactly ``Any``. It reads the source with :mod:`ast`, so comments and
strings do not count. Not a test: the figures go in the closing note.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "apconform"
LOOSE = "dict[str, Any]"
LOOSE_MAPPING = "Mapping[str, Any]"  # also matches MutableMapping[str, Any]


def _annotations(tree: ast.AST) -> tuple[list[ast.expr], list[ast.expr]]:
    """Every annotation in ``tree``, and those of parameters alone."""
    every: list[ast.expr] = []
    params: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            for arg in (
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
            ):
                if arg.annotation is not None:
                    every.append(arg.annotation)
                    params.append(arg.annotation)
            if node.returns is not None:
                every.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            every.append(node.annotation)
    return every, params


def _text(annotation: ast.expr) -> str:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value  # a quoted annotation
    return ast.unparse(annotation)


def count(root: Path = SRC) -> dict[str, dict[str, int]]:
    """Per package: loose dicts and ``Any`` parameters."""
    figures: dict[str, Counter[str]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] == "models":
            continue
        package = relative.parts[0] if len(relative.parts) > 1 else "(top)"
        every, params = _annotations(ast.parse(path.read_text(encoding="utf-8")))
        tally = figures.setdefault(package, Counter())
        tally["dictStrAny"] += sum(1 for a in every if LOOSE in _text(a))
        tally["mappingStrAny"] += sum(1 for a in every if LOOSE_MAPPING in _text(a))
        tally["anyParameters"] += sum(1 for a in params if _text(a) == "Any")
    result = {name: dict(sorted(t.items())) for name, t in sorted(figures.items())}
    result["(all)"] = {
        key: sum(t.get(key, 0) for t in figures.values())
        for key in ("anyParameters", "dictStrAny", "mappingStrAny")
    }
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    figures = count()
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(
        f"{'package':<14} {'dict[str, Any]':>15} {'Mapping[str, Any]':>18} {'Any parameters':>15}"
    )
    for package, tally in figures.items():
        print(
            f"{package:<14} {tally['dictStrAny']:>15} {tally['mappingStrAny']:>18}"
            f" {tally['anyParameters']:>15}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
