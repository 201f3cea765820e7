"""Do the kit's outputs keep their bytes across a refactoring? The code at an earlier commit
beside the checkout's, on the same inputs.

    python tests/benchmarks/same_outputs.py [--before REV]   (default: d72da74)

Issue 28 asks that moving the use cases and typing the records leave the outputs byte for
byte as they were, the scorer's own source digest apart (it hashes the scorer's source, so
it changes with any change to it). The earlier commit's tree is unpacked with
``git archive`` and run with this environment's interpreter (``PYTHONPATH`` at its
``src``); then, with each tree's code in turn:

- the AP-1 demo run written by the earlier code is re-scored (``ap1 rescore --jobs 1`` and
  ``--jobs 2``): every report file is compared, raw and with the two scorer digests
  replaced by one placeholder;
- the earlier demo's ledger is exported (``ledger export``): compared raw;
- the reference implementation is checked against every vector (``check --format json``):
  each record compared with ``finishedAt`` and durations masked, then with the scorer
  digest masked too (the AP-1 score documents quote it), and the footer's digest of the
  cases apart.

A demo run itself is not compared whole: two runs of unchanged code already differ (clock
times, and the mock endpoint's answers follow the order in which concurrent requests
arrive). Not a test: it takes a few minutes; its lines go in a closing note.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from results import REPO

TIMING = re.compile(
    r'"(finishedAt|startedAt|durationMs|elapsedMs|elapsedSeconds)": ?("[^"]*"|[\d.]+)'
)


def unpack(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def apconform(tree: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    command = [sys.executable, "-m", "apconform.cli", *args]
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False)


def scorer_digest(report_dir: Path) -> str:
    report = json.loads((report_dir / "score-report.json").read_text(encoding="utf-8"))
    return str(report["scorer"]["sourceSha256"])


def rescored(trees: dict[str, Path], run_dir: Path, work: Path, jobs: str) -> str:
    """Re-score ``run_dir`` with each tree; how the report files compare."""
    folders = {}
    for name, tree in trees.items():
        folders[name] = work / f"rescore-{name}-{jobs}"
        done = apconform(
            tree,
            "ap1",
            "rescore",
            str(run_dir),
            "--output-dir",
            str(folders[name]),
            "--jobs",
            jobs,
        )
        if done.returncode not in (0, 1):  # 1: differs from the report written by the run
            raise SystemExit(f"{name}: ap1 rescore failed: {done.stderr.decode()[-2000:]}")
    before, after = folders["before"], folders["after"]
    names = sorted(p.relative_to(before) for p in before.rglob("*") if p.is_file())
    if names != sorted(p.relative_to(after) for p in after.rglob("*") if p.is_file()):
        return f"re-score --jobs {jobs}: the two trees wrote different files"
    digests = (scorer_digest(before).encode(), scorer_digest(after).encode())
    raw = masked = 0
    differ = []
    for name in names:
        old, new = (before / name).read_bytes(), (after / name).read_bytes()
        if old == new:
            raw += 1
        elif old.replace(digests[0], b"SCORER") == new.replace(digests[1], b"SCORER"):
            masked += 1
        else:
            differ.append(str(name))
    return (
        f"re-score --jobs {jobs}: {len(names)} report files; {raw} identical, {masked} identical "
        f"once the scorer digest is masked, {len(differ)} different {differ}"
    )


def checked(trees: dict[str, Path], digests: dict[str, str]) -> str:
    """Every vector checked with each tree's reference implementation; records compared."""
    records = {}
    for name, tree in trees.items():
        done = apconform(
            tree,
            "check",
            "--impl",
            "direct:apconform.conformance.reference:adapter",
            "--format",
            "json",
        )
        lines = done.stdout.decode().splitlines()
        records[name] = [TIMING.sub(r'"\1": "T"', line) for line in lines]
    before, after = records["before"], records["after"]
    if len(before) != len(after):
        return f"conformance report: {len(before)} records before, {len(after)} after"
    same = sum(a == b for a, b in zip(before, after, strict=True))
    unmasked = [
        i
        for i, (a, b) in enumerate(zip(before, after, strict=True))
        if a.replace(digests["before"], "S") != b.replace(digests["after"], "S")
    ]
    footer = json.loads(after[-1]).get("record") == "footer"
    rest = [i for i in unmasked if not (footer and i == len(after) - 1)]
    first_footer = json.loads(before[-1]) if footer else {}
    last_footer = json.loads(after[-1]) if footer else {}
    for document in (first_footer, last_footer):
        document.pop("casesSha256", None)
    return (
        f"conformance report: {len(after)} records; {same} identical with timings masked; "
        f"{len(after) - len(unmasked)} once the scorer digest is masked too; other differences "
        f"{rest}; footer equal apart from casesSha256: {first_footer == last_footer}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="d72da74", help="the earlier commit (d72da74)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="apconform-same-outputs-") as folder:
        work = Path(folder)
        trees = {"before": unpack(args.before, work / "before"), "after": REPO}
        demo = work / "demo"
        done = apconform(trees["before"], "demo", "--output-dir", str(demo))
        if done.returncode != 0:
            raise SystemExit(f"the earlier demo failed: {done.stderr.decode()[-2000:]}")
        print(f"before: {args.before}; after: the checkout at {REPO}")
        for jobs in ("1", "2"):
            print(rescored(trees, demo / "ap1-run", work, jobs))
        exports = {
            name: apconform(tree, "ledger", "export", "--ledger", str(demo / "ledger.db")).stdout
            for name, tree in trees.items()
        }
        print(
            f"ledger export of the earlier demo's ledger: {len(exports['before']):,} bytes, "
            f"identical: {exports['before'] == exports['after']}"
        )
        digests = {name: scorer_digest(work / f"rescore-{name}-1") for name in ("before", "after")}
        print(checked(trees, digests))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
