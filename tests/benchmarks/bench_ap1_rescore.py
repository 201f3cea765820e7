"""Benchmark: re-score 100,000 streamed executions, and a 1,000-execution run.

The executions are real ones: the worked example is run once against the
built-in endpoint's mixed personas (correct, split, no tool, invented operand,
inverted sign, altered transcription, decline, flaky transport, foreign shape),
four repeats per item and condition. A synthetic run of the same sealed inputs
with 1,000 repeats is then written by reusing those records cell by cell (new
cell key, repeat, seq and hash chain; everything else as the personas played
it), so its outcomes are as mixed as the personas'. The re-score runs in a
fresh process, streaming the file through the scorer and writing every report
file, and reports its own wall time and peak resident memory.

Targets: at least 5,000 executions per second and under 300 MB peak for
100,000 executions; a 1,000-execution run re-scored (every file) in under a
second.

    .venv/bin/python tests/benchmarks/bench_ap1_rescore.py [--executions 100000]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from apconform.ap1.engine import RunOptions, run_sealed
from apconform.ap1.input_files import example_paths
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.plan import load_run_inputs, plan_cells
from apconform.ap1.rundir import INPUT_FILES
from apconform.ap1.sealing import build_seal, write_sealed_run
from apconform.core.canonical import canonical_text
from apconform.core.files import load_path

RATE_TARGET = 5_000
MEMORY_TARGET_MB = 300
SMALL_TARGET_SECONDS = 1.0
_PLACEHOLDERS = ("@SEQ@", "@PREV@", "@SEAL@", "@CELL@", "@REPEAT@")


def _documents(repeats: str, url: str = "http://127.0.0.1:9/v1/chat/completions") -> dict[str, Any]:
    paths = example_paths()
    config = copy.deepcopy(load_path(paths.config))
    config["endpoint"].update(url=url, model="mock-mixed")
    config["repeats"] = repeats
    return {
        "config": config,
        "fixture": load_path(paths.fixture),
        "questions": load_path(paths.questions),
        "derivations": load_path(paths.derivations),
        "ap1_text": paths.ap1_text.read_text(encoding="utf-8"),
    }


def _inputs(documents: dict[str, Any]) -> Any:
    return load_run_inputs(
        config=documents["config"],
        fixture=documents["fixture"],
        questions=documents["questions"],
        derivations=documents["derivations"],
        ap1_text=documents["ap1_text"],
    )


def _pool(folder: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Real executions of the mixed personas, by (condition, item)."""
    documents = _documents("4")
    with MockEndpoint(_inputs(documents), seed=11, stall_seconds=Decimal("0.3")) as mock:
        documents = _documents("4", mock.url)
        run_dir = folder / "pool"
        write_sealed_run(run_dir, _inputs(documents))
        run_sealed(run_dir, RunOptions(concurrency=16, progress=io.StringIO(), tty=False))
    pool: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with (run_dir / "transcript.jsonl").open("rb") as handle:
        for line in handle:
            record = json.loads(line)
            if record["kind"] == "execution":
                execution = record["execution"]
                pool.setdefault((execution["condition"], execution["itemId"]), []).append(record)
    return pool


def _template(record: dict[str, Any]) -> str:
    shaped = copy.deepcopy(record)
    del shaped["sha256"]
    shaped.update(seq=_PLACEHOLDERS[0], prevSha256=_PLACEHOLDERS[1], sealHash=_PLACEHOLDERS[2])
    shaped["execution"].update(cellKey=_PLACEHOLDERS[3], repeat=_PLACEHOLDERS[4])
    return canonical_text(shaped)


def _line(text: str) -> tuple[str, str]:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text[:-1] + ',"sha256":"' + digest + '"}', digest


