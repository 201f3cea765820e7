"""Benchmark: 1,000 executions of the worked example against the built-in endpoint.

Each response waits 100 ms (injected latency); each execution takes two rounds
(a tool call, then the answer); 16 executions run at once. The floor is
2 x 0.1 s x 1,000 / 16 = 12.5 s; the target is at most 15 s of wall time.
The endpoint runs in its own process, as a remote endpoint would.

The runner's own CPU time (every thread of this process, from
``time.process_time``) is printed per model round trip: the goal is at most
2 ms, so that the run stays within 15 s even when another process holds one of
the two cores. ``--busy`` starts such a process (a loop that spins on one core
for the length of the run).

    .venv/bin/python tests/benchmarks/bench_ap1_run.py [--in-process] [--busy] [--save]
"""

from __future__ import annotations

import copy
import io
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import requests
from results import figure, load_average, save

from apconform.ap1.inputs.files import example_paths
from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.seal.build import write_sealed_run
from apconform.ap1.transcript.verify import verify_transcript
from apconform.core.files import load_path

LATENCY_MS = 100
CONCURRENCY = 16
REPEATS = "10"  # 50 derivable items x 2 conditions x 10 repeats = 1,000 executions
TARGET_SECONDS = 15.0
CPU_PER_ROUND_TRIP_MS = 2.0
_SPIN = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end: pass\n"


def _documents(url: str) -> dict[str, object]:
    paths = example_paths()
    config = copy.deepcopy(load_path(paths.config))
    config["endpoint"].update(url=url, model="mock-correct")
    config["repeats"] = REPEATS
    return {
        "config": config,
        "fixture": load_path(paths.fixture),
        "questions": load_path(paths.questions),
        "derivations": load_path(paths.derivations),
        "ap1_text": paths.ap1_text.read_text(encoding="utf-8"),
    }


def _wait_for(url: str) -> None:
    models = url.replace("/chat/completions", "/models")
    for _ in range(100):
        try:
            requests.get(models, timeout=1)
            return
        except requests.RequestException:
            time.sleep(0.1)
    raise SystemExit(f"the endpoint at {url} did not come up")


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    in_process = "--in-process" in sys.argv
    busy = subprocess.Popen([sys.executable, "-c", _SPIN]) if "--busy" in sys.argv else None
    port = 18765
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    server = None
    mock = None
    if in_process:
        mock = MockEndpoint(
            load_run_inputs(**_documents(url)), port=port, latency=Decimal("0.1")
        ).start()
    else:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "apconform.cli",
                "ap1",
                "serve-mock",
                "--port",
                str(port),
                "--latency-ms",
                str(LATENCY_MS),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    try:
        _wait_for(url)
        inputs = load_run_inputs(**_documents(url))
        run_dir = Path(tempfile.mkdtemp(prefix="apconform-bench-")) / "run"
        write_sealed_run(run_dir, inputs)
        load_before = _load()
        load_before_list = load_average()
        cpu, started = time.process_time(), time.perf_counter()
        result = run_sealed(
            run_dir, RunOptions(concurrency=CONCURRENCY, progress=io.StringIO(), tty=False)
        )
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        if mock is not None:
            mock.stop()
    report = verify_transcript(run_dir / "transcript.jsonl", seal_hash=result.seal_hash)
    executions = result.statuses.get("EXECUTED", 0)
    floor = 2 * LATENCY_MS / 1000 * executions / CONCURRENCY
    print(
        f"ap1 run benchmark ({'in-process' if in_process else 'separate-process'} endpoint"
        + (", another process spinning on one core)" if busy is not None else ")")
    )
    print(f"  load average before the run: {load_before}, after: {_load()} (2 cores)")
    others = {k: v for k, v in result.statuses.items() if k not in ("EXECUTED", "VOID")}
    print(
        f"  executions: {executions} EXECUTED (+{result.statuses.get('VOID', 0)} VOID records), "
        f"other statuses: {others}"
    )
    print(f"  latency {LATENCY_MS} ms per response, concurrency {CONCURRENCY}, 2 rounds each")
    print(f"  wall time: {wall:.2f} s (floor {floor:.1f} s, target <= {TARGET_SECONDS:.0f} s)")
    print(f"  throughput: {executions / wall:.1f} executions/s")
    rounds = sum(
        len(record["execution"]["rounds"])
        for record in report.records
        if record["kind"] == "execution"
    )
    print(
        f"  runner CPU: {cpu:.2f} s for {rounds} model round trips, "
        f"{1000 * cpu / rounds:.2f} ms per round trip (goal <= {CPU_PER_ROUND_TRIP_MS:.0f} ms)"
    )
    chain = "verifies" if report.ok else "BROKEN"
    size = (run_dir / "transcript.jsonl").stat().st_size / 1e6
    print(f"  transcript: {len(report.records)} records, chain {chain}, {size:.1f} MB")
    ok = wall <= TARGET_SECONDS and executions == 1000 and report.ok
    print("  result: " + ("within target" if ok else "NOT within target"))
    if "--save" in sys.argv:
        how = "another process spinning on one core" if busy is not None else "cores shared"
        per_trip = 1000 * cpu / rounds
        save(
            "ap1_run",
            {
                "loadAverage": {"before": load_before_list, "after": load_average()},
                "inProcess": in_process,
                "busy": busy is not None,
            },
            [
                figure(
                    f"{executions:,} executions at {LATENCY_MS} ms per response, concurrency "
                    f"{CONCURRENCY} ({how}), wall",
                    f"{wall:.2f} s",
                    baseline=f"{floor:.1f} s (the floor latency and concurrency set)",
                    ratio=wall / floor,
                    goal=f"at most {TARGET_SECONDS:.0f} s",
                    met=wall <= TARGET_SECONDS,
                ),
                figure(
                    "runner CPU per model round trip",
                    f"{per_trip:.2f} ms",
                    goal=f"at most {CPU_PER_ROUND_TRIP_MS:.0f} ms",
                    met=per_trip <= CPU_PER_ROUND_TRIP_MS,
                ),
            ],
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
