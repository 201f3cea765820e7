"""Load check of the HTTP API: `apconform serve` in one process, a load generator in this one.

    .venv/bin/python tests/benchmarks/bench_api_load.py [--workers 2] [--concurrency 32]
        [--requests 20000] [--only NAME ...] [--access-log] [--defaults] [--save]

The server runs as a separate process on 127.0.0.1 (a free port). The load
generator is a small asyncio HTTP/1.1 client over raw sockets with kept-alive
connections, one per unit of concurrency, so that it costs a few tens of
microseconds of CPU per request and is not the bottleneck; the script prints
its own CPU use next to the figures to show that. Each scenario is warmed up,
then run for a fixed number of requests, and prints requests per second,
p50/p95/p99/max latency and errors (any unexpected status or connection
failure), the server's CPU time per request (every process of the server, from
/proc: steadier than latency when other work shares the cores) and the load
average. ``--defaults`` starts the server with no options but the port.
Every request loop is bounded in count and time and stops by itself.

A scenario is a name, a request (method, path, JSON body) and the status it
must answer; the APx evaluate and AP-1 single-execution score scenarios are
listed in SCENARIOS and run as soon as their operations are registered. A
scenario may give a list of requests, sent in turn: the AP-1 one posts every
execution record of the AP-1 demo run (mixed personas, so mixed outcomes).

The server remembers the large members of AP-1 scoring bodies (the sealed
inputs, and records it has seen), so three AP-1 figures are printed: the
demo's 204 bodies cycled (each body repeats ten times); distinct bodies, no
body sent twice, warm-up included (each record of the demo with its own
``startedAt``, the sealed inputs the same, as a client scoring a run sends
them); and bodies whose every object member is new text (the same values, with
whitespace that differs per request), which is what a worker pays when it has
remembered nothing.

``--overhead`` instead measures, in process, what the API adds to an
operation: the mean time of a full request through the app (guard, routing,
loader, problem handling, serialisation) minus the time of calling the
operation function directly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from results import figure, load_average, save

REPO = Path(__file__).resolve().parents[2]
SERVE = [str(Path(sys.executable).parent / "apconform"), "serve"]  # the same environment


@dataclass(frozen=True)
class Raw:
    """A body given as the bytes to send, in pieces (large bodies share most of them)."""

    pieces: tuple[bytes, ...]


@dataclass(frozen=True)
class Scenario:
    name: str
    operation: str | None  # the operation that must be registered, if any
    request: Callable[[], Any]  # () -> (method, path, JSON body, Raw or None), or a list
    expected_status: int = 200
    requests: int | None = None  # default: --requests
    distinct: bool = False  # the list holds a body for every request, warm-up included


def _kit_canonicalize() -> tuple[str, str, Any]:
    value = {"suite": [{"id": f"t{i}", "hours": i / 4, "tags": ["a", "b"]} for i in range(20)]}
    return "POST", "/v1/kit/canonicalize", {"value": value}


def _check() -> tuple[str, str, Any]:
    answer = {"canonical": '{"a":[1,2.5,"x",true,null]}'}
    return (
        "POST",
        "/v1/conformance/check",
        {"vectorId": "kit-load-plain-document", "answer": answer},
    )


def _apx_evaluate() -> tuple[str, str, Any]:
    """The demo campaign (`apconform apx demo`): a frozen manifest and a run, AP 9."""
    from apconform.apx.tutorial import tutorial_campaign

    manifest, run = tutorial_campaign()
    return "POST", "/v1/apx/evaluate", {"manifest": manifest, "run": run}


_AP1_DEMO: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []


def _ap1_demo() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The AP-1 demo run's sealed inputs and execution records (the demo runs once)."""
    if not _AP1_DEMO:
        _AP1_DEMO.append(_run_ap1_demo())
    return _AP1_DEMO[0]


def _ap1_score() -> list[tuple[str, str, Any]]:
    """Every execution record of the AP-1 demo run (mock-mixed, so outcomes are mixed), each
    with the run's sealed inputs: one request body per record, sent in turn."""
    sealed, executions = _ap1_demo()
    return [("POST", "/v1/ap1/score-execution", {**sealed, "record": e}) for e in executions]


_AP1_DISTINCT = 2000 + 500  # measured + warm-up


