"""Vector adequacy, measured: the strict mutation score of the reference, per module and protocol.

    nice -n 19 python tests/benchmarks/bench_mutation.py [--protocol kit|apx|ap1 ...]
        [--module src/apconform/PATH.py ...] [--work DIR] [--max-children N] [--hours H]
        [--retry-survivors] [--report-only]

Every module with a function some vector's operation executes is mutated
(mutmut, pinned in requirements/mutation.txt), in one scratch copy of the
repository per protocol under ``--work`` (default /tmp/apconform-mutation),
and each mutant is run against ``tests/benchmarks/mutation_vectors.py``: the
vectors alone, through the direct adapter, judged as the contract judges
(KIT-VEC-3). The work is resumable: mutmut keeps each mutant's result in the
scratch copy, and a run only runs the mutants of each module that have none
(``--retry-survivors`` runs the survivors again, after new vectors), module by
module, until ``--hours`` is spent. A module the scratch copy holds no run mutant of
(a new machine, a lost folder) keeps its committed result while its source has
the digest that result records (``sourceSha256``); a changed module is measured
again. Then the results of every module are read
and written to docs/kit/mutation-result.json, from which ``apconform-dev gen``
renders docs/kit/mutation.md.

A mutant is killed when some vector fails or it hangs. A mutant that is not
killed is excluded only on its own, for a reason a reader can check:

- *informative*: every reply it changed differs from the unmutated reply only in
  messages, which KIT-VEC-3 leaves free (the vectors and paths are recorded);
- *unreachable*: its function cannot run during any operation (see
  ``mutation_analysis.static_reach``; recomputed every run);
- *equivalent* or *unreachable* by a waiver in tests/benchmarks/mutation_waivers.json,
  which names the mutant and its exact change, so it goes stale when either moves.

A waiver of kind *accepted* explains a survivor without excluding it. The
strict score is killed / (mutants - excluded), given for a module only when all
its mutants ran and for a protocol only when all its modules' did; until then
the result says, per module, "not run yet" or "partly run", and gives the score
of the mutants that ran apart (``scoreOfRun``) with the measured seconds per
mutant and an estimate of what is left. CPU heavy: not part of CI or the test
suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mutation_analysis import (
    function_of,
    import_time_functions,
    mutant_changes,
    protocol_of,
    reached_modules,
    static_reach,
    unmutated_functions,
)

REPO = Path(__file__).resolve().parents[2]
RESULT = REPO / "docs" / "kit" / "mutation-result.json"
WAIVERS = Path(__file__).with_name("mutation_waivers.json")
_COPIED = ("src", "vectors", "spec", "schemas", "examples", "pyproject.toml")
KILLED = {1: "killed", 3: "killed"}
HUNG = {
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
    -9: "timeout",
    -11: "crashed",
}
SURVIVED = {0: "survived", 33: "no tests", 5: "no tests"}


def _dotted(module: str) -> str:
    return module.removeprefix("src/").removesuffix(".py").replace("/", ".")


def _scratch(protocol: str, modules: list[str], work: Path) -> Path:
    """The protocol's scratch copy: sources refreshed (mtimes kept), mutmut's state kept."""
    root = work / protocol
    root.mkdir(parents=True, exist_ok=True)
    for name in _COPIED:
        source = REPO / name
        if source.is_dir():
            target = root / name
            if target.exists() and name == "vectors":
                shutil.rmtree(target)  # a vector removed here must be gone there too
            shutil.copytree(
                source,
                target,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__"),
            )
        else:
            shutil.copy2(source, root / name)
    (root / "tests").mkdir(exist_ok=True)
    shutil.copy2(Path(__file__).with_name("mutation_vectors.py"), root / "tests")
    (root / "notes").mkdir(exist_ok=True)
    only = "\n    ".join(modules)
    (root / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths = src\n"
        f"only_mutate =\n    {only}\n"
        "also_copy =\n    vectors\n    spec\n    schemas\n    examples\n"
        "pytest_add_cli_args_test_selection = tests/mutation_vectors.py\n",
        encoding="utf-8",
    )
    return root


def _meta(root: Path, module: str) -> dict[str, Any]:
    path = root / "mutants" / f"{module}.meta"
    if not path.is_file():
        return {}
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _mutmut(root: Path, names: list[str], max_children: int, log: Path) -> None:
    # The scratch copy's own sources (mutmut puts its mutated copy first on the path); a
    # PYTHONPATH naming another copy would shadow the mutants.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["APCONFORM_MUTATION_NOTES"] = str(root / "notes")
    with log.open("a", encoding="utf-8") as out:
        subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children), *names],
            cwd=root,
            stdout=out,
            stderr=out,
            env=env,
            check=False,
        )


def run_module(root: Path, module: str, max_children: int, retry: bool, deadline: float) -> int:
    """Run the mutants of one module that have no result yet (or survived, with ``retry``),
    in batches, until the deadline; return how many got a new result."""
    meta = _meta(root, module)
    codes = meta.get("exit_code_by_key", {})
    if not meta:  # mutants not generated yet: mutmut generates them all, then runs these
        names = [f"{_dotted(module)}.*"]
    else:
        names = sorted(
            name for name, code in codes.items() if code is None or (retry and code in SURVIVED)
        )
    before = codes
    for start in range(0, len(names), 300):
        if time.monotonic() > deadline:
            break
        batch = names[start : start + 300]
        for name in batch:
            (root / "notes" / f"{name}.jsonl").unlink(missing_ok=True)
        began = time.monotonic()
        _mutmut(root, batch, max_children, root / "mutmut.log")
        now = _meta(root, module).get("exit_code_by_key", {})
        _record_wall(root, module, _gained(before, now), time.monotonic() - began)
        before = now
    return _gained(codes, _meta(root, module).get("exit_code_by_key", {}))


def _gained(before: dict[str, Any], after: dict[str, Any]) -> int:
    return sum(1 for name, code in after.items() if code is not None and before.get(name) != code)


def _wall(root: Path) -> dict[str, dict[str, float]]:
    path = root / "wall.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _record_wall(root: Path, module: str, mutants: int, seconds: float) -> None:
    """The wall time mutmut took for a module's mutants, its own start and clean run included,
    so that the time a protocol still needs can be estimated from what was measured."""
    wall = _wall(root)
    entry = wall.setdefault(module, {"mutants": 0, "seconds": 0.0})
    entry["mutants"] += mutants
    entry["seconds"] = round(entry["seconds"] + seconds, 1)
    (root / "wall.json").write_text(json.dumps(wall, indent=1, sort_keys=True), encoding="utf-8")


def _notes(root: Path, mutant: str) -> list[dict[str, Any]]:
    path = root / "notes" / f"{mutant}.jsonl"
    if not path.is_file():
        return []
    notes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            notes.append(json.loads(line))
        except json.JSONDecodeError:  # a note cut at its size bound: not provably a message
            notes.append({"vector": "(note cut)", "kind": "unpinned", "differences": []})
    return notes


def _waivers() -> dict[str, dict[str, Any]]:
    if not WAIVERS.is_file():
        return {}
    entries = json.loads(WAIVERS.read_text(encoding="utf-8"))["waivers"]
    return {entry["mutant"]: entry for entry in entries}


def classify(
    root: Path,
    module: str,
    reach: set[str],
    waivers: dict[str, dict[str, Any]],
    import_time: set[str],
) -> dict[str, Any]:
    """One module's figures, every exclusion with its reason, every unexplained survivor."""
    meta = _meta(root, module)
    codes: dict[str, int | None] = meta.get("exit_code_by_key", {})
    mutated = root / "mutants" / module
    changes = mutant_changes(mutated) if mutated.is_file() else {}
    dotted = _dotted(module)
    counts: Counter[str] = Counter()
    excluded, accepted, unexplained, stale = [], [], [], []
    for name, code in sorted(codes.items()):
        change = changes.get(name.removeprefix(dotted + "."), "")
        if code is None:
            counts["pending"] += 1
            continue
        if code in KILLED:
            counts["killed"] += 1
            continue
        if code in HUNG:
            counts["timeout"] += 1
            continue
        status = SURVIVED.get(code, f"exit {code}")
        counts[status.replace(" ", "")] += 1
        waiver = waivers.get(name)
        if waiver is not None and waiver["change"] != change:
            stale.append(name)
            waiver = None
        notes = _notes(root, name)
        entry: dict[str, Any] = {"mutant": name, "change": change}
        if waiver is not None:
            entry.update(kind=waiver["kind"], reason=waiver["reason"], by="waiver")
            (accepted if waiver["kind"] == "accepted" else excluded).append(entry)
        elif status == "no tests" and function_of(name) not in reach:
            entry.update(
                kind="unreachable",
                by="reach",
                reason=f"no operation can call {function_of(name).rsplit('.', 1)[1]}: no "
                "chain of references leads to it from any registered operation",
            )
            excluded.append(entry)
        elif notes and all(note["kind"] == "message" for note in notes):
            where = sorted({f"{n['vector']} {d['path']}" for n in notes for d in n["differences"]})
            entry.update(
                kind="informative",
                by="notes",
                reason="changes only messages, which KIT-VEC-3 leaves free: "
                + "; ".join(where[:3])
                + (f"; and {len(where) - 3} more" if len(where) > 3 else ""),
            )
            excluded.append(entry)
        else:
            entry["status"] = status
            if notes:
                entry["observed"] = sorted({n["vector"] for n in notes})[:5]
            if function_of(name) in import_time:
                entry["note"] = "module-level code calls it: it may run only at import"
            unexplained.append(entry)
    total = sum(1 for _ in codes)
    killed = counts["killed"] + counts["timeout"]
    ran = total - counts["pending"]
    timings = meta.get("durations_by_key", {}).values()
    durations = [v for v in timings if isinstance(v, (int, float))]
    return {
        "module": module,
        "protocol": protocol_of(module),
        "sourceSha256": hashlib.sha256((REPO / module).read_bytes()).hexdigest(),
        "status": _status(total, counts["pending"]) if meta else "not generated yet",
        "mutants": total,
        "run": ran,
        "killed": counts["killed"],
        "timeout": counts["timeout"],
        "survived": counts["survived"],
        "noTests": counts["notests"],
        "pending": counts["pending"],
        "excluded": len(excluded),
        "excludedByKind": dict(sorted(Counter(e["kind"] for e in excluded).items())),
        # Only a module whose every mutant ran has a strict score; until then, the score of
        # the mutants that ran is shown apart, and says nothing about the others.
        "strictScore": _score(killed, total - len(excluded)) if not counts["pending"] else None,
        "scoreOfRun": _score(killed, ran - len(excluded)),
        "seconds": round(sum(durations)),
        "timed": len(durations),
        "secondsPerMutant": round(sum(durations) / len(durations), 2) if durations else None,
        "wall": _wall(root).get(module),
        # Decorated functions mutmut leaves alone: not mutated, so not in any figure above.
        "notMutated": unmutated_functions(module),
        "exclusions": excluded,
        "acceptedSurvivors": accepted,
        "unexplained": unexplained,
        "staleWaivers": stale,
    }


