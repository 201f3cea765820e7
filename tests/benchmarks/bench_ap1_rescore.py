"""Benchmark: re-score 100,000 streamed executions, and a 1,000-execution run.

The executions are real ones: the worked example is run once against the
built-in endpoint's mixed personas (correct, split, no tool, invented operand,
inverted sign, altered transcription, decline, flaky transport, foreign shape),
four repeats per item and condition. A synthetic run of the same sealed inputs
with 1,000 repeats is then written by reusing those records cell by cell (new
cell key, repeat, seq and hash chain; everything else as the personas played
it), so its outcomes are as mixed as the personas'. Each reuse also gets its
own white space inside the calculator arguments and returns (``_vary``), so
the scorer's memoised argument/return reading really runs for every
execution instead of hitting 404 cached texts, and every D2 tool-argument
value is new; ``--also-reused`` times the byte-identical reuse as well. What
stays cached legitimately: the item tables built from the sealed inputs,
compiled patterns, the parameter-echo comparison of the run's few sampling
values, and the expression analysis and call scoring, which are memoised by
the expressions' tokens (white space between tokens does not change them; the
expression text as written is still reported for each execution).

The re-score runs in a fresh process, streaming the file through the scorer
(in worker processes when the scorer chooses to, or ``--jobs N``) and writing
every report file. Its wall time is its own; its peak memory is getrusage's
maxrss: the larger of that process's peak and, while workers ran, its peak
up to their end plus the largest worker's peak once per worker (an upper
bound; shared pages count in each process); the resident memory of its
process tree is also sampled every 20 ms, as RSS summed over the processes
and as proportional set size (PSS) summed, which counts a page shared by
forked processes once.

Targets: at least 10,000 executions per second with the default jobs on the
two cores and under 300 MB peak by both measures, the getrusage bound and the
sampled RSS of the tree, for 100,000 executions and (``--executions 1000000``)
for a million, memory flat in the number of executions (issue 17; the first
target was 5,000); a 1,000-execution run re-scored (every file) in under a
second. The CPU time of the re-scoring process and its workers is printed
beside the wall time: on a shared machine it is the steadier figure.

    .venv/bin/python tests/benchmarks/bench_ap1_rescore.py [--executions 100000] [--save]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from results import figure, load_average, save

from apconform.ap1.inputs.files import example_paths
from apconform.ap1.inputs.plan import load_run_inputs, plan_cells
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.rundir import INPUT_FILES
from apconform.ap1.seal.build import build_seal, write_sealed_run
from apconform.core.canonical import canonical_text
from apconform.core.files import load_path

RATE_TARGET = 10_000
MEMORY_TARGET_MB = 300
SMALL_TARGET_SECONDS = 1.0
_PLACEHOLDERS = ("@SEQ@", "@PREV@", "@SEAL@", "@CELL@", "@REPEAT@")
_PAD = ("@PAD-A@", "@PAD-B@")
"""Marks in a template where white space varies from cell to cell (see ``_vary``)."""
_PAD_WIDTH = 32


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


def _mark_call(call: dict[str, Any]) -> None:
    """Put the padding marks inside each string argument and around the return's members."""
    try:
        arguments = json.loads(call["argumentsRaw"])
    except ValueError:
        arguments = None
    if isinstance(arguments, dict):
        call["argumentsRaw"] = json.dumps(
            {k: f"{_PAD[0]}{v}{_PAD[1]}" if isinstance(v, str) else v for k, v in arguments.items()}
        )
    returned = call.get("returnRaw")
    if isinstance(returned, str) and returned.startswith("{") and returned.endswith("}"):
        call["returnRaw"] = "{" + _PAD[0] + returned[1:-1] + _PAD[1] + "}"


def _template(record: dict[str, Any]) -> str:
    shaped = copy.deepcopy(record)
    del shaped["sha256"]
    for call in shaped["execution"]["toolCalls"]:
        _mark_call(call)
    shaped.update(seq=_PLACEHOLDERS[0], prevSha256=_PLACEHOLDERS[1], sealHash=_PLACEHOLDERS[2])
    shaped["execution"].update(cellKey=_PLACEHOLDERS[3], repeat=_PLACEHOLDERS[4])
    return canonical_text(shaped)


def _line(text: str) -> tuple[str, str]:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text[:-1] + ',"sha256":"' + digest + '"}', digest


