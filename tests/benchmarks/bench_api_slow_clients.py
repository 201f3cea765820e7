"""Slow-client check of the HTTP API: do normal requests get answered while bodies trickle in?

    .venv/bin/python tests/benchmarks/bench_api_slow_clients.py [--slow 200] [--normal 50]
        [--clients 4] [--workers 1] [--max-in-flight 64]

Starts `apconform serve` in a second process on 127.0.0.1 (a free port), opens
``--slow`` connections that each send the headers of a POST with a declared
body of 100 bytes and then one byte of it and nothing more, and, while they
hang, sends ``--normal`` ordinary requests from ``--clients`` concurrent
clients (each on a fresh connection). It prints how many normal requests were
answered 200 (the goal: all of them), their statuses otherwise and their
latencies, and what became of the slow connections (the body timeout answers
them 408). A script that prints figures, not a test: it never fails on timing.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

SERVE = [str(Path(sys.executable).parent / "apconform"), "serve"]  # the same environment
HEAD = "POST /v1/kit/canonicalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
BODY = b'{"value": {"suite": [1, 2.5, "x", true, null]}}'


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start") from None
            time.sleep(0.1)


async def _status(reader: asyncio.StreamReader) -> int:
    line = await reader.readline()
    return int(line.split()[1]) if line else 0


async def _slow(port: int, opened: list[asyncio.StreamWriter]) -> tuple[int, float]:
    """One slow upload: headers and one byte; (status it finally got, seconds it was held)."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    opened.append(writer)
    writer.write(f"{HEAD}Content-Length: 100\r\n\r\n{{".encode("ascii"))
    await writer.drain()
    try:
        status = await asyncio.wait_for(_status(reader), timeout=120)
    except (TimeoutError, ConnectionError):
        status = 0
    writer.close()
    return status, time.perf_counter() - started


async def _normal(port: int) -> tuple[int, float]:
    started = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = f"{HEAD}Content-Length: {len(BODY)}\r\nConnection: close\r\n\r\n"
        writer.write(head.encode("ascii") + BODY)
        await writer.drain()
        status = await asyncio.wait_for(_status(reader), timeout=60)
        await reader.read()
        writer.close()
    except (TimeoutError, ConnectionError, OSError):
        status = 0
    return status, time.perf_counter() - started


async def _scenario(port: int, slow: int, normal: int, clients: int) -> None:
    opened: list[asyncio.StreamWriter] = []
    slow_tasks = [asyncio.create_task(_slow(port, opened)) for _ in range(slow)]
    while len(opened) < slow:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.5)  # every slow request is inside the worker, waiting for its body
    print(f"{slow} slow uploads open (headers and 1 of 100 body bytes each)")
    results: list[tuple[int, float]] = []
    queue = list(range(normal))

    async def client() -> None:
        while queue:
            queue.pop()
            results.append(await _normal(port))

    began = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    spent = time.perf_counter() - began
    statuses = Counter(status for status, _ in results)
    latencies = sorted(seconds for _, seconds in results)
    ok = statuses.get(200, 0)
    print(
        f"normal requests: {ok}/{normal} answered 200 (goal: all) in {spent:.2f} s; "
        f"statuses {dict(sorted(statuses.items()))}"
    )
    print(
        f"  latency p50 {1000 * latencies[len(latencies) // 2]:.1f} ms, "
        f"max {1000 * latencies[-1]:.1f} ms"
    )
    ended = await asyncio.gather(*slow_tasks)
    slow_statuses = Counter(status for status, _ in ended)
    held = sorted(seconds for _, seconds in ended)
    print(
        f"slow uploads: statuses {dict(sorted(slow_statuses.items()))} (408: cut off by the body "
        f"timeout), held {held[0]:.1f} to {held[-1]:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--normal", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-in-flight", type=int, default=64)
    args = parser.parse_args()
    port = _free_port()
    command = [*SERVE, "--port", str(port), "--workers", str(args.workers), "--no-access-log"]
    server = subprocess.Popen(
        [*command, "--max-in-flight", str(args.max_in_flight)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(port, server)
        print(
            f"apconform serve on port {port}: {args.workers} worker(s), "
            f"--max-in-flight {args.max_in_flight}"
        )
        asyncio.run(_scenario(port, args.slow, args.normal, args.clients))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
