"""Benchmark: how long `apconform serve` takes to answer, beside a bare FastAPI app.

Each round starts, in turn, ``apconform serve --workers N`` and uvicorn serving a FastAPI
app with one route (``bare_app.py``) with the same worker count, on a free port of
127.0.0.1, and polls ``GET /v1/health`` every 10 ms until it answers 200: the wall time
from launch to that answer is the figure, and the ratio to the bare app's in the same
round. The process tree's CPU time until then (both workers included) is read from
/proc. Target: ``serve`` answers within 1.5 times the bare app's time.

    .venv/bin/python tests/benchmarks/bench_serve_start.py [--workers 2] [--rounds 5] [--save]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from results import figure, load_average, save

TARGET_RATIO = 1.5
HERE = Path(__file__).resolve().parent
_TICKS = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its live descendants (utime + stime)."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / _TICKS
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            total += _tree_cpu(int(child))
    except (OSError, IndexError, ValueError):
        pass
    return total


def _launch(command: list[str], port: int, cwd: Path | None = None) -> tuple[float, float]:
    """Start the server; (seconds until /v1/health answered 200, CPU seconds of its tree)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/v1/health"
    try:
        while True:
            if process.poll() is not None:
                raise SystemExit(f"{command} ended with status {process.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=5) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - started, _tree_cpu(process.pid)
            except OSError:
                pass
            if time.perf_counter() - started > 120:
                raise SystemExit(f"{command} did not answer within 120 s")
            time.sleep(0.01)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    apconform = str(Path(sys.executable).with_name("apconform"))
    before = load_average()
    print(f"load average before: {before}; {args.workers} worker(s), {args.rounds} rounds")
    ours: list[float] = []
    bare: list[float] = []
    ours_cpu: list[float] = []
    bare_cpu: list[float] = []
    ratios: list[float] = []
    for round_ in range(1, args.rounds + 1):
        port = _free_port()
        serve = [apconform, "serve", "--port", str(port), "--workers", str(args.workers)]
        wall, cpu = _launch(serve, port)
        ours.append(wall)
        ours_cpu.append(cpu)
        port = _free_port()
        uvicorn = [sys.executable, "-m", "uvicorn", "bare_app:app", "--factory"]
        command = [*uvicorn, "--port", str(port), "--workers", str(args.workers)]
        wall, cpu = _launch(command, port, cwd=HERE)
        bare.append(wall)
        bare_cpu.append(cpu)
        ratios.append(ours[-1] / bare[-1])
        print(
            f"round {round_}: serve answered after {ours[-1]:.2f} s ({ours_cpu[-1]:.2f} CPU-s), "
            f"bare FastAPI after {bare[-1]:.2f} s ({bare_cpu[-1]:.2f} CPU-s): ratio "
            f"{ratios[-1]:.2f}; load average {load_average()}"
        )
    after = load_average()
    ratio = statistics.median(ratios)
    print(
        f"median: serve {statistics.median(ours):.2f} s, bare {statistics.median(bare):.2f} s, "
        f"ratio {ratio:.2f} (target at most {TARGET_RATIO}: "
        f"{'met' if ratio <= TARGET_RATIO else 'MISSED'}); CPU until the answer: serve "
        f"{statistics.median(ours_cpu):.2f} s, bare {statistics.median(bare_cpu):.2f} s"
    )
    print(f"load average after: {after}")
    if args.save:
        save(
            "serve_start",
            {
                "workers": args.workers,
                "rounds": args.rounds,
                "loadAverage": {"before": before, "after": after},
                "serveSeconds": round(statistics.median(ours), 3),
                "bareSeconds": round(statistics.median(bare), 3),
                "serveCpuSeconds": round(statistics.median(ours_cpu), 3),
                "bareCpuSeconds": round(statistics.median(bare_cpu), 3),
                "ratio": round(ratio, 3),
                "ratios": [round(r, 3) for r in ratios],
                "targetRatio": TARGET_RATIO,
            },
            [
                figure(
                    f"`apconform serve --workers {args.workers}` launched until `/v1/health` "
                    f"answers, median of {args.rounds} rounds",
                    f"{statistics.median(ours):.2f} s ({statistics.median(ours_cpu):.2f} CPU-s)",
                    baseline=f"{statistics.median(bare):.2f} s (bare FastAPI, same workers, "
                    f"{statistics.median(bare_cpu):.2f} CPU-s)",
                    ratio=ratio,
                    goal=f"at most {TARGET_RATIO}x the bare app",
                    met=ratio <= TARGET_RATIO,
                )
            ],
        )
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