def synthetic_run(
    folder: Path, pool: dict[tuple[str, str], list[dict[str, Any]]], repeats: int
) -> Path:
    """A sealed run directory whose transcript reuses the pool's executions for every cell."""
    documents = _documents(str(repeats))
    inputs = _inputs(documents)
    run_dir = folder / f"run-{repeats}"
    seal = build_seal(inputs)
    for name in ("config", "fixture", "questions", "derivations"):
        path = run_dir / INPUT_FILES[name]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(documents[name], indent=2) + "\n", encoding="utf-8")
    (run_dir / INPUT_FILES["ap1Text"]).write_text(documents["ap1_text"], encoding="utf-8")
    (run_dir / "seal.json").write_text(json.dumps(seal, indent=2) + "\n", encoding="utf-8")
    templates = {key: [_template(r) for r in records] for key, records in pool.items()}
    prev, seq = "0" * 64, 0
    with (run_dir / "transcript.jsonl").open("w", encoding="utf-8") as out:
        start = {
            "schemaVersion": "apconform-ap1-transcript/1",
            "seq": "0",
            "kind": "run-started",
            "recordedAt": "2026-11-30T10:00:00Z",
            "sealHash": seal["sealHash"],
            "prevSha256": prev,
            "runStarted": {
                "runId": "synthetic",
                "instrumentVersion": "0.1.0",
                "endpointUrl": documents["config"]["endpoint"]["url"],
                "model": "mock-mixed",
                "concurrency": "16",
                "rateLimitPerSecond": None,
                "plannedCells": seal["plan"]["cells"],
                "planSha256": seal["plan"]["planSha256"],
            },
        }
        line, prev = _line(canonical_text(start))
        out.write(line + "\n")
        for cell in plan_cells(inputs):
            seq += 1
            choices = templates[(cell.condition, cell.item_id)]
            text = choices[(cell.repeat - 1) % len(choices)]
            for placeholder, value in zip(
                _PLACEHOLDERS,
                (str(seq), prev, seal["sealHash"], cell.key, str(cell.repeat)),
                strict=True,
            ):
                text = text.replace(f'"{placeholder}"', json.dumps(value), 1)
            line, prev = _line(text)
            out.write(line + "\n")
        finish = {
            "schemaVersion": "apconform-ap1-transcript/1",
            "seq": str(seq + 1),
            "kind": "run-finished",
            "recordedAt": "2026-11-30T10:00:01Z",
            "sealHash": seal["sealHash"],
            "prevSha256": prev,
            "runFinished": {"cellsRecorded": str(seq), "statusCounts": []},
        }
        out.write(_line(canonical_text(finish))[0] + "\n")
    return run_dir


_CHILD = """
import json, resource, sys, time
from pathlib import Path
from apconform.ap1.scoring import score_run
started = time.perf_counter()
scored = score_run(Path(sys.argv[1]), Path(sys.argv[2]))
seconds = time.perf_counter() - started
document = scored.report.document
print(json.dumps({
    "seconds": seconds,
    "peakMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "executions": int(document["integrity"]["transcript"]["executions"]),
    "verified": document["integrity"]["transcript"]["verified"],
    "inputsMatchSeal": document["integrity"]["inputsMatchSeal"],
    "answers": document["answers"]["outcomes"],
    "routed": document["adjudication"]["routed"],
    "audit": len(document["operandProvenance"]["audit"]),
}))
"""


def rescore_in_child(run_dir: Path, output: Path) -> dict[str, Any]:
    """Re-score in a fresh process (its own clock and peak memory)."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(run_dir), str(output)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=100_000)
    args = parser.parse_args()
    repeats = max(1, round(args.executions / 100))  # 50 derivable items x 2 conditions
    with tempfile.TemporaryDirectory(prefix="ap1-bench-rescore-") as tmp:
        folder = Path(tmp)
        began = time.perf_counter()
        pool = _pool(folder)
        print(
            f"pool: {sum(len(v) for v in pool.values())} real executions of the mixed personas "
            f"in {time.perf_counter() - began:.1f} s"
        )
        began = time.perf_counter()
        large = synthetic_run(folder, pool, repeats)
        size = (large / "transcript.jsonl").stat().st_size
        print(
            f"synthetic transcript: {repeats} repeats, {size / 1e6:.0f} MB, written in "
            f"{time.perf_counter() - began:.1f} s"
        )
        result = rescore_in_child(large, folder / "report-large")
        rate = result["executions"] / result["seconds"]
        print(
            f"re-scored {result['executions']} executions in {result['seconds']:.2f} s: "
            f"{rate:,.0f} executions/s (target >= {RATE_TARGET:,}); peak memory "
            f"{result['peakMb']:.0f} MB (target < {MEMORY_TARGET_MB} MB)"
        )
        print(
            f"  chain verified: {result['verified']}; inputs match the seal: "
            f"{result['inputsMatchSeal']}; answers: "
            + ", ".join(f"{o['outcome']} {o['count']}" for o in result["answers"])
            + f"; routed to people: {result['routed']}; "
            + f"originated operands audited: {result['audit']}"
        )
        small = synthetic_run(folder, pool, 10)
        small_result = rescore_in_child(small, folder / "report-small")
        print(
            f"re-scored a {small_result['executions']}-execution run (every report file) in "
            f"{small_result['seconds']:.3f} s (target < {SMALL_TARGET_SECONDS:.0f} s)"
        )
        ok = (
            rate >= RATE_TARGET
            and result["peakMb"] < MEMORY_TARGET_MB
            and small_result["seconds"] < SMALL_TARGET_SECONDS
            and result["verified"]
        )
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
