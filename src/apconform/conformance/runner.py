"""The runner: verify the vectors, send every case, compare outside the implementation.

``run_check`` returns the report as records (a header, one record per case, a
footer), the same records the JSON-lines report holds; every other report
format is rendered from them. The implementation receives only the operation
and the input of each vector: the expectation stays here.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from apconform import __version__
from apconform.conformance.adapters.base import Adapter
from apconform.conformance.adapters.targets import open_adapter
from apconform.conformance.clauses import ClauseIndex, load_clause_registry
from apconform.conformance.compare import Mismatch, match_answer, match_refusal
from apconform.conformance.manifest import VerifiedManifest, verify_manifest
from apconform.conformance.protocol import PROTOCOL_VERSION, Reply
from apconform.conformance.summary import summarize
from apconform.conformance.vectors import LoadedVector, load_vectors
from apconform.conformance.xfail import ExpectedFailures, load_expected_failures
from apconform.core.canonical import sha256_hex
from apconform.core.errors import UsageError
from apconform.core.trust import trust_anchors
from apconform.resources import data_path

__all__ = [
    "CheckOptions",
    "CheckRun",
    "case_level",
    "case_record",
    "classify",
    "compare_reply",
    "is_negative",
    "judge",
    "run_check",
    "select_vectors",
]

_LEVEL_ORDER = {"MUST": 0, "SHOULD": 1, "MAY": 2}


@dataclass
class CheckOptions:
    """Everything ``apconform check`` takes."""

    impl: str
    protocols: list[str] | None = None
    vectors_dir: Path | None = None
    only: list[str] = field(default_factory=list)
    xfail: Path | None = None
    timeout: float = 10.0
    validate_protocol: bool = False
    trusted_keys: list[str] = field(default_factory=list)
    trust_file: Path | None = None
    """With ``trusted_keys``: the keys the manifest's signer must be one of (none named: the
    kit's published TEST key alone)."""
    stop_after_timeouts: int = 3
    """Stop the run after this many cases in a row got no answer in time (0: never)."""
    environment: list[str] = field(default_factory=list)
    """Names of environment variables the implementation needs; reports name them, never
    their values, and the run refuses to start when one is unset."""


@dataclass
class CheckRun:
    """The records of one run: header, cases and footer."""

    header: dict[str, Any]
    cases: list[dict[str, Any]]
    footer: dict[str, Any]

    @property
    def records(self) -> list[dict[str, Any]]:
        return [self.header, *self.cases, self.footer]

    @property
    def exit_status(self) -> int:
        return int(self.footer["exitStatus"])


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def is_negative(vector: LoadedVector) -> bool:
    """A refusal expectation or the tag ``negative``."""
    return vector.vector.expected.kind == "refusal" or "negative" in (vector.vector.tags or [])


def case_level(vector: LoadedVector, clauses: ClauseIndex) -> str:
    """The strongest requirement level among the clauses a vector cites."""
    levels = [c.level for c in (clauses.get(i) for i in vector.vector.clauses) if c is not None]
    return min(levels, key=lambda level: _LEVEL_ORDER[level]) if levels else "MAY"


def select_vectors(vectors: list[LoadedVector], only: list[str]) -> list[LoadedVector]:
    """Vectors whose id, or one of whose clauses, is in ``only``; every token must match."""
    if not only:
        return vectors
    wanted = set(only)
    known = {v.id for v in vectors} | {c for v in vectors for c in v.vector.clauses}
    unknown = sorted(wanted - known)
    if unknown:
        raise UsageError(
            f"--only names {', '.join(unknown)}, which is neither a vector id nor a clause "
            "cited by a vector",
            hint="Run `apconform vectors coverage` to list the clauses and their vectors.",
        )
    return [v for v in vectors if v.id in wanted or wanted.intersection(v.vector.clauses)]


def _reproduce(options: CheckOptions, vector_id: str) -> str:
    parts = ["apconform", "check", "--impl", options.impl, "--only", vector_id]
    if options.vectors_dir is not None:
        parts += ["--vectors", str(options.vectors_dir)]
    if options.validate_protocol:
        parts.append("--validate-protocol")
    for name in options.environment:
        parts += ["--env", name]
    return shlex.join(parts)