def _vary(text: str, variant: int) -> str:
    """Pad the marked places with white space that differs for each reuse of a template.

    The expression gets leading and trailing spaces (the calculator's grammar
    skips them) and the return's JSON object white space inside its braces, so
    every cell's argument and return texts are new strings: the scorer's
    memoised JSON argument/return reading misses (its expression analysis is
    memoised by tokens and hits, as it would for a model that re-spaces the
    same expression), while every value,
    operand and outcome stays as the persona played it. ``variant`` 0 is the
    unpadded template (all reuses identical: the scorer's caches hit).
    """
    left = " " * (variant % _PAD_WIDTH)
    right = " " * (variant // _PAD_WIDTH % _PAD_WIDTH)
    return text.replace(_PAD[0], left).replace(_PAD[1], right)


def synthetic_run(
    folder: Path,
    pool: dict[tuple[str, str], list[dict[str, Any]]],
    repeats: int,
    *,
    distinct: bool = True,
) -> Path:
    """A sealed run directory whose transcript reuses the pool's executions for every cell.

    With ``distinct`` each reuse of a pool execution gets its own argument and
    return texts (see ``_vary``); without it the reuses are byte-identical
    apart from the cell key, repeat, seq and chain.
    """
    documents = _documents(str(repeats))
    inputs = _inputs(documents)
    run_dir = folder / f"run-{repeats}{'' if distinct else '-reused'}"
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
            index, variant = (cell.repeat - 1) % len(choices), (cell.repeat - 1) // len(choices)
            text = _vary(choices[index], variant if distinct else 0)
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
jobs = None if sys.argv[3] == "auto" else int(sys.argv[3])
started = time.perf_counter()
scored = score_run(Path(sys.argv[1]), Path(sys.argv[2]), jobs=jobs)
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
document = scored.report.document
print(json.dumps({
    "seconds": seconds,
    "cpuSeconds": sum(u.ru_utime + u.ru_stime for u in usage),
    "jobs": scored.jobs,
    "selfMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "childMb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    "hwmMb": next(int(line.split()[1]) for line in open("/proc/self/status")
                  if line.startswith("VmHWM:")) / 1024,
    "streamingMb": (scored.streaming_maxrss_kib or 0) / 1024,
    "executions": int(document["integrity"]["transcript"]["executions"]),
    "verified": document["integrity"]["transcript"]["verified"],
    "inputsMatchSeal": document["integrity"]["inputsMatchSeal"],
    "answers": document["answers"]["outcomes"],
    "routed": document["adjudication"]["routed"],
    "audit": len(document["operandProvenance"]["audit"]),
}))
"""


def _tree_memory_kb(pid: int) -> tuple[int, int]:
    """Resident memory of a process and its descendants now (kB): RSS summed (shared pages
    counted in each process) and PSS summed (each shared page split between its sharers)."""
    rss = pss = 0
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rss += next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:"))
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        pss += next(int(x.split()[1]) for x in rollup.splitlines() if x.startswith("Pss:"))
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            child_rss, child_pss = _tree_memory_kb(int(child))
            rss, pss = rss + child_rss, pss + child_pss
    except (OSError, StopIteration, ValueError):
        pass
    return rss, pss


_LAUNCHER = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"
"""Starts the re-scoring process from a small one. Linux keeps a process's getrusage maxrss
across exec, and a process started from this one (fork or vfork, then exec) begins with this
one's peak: at a million executions, the 336 MB this benchmark held writing the transcript."""


def _launched_memory_kb(launcher: int) -> tuple[int, int]:
    """The memory of the launcher's descendants (the re-scoring tree), not the launcher's own."""
    rss = pss = 0
    try:
        children = Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()
    except OSError:
        return 0, 0
    for child in children:
        child_rss, child_pss = _tree_memory_kb(int(child))
        rss, pss = rss + child_rss, pss + child_pss
    return rss, pss


def rescore_in_child(run_dir: Path, output: Path, jobs: str) -> dict[str, Any]:
    """Re-score in a fresh process (its own clock and peak memory), sampling its tree's memory."""
    child = subprocess.Popen(
        [
            *(sys.executable, "-c", _LAUNCHER),
            *(sys.executable, "-c", _CHILD, str(run_dir), str(output), jobs),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = peak_pss = 0
    while child.poll() is None:
        rss, pss = _launched_memory_kb(child.pid)
        peak, peak_pss = max(peak, rss), max(peak_pss, pss)
        time.sleep(0.02)
    out, err = child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"the re-score failed:\n{err}")
    result = dict(json.loads(out))
    result["sampledMb"] = peak / 1024
    result["sampledPssMb"] = peak_pss / 1024
    # getrusage: while workers run, the tree holds at most the parent's peak up to their end
    # plus each worker's peak (the largest child's, once per worker); after they end, only the
    # parent. Shared copy-on-write pages are counted in every process, so this is an upper bound.
    workers = result["jobs"] if result["jobs"] > 1 else 0
    result["peakMb"] = max(result["selfMb"], result["streamingMb"] + workers * result["childMb"])
    return result


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _report(label: str, result: dict[str, Any]) -> float:
    rate = result["executions"] / result["seconds"]
    print(
        f"{label}: re-scored {result['executions']:,} executions in {result['seconds']:.2f} s "
        f"with {result['jobs']} process(es): {rate:,.0f} executions/s "
        f"({rate / RATE_TARGET:.2f} x the {RATE_TARGET:,} target); "
        f"CPU {result['cpuSeconds']:.1f} s "
        f"({1000 * result['cpuSeconds'] / result['executions']:.3f} ms per execution)"
    )
    workers = result["jobs"] if result["jobs"] > 1 else 0
    print(
        f"  peak memory {result['peakMb']:.0f} MB ({result['peakMb'] / MEMORY_TARGET_MB:.2f} x "
        f"the {MEMORY_TARGET_MB} MB limit), from getrusage maxrss: the re-scoring process "
        f"{result['selfMb']:.0f} MB at the end (its VmHWM {result['hwmMb']:.0f} MB), "
        f"{result['streamingMb']:.0f} MB when its "
        f"{workers} worker(s) ended, largest worker {result['childMb']:.0f} MB; max(end, "
        f"{result['streamingMb']:.0f} + {workers} x {result['childMb']:.0f}). Resident memory of "
        f"the process tree sampled every 20 ms peaked at {result['sampledMb']:.0f} MB "
        f"(proportional set size, shared pages counted once: {result['sampledPssMb']:.0f} MB)"
    )
    print(
        f"  chain verified: {result['verified']}; inputs match the seal: "
        f"{result['inputsMatchSeal']}; answers: "
        + ", ".join(f"{o['outcome']} {o['count']}" for o in result["answers"])
        + f"; routed to people: {result['routed']}; "
        + f"originated operands audited: {result['audit']}"
    )
    return rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=100_000)
    parser.add_argument("--jobs", default="auto", help="worker processes (default: the scorer's)")
    parser.add_argument(
        "--also-reused",
        action="store_true",
        help="also time a transcript whose reused executions are byte-identical (caches hit)",
    )
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    load_before = load_average()
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
            f"synthetic transcript: {repeats} repeats, {size / 1e6:.0f} MB, every reuse with its "
            f"own argument and return texts, written in {time.perf_counter() - began:.1f} s"
        )
        print(f"load average before: {_load()} (2 cores, shared with other jobs)")
        result = rescore_in_child(large, folder / "report-large", args.jobs)
        rate = _report("distinct texts", result)
        shutil.rmtree(folder / "report-large")
        if args.also_reused:
            reused = synthetic_run(folder, pool, repeats, distinct=False)
            _report("reused texts (caches hit)", rescore_in_child(reused, folder / "r", args.jobs))
            shutil.rmtree(reused)
        small = synthetic_run(folder, pool, 10)
        small_result = rescore_in_child(small, folder / "report-small", args.jobs)
        print(
            f"re-scored a {small_result['executions']:,}-execution run (every report file) in "
            f"{small_result['seconds']:.3f} s with {small_result['jobs']} process(es) "
            f"({small_result['seconds'] / SMALL_TARGET_SECONDS:.2f} x the "
            f"{SMALL_TARGET_SECONDS:.0f} s limit)"
        )
        print(f"load average after: {_load()}")
        ok = (
            rate >= RATE_TARGET
            and result["peakMb"] < MEMORY_TARGET_MB
            and result["sampledMb"] < MEMORY_TARGET_MB
            and small_result["seconds"] < SMALL_TARGET_SECONDS
            and result["verified"]
        )
        print("targets met" if ok else "TARGETS MISSED")
        if args.save:
            save(
                "ap1_rescore",
                {
                    "loadAverage": {"before": load_before, "after": load_average()},
                    "large": result,
                    "small": small_result,
                },
                _figures(result, rate, small_result),
            )
        return 0 if ok else 1


