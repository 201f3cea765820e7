"""`apconform serve` (the HTTP API on uvicorn) and `apconform openapi` (its OpenAPI document)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from apconform.core.errors import UsageError

__all__ = ["default_workers", "register"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} must not be negative")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a positive number of seconds")
    return value


def _port(text: str) -> int:
    value = _positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a TCP port (1-65535)")
    return value


def default_workers() -> int:
    """One worker per core the process may use (the work is CPU-bound Python), at most four."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def _cmd_serve(args: argparse.Namespace) -> int:
    from apconform.api.logs import logging_config
    from apconform.api.server import announce_when_listening, check_port, run
    from apconform.api.settings import ApiSettings

    check_port(args.host, args.port)
    settings = ApiSettings(
        request_timeout=args.request_timeout,
        max_in_flight=args.max_in_flight,
        max_uploading=args.max_uploading,
        body_timeout=args.body_timeout,
        threads=args.threads,
    )
    # Worker processes build the app themselves; the environment carries the limits to them.
    os.environ.update(settings.to_env())
    service = _ledger_service(args)
    if args.workers == 1:
        from apconform.api.app import create_app

        create_app(settings)  # fail here, with a message, if the installation is broken
    if service is not None:
        service.ledger().close()  # fail here if the ledger cannot be opened or created
    announce_when_listening(args.host, args.port, args.workers)
    run(
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_config=logging_config(args.log_level, access_log=not args.no_access_log),
    )
    return 0


def _ledger_service(args: argparse.Namespace) -> Any:
    """The ledger the workers serve, announced to them through the environment (or none)."""
    from apconform.api.ledger_service import LedgerService

    if args.ledger is None:
        if args.allow_unsigned or args.trusted_key or args.trust_file or args.open_submission:
            raise UsageError(
                "--allow-unsigned, --open-submission, --trusted-key and --trust-file need --ledger"
            )
        for name in LedgerService.variables():
            os.environ.pop(name, None)  # without --ledger the API stays stateless
        return None
    from apconform.core.trust import load_trust_file

    named = [
        *(args.trusted_key or ()),
        *(load_trust_file(args.trust_file) if args.trust_file else ()),
    ]
    keys = tuple(dict.fromkeys(named))
    service = LedgerService(args.ledger, args.allow_unsigned, keys, args.open_submission)
    os.environ.update(service.to_env())
    sys.stderr.write(f"ledger: {service.policy()}\n")
    return service


def _cmd_openapi(args: argparse.Namespace) -> int:
    from apconform.api.app import openapi_text

    text = openapi_text()
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    if target.is_dir():
        raise UsageError(f"{target} is a directory; give the path of the file to write")
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    print(f"wrote {target}")
    return 0


def register(subparsers: Any) -> None:
    """Add `serve` and `openapi`."""
    serve = subparsers.add_parser(
        "serve", help="run the HTTP API (stateless; see docs/api/deployment.md)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8080, help="TCP port (default 8080)")
    serve.add_argument(
        "--workers",
        type=_positive_int,
        default=default_workers(),
        help=f"worker processes (default: one per CPU core, at most 4; here {default_workers()})",
    )
    serve.add_argument(
        "--threads",
        type=_count,
        default=1,
        help="threads per worker that run operations (default 1; 0 runs them on the event "
        "loop; add workers, not threads)",
    )
    serve.add_argument(
        "--max-in-flight",
        type=_positive_int,
        default=64,
        help="requests one worker works on at once (bodies received); more get 503 (default 64)",
    )
    serve.add_argument(
        "--max-uploading",
        type=_positive_int,
        default=512,
        help="requests one worker receives bodies for at once; they do not count against "
        "--max-in-flight; more get 503 (default 512)",
    )
    serve.add_argument(
        "--body-timeout",
        type=_positive_float,
        default=5.0,
        help="seconds a client may take to send its whole body; later gets 408 (default 5)",
    )
    serve.add_argument(
        "--request-timeout",
        type=_positive_float,
        default=10.0,
        help="seconds a request may take once its body has arrived (default 10)",
    )
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="level of the JSON log lines on stderr (default info)",
    )
    serve.add_argument(
        "--no-access-log", action="store_true", help="do not write one log line per request"
    )
    serve.add_argument(
        "--ledger",
        metavar="PATH-OR-URL",
        help="serve a results ledger too (an SQLite file or postgresql+psycopg:// URL): adds "
        "the /v1/ledger routes",
    )
    serve.add_argument(
        "--trusted-key",
        action="append",
        metavar="HEX",
        help="with --ledger: accept results signed by this public key (repeatable); with "
        "--open-submission, these keys may take any subject over",
    )
    serve.add_argument(
        "--trust-file", metavar="FILE", help="with --ledger: the trusted keys, one per line"
    )
    serve.add_argument(
        "--open-submission",
        action="store_true",
        help="with --ledger: accept results signed by any key, each subject bound to the key "
        "that signed it (the API description says so); --ledger needs this or trusted keys",
    )
    serve.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="with --ledger --open-submission: accept unsigned results too",
    )
    serve.set_defaults(handler=_cmd_serve)

    openapi = subparsers.add_parser("openapi", help="print or write the API's OpenAPI document")
    openapi.add_argument(
        "--output", help="file to write (default: standard output); e.g. schemas/openapi.json"
    )
    openapi.set_defaults(handler=_cmd_openapi)