def _check_environment(names: list[str]) -> None:
    for name in names:
        if (
            not name
            or not (name[0].isalpha() or name[0] == "_")
            or not all(char.isascii() and (char.isalnum() or char == "_") for char in name)
        ):
            raise UsageError(
                f"--env {name!r} is not an environment variable name",
                hint="Give the variable's name only (letters, digits, underscores), never a value.",
            )
        if name not in os.environ:
            raise UsageError(
                f"--env {name}: the environment variable {name} is not set",
                hint=f"Set {name} as the implementation needs it, then run the check again.",
            )


def compare_reply(vector: LoadedVector, reply: Reply) -> list[Mismatch]:
    """Every difference between an answer or refusal and the vector's expectation, messages
    judged by the vector's message rule (KIT-VEC-3)."""
    expected, rules = vector.vector.expected, vector.vector.comparison
    if reply.kind == "refusal":
        return match_refusal(
            expected,
            reply.code or "",
            reply.message,
            reply.context.get("path"),
            vector.messages,
        )
    return match_answer(expected, reply.document, rules, vector.messages)


def judge(
    vector: LoadedVector, reply: Reply, xfail_reason: str | None
) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """The outcome of one case, the mismatches that explain a failure, and the messages the
    implementation words otherwise where no cited clause fixes the wording (never a failure)."""
    if reply.kind == "skipped":
        return "skipped", [], []
    if reply.kind == "errored":
        return ("xfail" if xfail_reason else "errored"), [], []
    found = compare_reply(vector, reply)
    mismatches = [m.to_dict() for m in found if not m.informative]
    worded = [m.to_dict() for m in found if m.informative]
    if xfail_reason:
        return ("xfail" if mismatches else "xpass"), mismatches, worded
    return ("fail" if mismatches else "pass"), mismatches, worded


def classify(vector: LoadedVector, reply: Reply, xfail_reason: str | None) -> tuple[str, list[Any]]:
    """The outcome of one case and the mismatches that explain a failure."""
    outcome, mismatches, _ = judge(vector, reply, xfail_reason)
    return outcome, mismatches


def case_record(
    seq: int,
    vector: LoadedVector,
    root: Path,
    clauses: ClauseIndex,
    options: CheckOptions,
    xfail: ExpectedFailures,
    reply: Reply,
    elapsed: float,
) -> dict[str, Any]:
    reason = xfail.reason_for(vector)
    outcome, mismatches, worded = judge(vector, reply, reason)
    record: dict[str, Any] = {
        "record": "case",
        "seq": seq,
        "vector": vector.id,
        "vectorFile": vector.path.resolve().relative_to(root.resolve()).as_posix(),
        "protocol": vector.vector.protocol,
        "operation": vector.vector.operation,
        "clauses": list(vector.vector.clauses),
        "level": case_level(vector, clauses),
        "negative": is_negative(vector),
        "description": vector.vector.description,
        "outcome": outcome,
        "expected": vector.document["expected"],
    }
    if "comparison" in vector.document:
        record["comparison"] = vector.document["comparison"]
    record["actual"] = reply.to_actual()
    record["mismatches"] = mismatches
    if worded:
        record["messageDifferences"] = worded
    if reason is not None:
        record["xfailReason"] = reason
    record["durationMs"] = round(elapsed * 1000, 3)
    record["reproduce"] = _reproduce(options, vector.id)
    return record


def _header(
    options: CheckOptions,
    implementation: dict[str, Any],
    manifest: VerifiedManifest,
    clauses: ClauseIndex,
    protocols: list[str],
    selected: list[LoadedVector],
    started: str,
) -> dict[str, Any]:
    cited = {c for v in selected for c in v.vector.clauses}
    cited |= {
        c.id for c in clauses.registry.clauses if c.protocol in protocols and c.level == "MUST"
    }
    selection: dict[str, Any] = {"protocols": protocols, "complete": not options.only}
    if options.only:
        selection["only"] = list(options.only)
    if options.xfail is not None:
        selection["xfailFile"] = str(options.xfail)
    return {
        "schemaVersion": "apconform-report/1",
        "record": "header",
        "kit": {"name": "apconform", "version": __version__},
        "adapterProtocol": PROTOCOL_VERSION,
        "target": options.impl,
        "implementation": implementation,
        "vectorManifestSha256": manifest.digest,
        "vectorSetVersion": manifest.document.get("vectorSetVersion"),
        "vectorManifestSigner": manifest.signer,
        "clauseRegistrySha256": clauses.digest,
        "selection": selection,
        "options": _options(options),
        "startedAt": started,
        "clauses": [
            c.model_dump(mode="json", exclude_none=True)
            for c in clauses.registry.clauses
            if c.id in cited
        ],
    }