def _figures(result: dict[str, Any], rate: float, small: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline rows of a saved run."""
    return [
        figure(
            f"re-score {result['executions']:,} executions, {result['jobs']} process(es), "
            "every report file",
            f"{rate:,.0f} executions/s ({result['seconds']:.1f} s wall, "
            f"{result['cpuSeconds']:.1f} CPU-s)",
            ratio=rate / RATE_TARGET,
            goal=f"at least {RATE_TARGET:,}/s",
            met=rate >= RATE_TARGET,
        ),
        figure(
            "peak memory of the re-score, getrusage bound",
            f"{result['peakMb']:.0f} MB",
            goal=f"under {MEMORY_TARGET_MB} MB",
            met=result["peakMb"] < MEMORY_TARGET_MB,
        ),
        figure(
            "peak memory of the process tree, sampled: RSS summed / PSS summed",
            f"{result['sampledMb']:.0f} MB / {result['sampledPssMb']:.0f} MB",
            goal=f"under {MEMORY_TARGET_MB} MB",
            met=result["sampledMb"] < MEMORY_TARGET_MB,
        ),
        figure(
            f"re-score a {small['executions']:,}-execution run, every report file",
            f"{small['seconds']:.3f} s",
            goal=f"under {SMALL_TARGET_SECONDS:.0f} s",
            met=small["seconds"] < SMALL_TARGET_SECONDS,
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
