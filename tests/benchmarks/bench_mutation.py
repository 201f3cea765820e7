"""Vector adequacy, measured: the mutation score of the reference implementation per protocol.

    python tests/benchmarks/bench_mutation.py [--protocol kit|apx|ap1 ...] [--max-children N]

For each protocol, mutmut (pinned in requirements/mutation.txt) mutates the
modules listed in ``MODULES`` inside a scratch copy of the repository and runs
``tests/benchmarks/mutation_vectors.py`` against every mutant: the vectors
alone, sent through the direct adapter, with no unit test. A mutant is killed
when some vector fails, or times out. Survivors that cannot change any answer
are listed, with the reason, in docs/kit/mutation.md; the score is

    killed / (mutants - equivalent survivors)

(the strict score also counts survivors listed as reason prose, whose wording
the contract leaves free, as not killed), and every survivor not listed
there is printed, to be killed by a new vector or listed with its reason. CPU
heavy: it is not part of CI or the test suite.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EQUIVALENTS_PAGE = REPO / "docs" / "kit" / "mutation.md"

MODULES = {
    # The kit's own rules: canonical JSON and digests, the bounded loader, the path notation.
    "kit": [
        "src/apconform/core/canonical.py",
        "src/apconform/core/jsonload.py",
        "src/apconform/core/jsonpath.py",
    ],
    # The APx arithmetic and result: AP and APx, crediting, the result document.
    "apx": [
        "src/apconform/apx/metrics.py",
        "src/apconform/apx/scoring.py",
        "src/apconform/apx/result.py",
    ],
    # The AP-1 measurements: figures and tokens, invocation (D7.1), provenance (D7.2a),
    # operation (D7.2b), transcription (D7.3), accuracy and the composed answer status.
    "ap1": [
        "src/apconform/ap1/scoring/measures/tokens.py",
        "src/apconform/ap1/scoring/measures/figures.py",
        "src/apconform/ap1/scoring/measures/invocation.py",
        "src/apconform/ap1/scoring/measures/provenance.py",
        "src/apconform/ap1/scoring/measures/operation.py",
        "src/apconform/ap1/scoring/measures/transcription.py",
        "src/apconform/ap1/scoring/measures/accuracy.py",
        "src/apconform/ap1/scoring/measures/answers.py",
    ],
}
_COPIED = ("src", "vectors", "spec", "schemas", "examples", "pyproject.toml")
_RESULT = re.compile(r"^\s+(\S+): (.+)$")


_ROW = re.compile(r"^\| `([\w.ǁ]+)` \| (all|[0-9, ]+) \| (.+?) \|$")


def equivalents() -> dict[str, str]:
    """(function, mutant number or "all") -> reason, from the table in docs/kit/mutation.md.

    A row is ``| `apconform.core.canonical.x__scalar` | all | reason |`` or lists the
    numbers of the function's mutants (``12, 13``) that the reason covers.
    """
    found = {}
    for line in EQUIVALENTS_PAGE.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            function, numbers, reason = match.groups()
            for number in ["all"] if numbers == "all" else numbers.replace(" ", "").split(","):
                found[f"{function}__mutmut_{number}"] = reason
    return found


def _listed(name: str, known: dict[str, str]) -> bool:
    return name in known or f"{name.rsplit('__mutmut_', 1)[0]}__mutmut_all" in known


def _kind(known: dict[str, str], name: str) -> str:
    reason = known.get(name) or known[f"{name.rsplit('__mutmut_', 1)[0]}__mutmut_all"]
    head = reason.split(":", 1)[0]
    return head if head in ("Prose", "Unreachable", "Equivalent") else "other"


def _scratch(protocol: str, root: Path) -> Path:
    work = root / protocol
    for name in _COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, work / name)
    (work / "tests").mkdir()
    shutil.copy2(Path(__file__).with_name("mutation_vectors.py"), work / "tests")
    only = "\n    ".join(MODULES[protocol])
    (work / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths = src\n"
        f"only_mutate =\n    {only}\n"
        "also_copy =\n    vectors\n    spec\n    schemas\n    examples\n"
        "pytest_add_cli_args_test_selection = tests/mutation_vectors.py\n",
        encoding="utf-8",
    )
    return work


def _mutmut(work: Path, *args: str, log: Path, capture: bool = False) -> str:
    with log.open("a", encoding="utf-8") as out:
        result = subprocess.run(
            [sys.executable, "-m", "mutmut", *args],
            cwd=work,
            stdout=subprocess.PIPE if capture else out,
            stderr=out,
            text=True,
            check=False,
        )
    return result.stdout if capture else ""


def measure(protocol: str, root: Path, max_children: int) -> dict[str, object]:
    work = _scratch(protocol, root)
    log = root / f"{protocol}.log"
    began = time.perf_counter()
    _mutmut(work, "run", "--max-children", str(max_children), log=log)
    elapsed = time.perf_counter() - began
    statuses = {}
    for line in _mutmut(work, "results", "--all", "true", log=log, capture=True).splitlines():
        match = _RESULT.match(line)
        if match:
            statuses[match.group(1)] = match.group(2).strip()
    counts = Counter(statuses.values())
    known = equivalents()
    # A mutant no vector reaches survives too: it counts against the score, like any other.
    survivors = sorted(
        name for name, status in statuses.items() if status in ("survived", "no tests")
    )
    equivalent = [name for name in survivors if _listed(name, known)]
    unexplained = [name for name in survivors if not _listed(name, known)]
    killed = counts["killed"] + counts["timeout"]
    considered = len(statuses) - len(equivalent)
    # A listed reason opens with its kind ("Prose: ...", "Unreachable: ..."); prose the
    # contract leaves free is not equivalent behaviour, so the strict score counts it as alive.
    kinds = Counter(_kind(known, name) for name in equivalent)
    strict = len(statuses) - len(equivalent) + kinds["Prose"]
    return {
        "protocol": protocol,
        "modules": MODULES[protocol],
        "mutants": len(statuses),
        "killed": killed,
        "survived": len(survivors),
        "equivalent": len(equivalent),
        "noTests": counts["no tests"],
        "other": {
            status: count
            for status, count in counts.items()
            if status not in ("killed", "timeout", "survived", "no tests")
        },
        "score": round(100 * killed / considered, 1) if considered else None,
        "listedByKind": dict(sorted(kinds.items())),
        "strictScore": round(100 * killed / strict, 1) if strict else None,
        "unexplained": unexplained,
        "seconds": round(elapsed),
        "log": str(log),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", action="append", choices=sorted(MODULES))
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: temp)")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="apconform-mutation-"))
    root.mkdir(parents=True, exist_ok=True)
    figures = []
    for protocol in args.protocol or sorted(MODULES):
        result = measure(protocol, root, args.max_children)
        figures.append(result)
        print(
            f"{protocol}: {result['mutants']} mutants, {result['killed']} killed by the vectors, "
            f"{result['survived']} not killed ({result['noTests']} of them reached by no "
            f"vector; {result['equivalent']} listed as equivalent); score {result['score']}% of "
            f"non-equivalent mutants; {result['strictScore']}% counting reason prose as not "
            f"killed ({result['seconds']} s)"
        )
        for name in result["unexplained"]:
            print(f"  not killed and not listed in docs/kit/mutation.md: {name}")
    print(json.dumps(figures, indent=2))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