def _options(options: CheckOptions) -> dict[str, Any]:
    out: dict[str, Any] = {
        "timeoutSeconds": options.timeout,
        "validateProtocol": options.validate_protocol,
        "stopAfterTimeouts": options.stop_after_timeouts,
    }
    if options.environment:
        out["environmentVariables"] = list(options.environment)
    return out


def _stop_message(count: int, timeout: float) -> str:
    return (
        f"{count} case(s) in a row got no answer within {timeout:g} s, so the implementation "
        "looks hung; fix the hang (run one case by hand with the reproduce command), or give "
        "--timeout more seconds or --stop-after-timeouts 0 to wait out every case"
    )


def run_check(
    options: CheckOptions,
    *,
    adapter: Adapter | None = None,
    on_case: Callable[[dict[str, Any]], None] | None = None,
    clock: Callable[[], str] = _now,
    timer: Callable[[], float] = time.perf_counter,
    copy: Path | None = None,
) -> CheckRun:
    """Verify the suite, run every selected case and return the report's records.

    ``clock`` gives the header's and footer's times and ``timer`` the cases' durations: a fixed
    pair makes the records the same on every run. ``copy`` is a folder holding a copy of the
    suite ``options`` names (or of some of its vectors, with a manifest of its own): the run
    reads and verifies the copy, while its reproduce commands name the suite. The OpenAPI
    examples run so, on a copy of two shipped vectors in a temporary folder.
    """
    started = clock()
    if options.stop_after_timeouts < 0:
        raise UsageError("--stop-after-timeouts must be 0 (never stop) or a positive count")
    _check_environment(options.environment)
    clauses = load_clause_registry()
    root = options.vectors_dir if options.vectors_dir is not None else data_path("vectors")
    root = copy if copy is not None else root
    manifest = verify_manifest(
        root, clauses, anchors=trust_anchors(options.trusted_keys, options.trust_file)
    )
    vectors = load_vectors(root, clauses=clauses)
    xfail = load_expected_failures(options.xfail, vectors)
    chosen = select_vectors(vectors, options.only)
    target = (
        adapter
        if adapter is not None
        else open_adapter(options.impl, validate_protocol=options.validate_protocol)
    )
    wanted = set(options.protocols) if options.protocols else {v.vector.protocol for v in vectors}
    implementation = target.start(options.timeout, sorted({v.vector.operation for v in chosen}))
    stopped_early: str | None = None
    stop: dict[str, Any] | None = None
    try:
        protocols = sorted(wanted & {str(p) for p in implementation.protocols})
        selected = [v for v in chosen if v.vector.protocol in protocols]
        supported = set(implementation.operations)
        cases = []
        timeouts_in_a_row = 0
        for seq, vector in enumerate(selected, start=1):
            began = timer()
            if vector.vector.operation not in supported:
                reply = Reply(
                    "skipped",
                    reason=f"the implementation does not list operation {vector.vector.operation}",
                )
            elif stopped_early is not None:
                reply = Reply("errored", message=f"not sent: the run was stopped: {stopped_early}")
            else:
                reply = target.run(
                    seq, vector.vector.operation, vector.vector.input, options.timeout
                )
                timeouts_in_a_row = timeouts_in_a_row + 1 if reply.timed_out else 0
                if 0 < options.stop_after_timeouts <= timeouts_in_a_row:
                    stopped_early = _stop_message(timeouts_in_a_row, options.timeout)
            record = case_record(seq, vector, root, clauses, options, xfail, reply, timer() - began)
            cases.append(record)
            if on_case is not None:
                on_case(record)
    finally:
        stop = target.stop()
    header = _header(
        options,
        implementation.model_dump(mode="json", exclude_none=True),
        manifest,
        clauses,
        protocols,
        selected,
        started,
    )
    footer: dict[str, Any] = {"record": "footer", "finishedAt": clock()}
    footer.update(
        summarize(
            cases,
            protocols,
            clauses,
            complete=not options.only,
            supported=supported,
            stopped_early=stopped_early,
            stop=stop,
        )
    )
    footer["casesSha256"] = sha256_hex(cases)
    if not protocols:
        footer["problems"].insert(
            0,
            "the implementation claims none of the selected protocols "
            f"({', '.join(sorted(wanted))})",
        )
    return CheckRun(header, cases, footer)