def _ap1_distinct() -> list[tuple[str, str, Any]]:
    """A body per request, none twice: the demo's records in turn, each with its own start time
    (a member the scorer does not score); the sealed inputs are sent as they are every time."""
    sealed, executions = _ap1_demo()
    head = json.dumps(sealed)[:-1].encode("utf-8") + b', "record": '
    requests = []
    for index in range(_AP1_DISTINCT):
        record = dict(executions[index % len(executions)])
        record["startedAt"] = f"2026-12-01T{index // 3600 % 24:02d}:{index // 60 % 60:02d}:" + (
            f"{index % 60:02d}.{index:06d}Z"
        )
        tail = json.dumps(record).encode("utf-8") + b"}"
        requests.append(("POST", "/v1/ap1/score-execution", Raw((head, tail))))
    return requests


_AP1_UNREMEMBERED = 1000 + 200  # measured + warm-up


def _ap1_unremembered() -> list[tuple[str, str, Any]]:
    """The demo's bodies with whitespace that differs per request inside every object member:
    the same values, but no object's text was seen before, so only the AP-1 text (a string)
    is remembered."""
    sealed, executions = _ap1_demo()
    members = [(name, json.dumps(value).encode("utf-8")) for name, value in sealed.items()]
    records = [json.dumps(e).encode("utf-8") for e in executions]
    requests = []
    for index in range(_AP1_UNREMEMBERED):
        space = b" " * (1 + index % 40) + b"\t" * (index // 40)
        pieces: list[bytes] = []
        for name, text in [*members, ("record", records[index % len(records)])]:
            opening = b"{" if not pieces else b", "
            pieces += [opening, json.dumps(name).encode("utf-8"), b": "]
            pieces += [text[:1], space, text[1:]] if text[:1] in (b"{", b"[") else [text]
        pieces.append(b"}")
        requests.append(("POST", "/v1/ap1/score-execution", Raw(tuple(pieces))))
    return requests


def _run_ap1_demo() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import io
    import tempfile

    from apconform.ap1.demo import demo_step
    from apconform.demo_context import DemoContext

    with tempfile.TemporaryDirectory(prefix="bench-api-ap1-") as folder:
        assert demo_step(DemoContext(Path(folder), io.StringIO())) == 0
        run_dir = Path(folder) / "ap1-run"
        inputs = run_dir / "inputs"
        sealed: dict[str, Any] = {
            name: json.loads((inputs / f"{name}.json").read_text(encoding="utf-8"))
            for name in ("config", "fixture", "questions", "derivations")
        }
        sealed["ap1Text"] = (inputs / "ap1-text.md").read_text(encoding="utf-8")
        lines = (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    return sealed, [r["execution"] for r in records if r["kind"] == "execution"]


SCENARIOS = [
    Scenario("health", None, lambda: ("GET", "/v1/health", None)),
    Scenario("kit.canonicalize", "kit.canonicalize", _kit_canonicalize),
    Scenario("kit.parse", "kit.parse", lambda: ("POST", "/v1/kit/parse", {"text": "[1,2,3]"})),
    Scenario("conformance.check", None, _check),
    Scenario(
        "loader refusal: depth 33 (problem document)",
        "kit.canonicalize",
        lambda: ("POST", "/v1/kit/canonicalize", json.loads("[" * 33 + "0" + "]" * 33)),
        expected_status=400,
    ),
    Scenario("apx.evaluate", "apx.evaluate", _apx_evaluate),
    Scenario("ap1.score_execution", "ap1.score_execution", _ap1_score, requests=2000),
    Scenario(
        "ap1.score_execution: distinct bodies",
        "ap1.score_execution",
        _ap1_distinct,
        requests=2000,
        distinct=True,
    ),
    Scenario(
        "ap1.score_execution: every member new",
        "ap1.score_execution",
        _ap1_unremembered,
        requests=1000,
        distinct=True,
    ),
]


def _encode(method: str, path: str, body: Any) -> tuple[bytes, ...]:
    """The request's bytes, in pieces."""
    if isinstance(body, Raw):
        pieces = body.pieces
    else:
        pieces = () if body is None else (json.dumps(body).encode("utf-8"),)
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if body is not None:
        head += "Content-Type: application/json\r\n"
    head += f"Content-Length: {sum(len(piece) for piece in pieces)}\r\n\r\n"
    return (head.encode("ascii"), *pieces)


class _Load:
    """Shared counters of one run: the next request number, latencies, errors."""

    def __init__(self, total: int, deadline: float) -> None:
        self.total = total
        self.issued = 0
        self.deadline = deadline
        self.latencies: list[float] = []
        self.errors: dict[str, int] = {}

    def take(self) -> bool:
        if self.issued >= self.total or time.monotonic() > self.deadline:
            return False
        self.issued += 1
        return True

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def _connection(
    port: int, requests: list[tuple[bytes, ...]], expected: int, load: _Load
) -> None:
    reader = writer = None
    while load.take():
        request = requests[load.issued % len(requests)]
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.get_extra_info("socket").setsockopt(
                    socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
                )
            assert reader is not None
            started = time.perf_counter()
            writer.writelines(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            lower = head.lower()
            at = lower.find(b"\r\ncontent-length:")
            length = int(lower[at + 17 : lower.find(b"\r\n", at + 2)]) if at >= 0 else 0
            await reader.readexactly(length)
            load.latencies.append(time.perf_counter() - started)
            if status != expected:
                load.error(f"status {status}")
            if b"\r\nconnection: close" in lower:
                writer.close()
                reader = writer = None
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            load.error(type(exc).__name__)
            if writer is not None:
                writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def _drive(
    port: int, requests: list[tuple[bytes, ...]], expected: int, total: int, concurrency: int
) -> _Load:
    load = _Load(total, time.monotonic() + 300)
    await asyncio.gather(*(_connection(port, requests, expected, load) for _ in range(concurrency)))
    return load


def _percentile(ordered: list[float], fraction: float) -> float:
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return ordered[index] * 1000


def _requests(scenario: Scenario) -> list[tuple[str, str, Any]]:
    made = scenario.request()
    return made if isinstance(made, list) else [made]


def _tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its descendants so far (Linux /proc)."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            total += _tree_cpu_seconds(int(child))
    except (OSError, IndexError, ValueError):
        pass
    return total


def run_scenario(
    port: int, scenario: Scenario, total: int, concurrency: int, server_pid: int | None = None
) -> dict[str, Any]:
    requests = [_encode(*one) for one in _requests(scenario)]
    warm = min(500, total)
    if scenario.distinct:  # warm up on bodies of their own: none is sent twice
        warm = len(requests) - total
        if warm < 0:
            raise SystemExit(f"{scenario.name}: {len(requests)} bodies for {total} requests")
        warm_up, requests = requests[:warm], requests[warm:]
        asyncio.run(_drive(port, warm_up, scenario.expected_status, warm, concurrency))
    else:
        asyncio.run(_drive(port, requests, scenario.expected_status, warm, concurrency))
    cpu_before = os.times()
    server_before = _tree_cpu_seconds(server_pid) if server_pid else 0.0
    started = time.perf_counter()
    load = asyncio.run(_drive(port, requests, scenario.expected_status, total, concurrency))
    elapsed = time.perf_counter() - started
    cpu_after = os.times()
    server_cpu = _tree_cpu_seconds(server_pid) - server_before if server_pid else 0.0
    ordered = sorted(load.latencies)
    client_cpu = (cpu_after.user - cpu_before.user) + (cpu_after.system - cpu_before.system)
    return {
        "scenario": scenario.name,
        "requests": load.issued,
        "concurrency": concurrency,
        "seconds": round(elapsed, 2),
        "requestsPerSecond": round(load.issued / elapsed, 1),
        "p50Ms": round(_percentile(ordered, 0.50), 2),
        "p95Ms": round(_percentile(ordered, 0.95), 2),
        "p99Ms": round(_percentile(ordered, 0.99), 2),
        "maxMs": round(ordered[-1] * 1000, 2),
        "errors": sum(load.errors.values()),
        "errorKinds": load.errors,
        "distinctBodies": len(requests),
        "bodyBytes": round(sum(len(b"".join(r[1:])) for r in requests) / len(requests)),
        "clientCpuPercentOfOneCore": round(100 * client_cpu / elapsed, 1),
        "serverCpuMsPerRequest": round(1000 * server_cpu / load.issued, 2),
        "loadAverage": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with status {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if sock.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not answer within 60 seconds")


def overhead(rounds: int) -> list[dict[str, Any]]:
    """Mean microseconds per request through the app, and of the bare operation."""
    from apconform.api import ApiSettings, create_app
    from apconform.conformance.operations import get_operation, operation_names
    from apconform.core.jsonload import loads

    app = create_app(ApiSettings())
    registered = set(operation_names())
    rows = []
    answered = [s for s in SCENARIOS if s.expected_status == 200]
    chosen = [s for s in answered if s.operation is None or s.operation in registered]
    for scenario in [s for s in chosen if not s.distinct]:
        method, path, body = _requests(scenario)[0]
        payload = b"" if body is None else json.dumps(body).encode("utf-8")
        headers = [(b"content-type", b"application/json")] if body is not None else []
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [*headers, (b"content-length", str(len(payload)).encode())],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 2),
        }

        async def once(scope: dict[str, Any], payload: bytes) -> None:
            async def receive() -> dict[str, Any]:
                return {"type": "http.request", "body": payload, "more_body": False}

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    assert message["status"] == 200, message

            await app(dict(scope), receive, send)

        async def many(scope: dict[str, Any], payload: bytes) -> float:
            for _ in range(200):
                await once(scope, payload)
            started = time.perf_counter()
            for _ in range(rounds):
                await once(scope, payload)
            return (time.perf_counter() - started) / rounds

        through_app = asyncio.run(many(scope, payload))
        bare = 0.0
        if scenario.operation is not None:
            operation = get_operation(scenario.operation)
            started = time.perf_counter()
            for _ in range(rounds):
                operation(loads(payload))
            bare = (time.perf_counter() - started) / rounds
        rows.append(
            {
                "scenario": scenario.name,
                "throughAppUs": round(through_app * 1e6, 1),
                "bareOperationUs": round(bare * 1e6, 1),
                "apiOverheadUs": round((through_app - bare) * 1e6, 1),
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    parser.add_argument("--access-log", action="store_true", help="keep the access log on")
    parser.add_argument(
        "--defaults",
        action="store_true",
        help="start `apconform serve` with its own defaults (workers, threads, access log)",
    )
    parser.add_argument("--overhead", action="store_true", help="measure in-process overhead")
    parser.add_argument("--save", action="store_true", help="write tests/benchmarks/results/")
    args = parser.parse_args()
    if args.overhead:
        for row in overhead(5000):
            print(json.dumps(row))
        return 0

    from apconform.conformance.operations import operation_names

    registered = set(operation_names())
    port = _free_port()
    command = [*SERVE, "--port", str(port)]
    if not args.defaults:
        command += ["--workers", str(args.workers), "--threads", str(args.threads)]
        if not args.access_log:
            command.append("--no-access-log")
    load_before = load_average()
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failed = False
    results: list[dict[str, Any]] = []
    try:
        _wait_until_up(port, server)
        print(f"# server: {' '.join(command[1:])} (pid {server.pid}); client pid {os.getpid()}")
        for scenario in SCENARIOS:
            if args.only and scenario.name not in args.only:
                continue
            if scenario.operation is not None and scenario.operation not in registered:
                print(json.dumps({"scenario": scenario.name, "skipped": "operation not built yet"}))
                continue
            total = scenario.requests or args.requests
            result = run_scenario(port, scenario, total, args.concurrency, server.pid)
            failed = failed or result["errors"] > 0
            results.append(result)
            print(json.dumps(result))
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    if args.save:
        settings = "defaults" if args.defaults else f"{args.workers} workers"
        save(
            "api_load",
            {
                "loadAverage": {"before": load_before, "after": load_average()},
                "server": command[1:],
                "scenarios": results,
            },
            [_figure(result, settings, args.concurrency) for result in results],
        )
    return 1 if failed else 0


SCORING_GOAL = 600.0
"""Requests per second of the AP-1 scoring route with every member new (issue 33)."""


def _figure(result: dict[str, Any], settings: str, concurrency: int) -> dict[str, Any]:
    """A scenario's headline row; the AP-1 route with every member new carries issue 33's goal."""
    rate = result["requestsPerSecond"]
    goal = result["scenario"] == "ap1.score_execution: every member new"
    return figure(
        f"{result['scenario']} ({settings}, concurrency {concurrency}, "
        f"{result['requests']:,} requests)",
        f"{rate:,.0f} req/s, p99 {result['p99Ms']:.0f} ms, server CPU "
        f"{result['serverCpuMsPerRequest']:.2f} ms per request, {result['errors']} errors",
        goal=f"at least {SCORING_GOAL:.0f} req/s" if goal else None,
        met=rate >= SCORING_GOAL if goal else None,
    )


if __name__ == "__main__":
    sys.exit(main())