def _status(mutants: int, pending: int) -> str:
    if not mutants:
        return "no mutants"
    if pending == mutants:
        return "not run yet"
    return "partly run" if pending else "complete"


def _score(killed: int, considered: int) -> float | None:
    return round(100 * killed / considered, 1) if considered else None


def _summary(modules: list[dict[str, Any]]) -> dict[str, Any]:
    """A protocol's figures. Its strict score exists only when every module's mutants ran."""
    total = sum(m["mutants"] for m in modules)
    ran = sum(m["run"] for m in modules)
    killed = sum(m["killed"] + m["timeout"] for m in modules)
    excluded = sum(m["excluded"] for m in modules)
    pending = sum(m["pending"] for m in modules)
    ungenerated = [m for m in modules if m["status"] == "not generated yet"]
    walled = [m["wall"] for m in modules if m["wall"] and m["wall"]["mutants"]]
    if walled:  # measured wall time, mutmut's start and clean runs included
        per_mutant: float | None = sum(w["seconds"] for w in walled) / sum(
            w["mutants"] for w in walled
        )
    else:  # only the vectors' own time per mutant is known: a lower bound
        timed = sum(m["timed"] for m in modules)
        per_mutant = sum(m["seconds"] for m in modules) / timed if timed else None
    return {
        "modules": len(modules),
        "modulesByStatus": dict(sorted(Counter(m["status"] for m in modules).items())),
        "mutants": total,
        "run": ran,
        "killed": killed,
        "excluded": excluded,
        "pending": pending,
        "notGenerated": len(ungenerated),
        "unexplained": sum(len(m["unexplained"]) for m in modules),
        "acceptedSurvivors": sum(len(m["acceptedSurvivors"]) for m in modules),
        "functionsNotMutated": sum(len(m["notMutated"]) for m in modules),
        # a module whose mutants were never generated has none counted: no strict score then
        "strictScore": _score(killed, total - excluded)
        if modules and not pending and not ungenerated
        else None,
        "scoreOfRun": _score(killed, ran - excluded),
        "secondsPerMutant": round(per_mutant, 2) if per_mutant is not None else None,
        "estimateFrom": "wall time" if walled else "vector time only (a lower bound)",
        "estimatedSecondsLeft": round(pending * per_mutant) if per_mutant is not None else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", action="append", choices=["ap1", "apx", "kit"])
    parser.add_argument("--module", action="append", help="only these modules (repository paths)")
    parser.add_argument("--work", default="/tmp/apconform-mutation", help="the scratch folder")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--hours", type=float, default=24.0, help="stop sending mutants after")
    parser.add_argument("--retry-survivors", action="store_true")
    parser.add_argument("--report-only", action="store_true", help="read results, run nothing")
    args = parser.parse_args()
    work = Path(args.work)
    deadline = time.monotonic() + args.hours * 3600
    modules = reached_modules()
    protocols = args.protocol or ["kit", "apx", "ap1"]
    reach = static_reach(modules)
    import_time = import_time_functions()
    waivers = _waivers()
    committed: dict[str, dict[str, Any]] = (
        {m["module"]: m for m in json.loads(RESULT.read_text())["modules"]}
        if RESULT.is_file()
        else {}
    )
    previous = {name: m.get("seconds", 0) for name, m in committed.items()}
    results: dict[str, dict[str, Any]] = {}
    for protocol in ("kit", "apx", "ap1"):
        mine = [m for m in modules if protocol_of(m) == protocol]
        root = work / protocol
        chosen = [m for m in mine if not args.module or m in args.module]
        if protocol in protocols and not args.report_only:
            root = _scratch(protocol, mine, work)
            # cheapest first, as measured, so that a time limit leaves few modules half done
            chosen.sort(key=lambda m: (previous.get(m, 0), m))
            for module in chosen:
                began = time.monotonic()
                sent = run_module(root, module, args.max_children, args.retry_survivors, deadline)
                if sent:
                    print(
                        f"{module}: {sent} mutants run in {time.monotonic() - began:.0f} s",
                        flush=True,
                    )
        # every protocol is read from its scratch copy, run now or before; a module the
        # scratch copy has no mutants of keeps its committed result while its source is
        # the one that result measured (a lost scratch folder loses no measurement)
        for module in mine:
            fresh = classify(root, module, reach, waivers, import_time)
            kept = committed.get(module)
            if (
                fresh["run"] == 0
                and kept is not None
                and kept["run"] > 0
                and kept.get("sourceSha256") == fresh["sourceSha256"]
            ):
                fresh = kept
            results[module] = fresh
    listed = [results[m] for m in modules if m in results]
    document = {
        "schemaVersion": "apconform-mutation-result/1",
        "tool": "mutmut 3.8.1",
        "measuredAt": datetime.now(UTC).strftime("%Y-%m-%d"),
        "vectorSetVersion": (REPO / "vectors" / "VERSION").read_text().strip(),
        "protocols": {
            p: _summary([m for m in listed if m["protocol"] == p]) for p in ("kit", "apx", "ap1")
        },
        "modules": listed,
    }
    RESULT.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for protocol, figures in document["protocols"].items():
        print(f"{protocol}: {json.dumps(figures)}")
    for module in listed:
        print(
            f"  {module['module']}: {module['status']}, {module['mutants']} mutants,"
            f" {module['run']} run, strict {module['strictScore']}%,"
            f" of run {module['scoreOfRun']}%, {len(module['unexplained'])} unexplained"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
