"""MetaHarness task packs (apx.metaharness/v1) mapped to a frozen APx manifest.

A task pack declares coding tasks for the MetaHarness Darwin verifier. Its
tasks become the suite's slots (id and class), its selection and holdout ids
and partition become the suite's; the baseline, evaluator and environment are
supplied by the caller. The answer also carries the digest of the task pack,
so a manifest can be traced to the exact pack it was built from. Unlike the
reference wrapper, nothing time-dependent is hashed, so the same inputs give
the same digests every time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from apconform.apx.checks import RESERVED, is_text
from apconform.apx.guard import guard
from apconform.apx.hashing import digest, freeze
from apconform.core.errors import ApconformError, define_code

__all__ = ["IMPORT_METAHARNESS", "metaharness_manifest", "validate_task_pack"]

IMPORT_METAHARNESS = define_code(
    "APX-IMP-METAHARNESS",
    "A MetaHarness task pack breaks the apx.metaharness/v1 rules",
    "Fix the field named in the message; see the APx importers documentation for the rules.",
    exit_status=1,
    http_status=422,
)

SCHEMA = "apx.metaharness/v1"
_COMMIT = re.compile(r"[0-9a-f]{40}")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def _fail(detail: str) -> ApconformError:
    return ApconformError(IMPORT_METAHARNESS, f"APx MetaHarness: {detail}")


def _text(value: Any, path: str, limit: int = 4096) -> None:
    if not is_text(value, limit):
        raise _fail(f"{path} must be a nonempty string no longer than {limit} characters")


def _identifier(value: Any, path: str) -> None:
    _text(value, path, 256)
    if value in RESERVED:
        raise _fail(f"{path} uses a reserved identifier")


def _array(value: Any, path: str, low: int = 0, high: int = 1000) -> list[Any]:
    if type(value) is not list or not low <= len(value) <= high:
        raise _fail(f"{path} must contain {low} through {high} entries")
    return value


def _texts(value: Any, path: str, low: int = 0) -> None:
    for index, item in enumerate(_array(value, path, low, 100)):
        _text(item, f"{path}[{index}]", 512)


def _command(value: Any, path: str) -> None:
    _text(value, path, 1024)
    if "\r" in value or "\n" in value:
        raise _fail(f"{path} must be one line")


def _integer(value: Any, low: int, high: int) -> bool:
    return type(value) in (int, float) and value == int(value) and low <= value <= high


def _canonical_utc(value: Any) -> bool:
    if type(value) is not str or _ISO.fullmatch(value) is None:
        return False
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return False
    return True


def _check_task(task: Any, path: str) -> None:
    if type(task) is not dict:
        raise _fail(f"{path} must be an object")
    _identifier(task.get("id"), f"{path}.id")
    _identifier(task.get("classId"), f"{path}.classId")
    _text(task.get("title"), f"{path}.title", 512)
    _text(task.get("prompt"), f"{path}.prompt", 12000)
    _texts(task.get("acceptanceCriteria"), f"{path}.acceptanceCriteria", 1)
    for name in ("publicTestCommand", "hiddenTestCommand", "regressionTestCommand"):
        _command(task.get(name), f"{path}.{name}")
    if not _integer(task.get("timeoutMs"), 1000, 3_600_000):
        raise _fail(f"{path}.timeoutMs must be an integer from 1000 through 3600000")
    cost: Any = task.get("maxCostUsd")
    if type(cost) not in (int, float) or not 0 <= cost <= 1_000_000:
        raise _fail(f"{path}.maxCostUsd must be finite and nonnegative")
    _texts(task.get("allowedMutationFiles"), f"{path}.allowedMutationFiles", 1)
    _texts(task.get("blockedFiles"), f"{path}.blockedFiles", 1)
    _texts(task.get("tags"), f"{path}.tags")
    if not _integer(task.get("difficulty"), 1, 5):
        raise _fail(f"{path}.difficulty must be an integer from 1 through 5")


def validate_task_pack(spec: Any) -> dict[str, Any]:
    """Check a task pack against the apx.metaharness/v1 rules; the first fault is refused."""
    guard(spec)
    if type(spec) is not dict:
        raise _fail("spec must be an object")
    if spec.get("schema") != SCHEMA:
        raise _fail(f"schema must be {SCHEMA}")
    _identifier(spec.get("id"), "id")
    _text(spec.get("version"), "version", 64)
    if not _canonical_utc(spec.get("createdAt")):
        raise _fail("createdAt must be canonical UTC")
    commit = spec.get("sourceCommit")
    if commit != "DEVELOPMENT-UNPINNED" and (
        type(commit) is not str or _COMMIT.fullmatch(commit) is None
    ):
        raise _fail(
            "sourceCommit must be DEVELOPMENT-UNPINNED or a lowercase 40 character commit SHA"
        )
    _text(spec.get("repository"), "repository", 512)
    if spec.get("partition") not in ("selection", "holdout"):
        raise _fail("partition must be selection or holdout")
    _identifier(spec.get("selectionId"), "selectionId")
    _identifier(spec.get("holdoutId"), "holdoutId")
    if spec["selectionId"] == spec["holdoutId"]:
        raise _fail("selectionId and holdoutId must differ")
    tasks = _array(spec.get("tasks"), "tasks", 1, 1000)
    for index, task in enumerate(tasks):
        _check_task(task, f"tasks[{index}]")
    ids = [task["id"] for task in tasks]
    if len(set(ids)) != len(ids):
        raise _fail("task ids contains duplicates")
    return spec


def metaharness_manifest(
    spec: Any,
    baseline: Mapping[str, Any],
    evaluator: Mapping[str, Any],
    environment: Mapping[str, Any],
) -> dict[str, Any]:
    """``{"specHash", "manifest"}``: the frozen apx/0.1 manifest of a valid task pack."""
    checked = validate_task_pack(spec)
    for name, part in (
        ("baseline", baseline),
        ("evaluator", evaluator),
        ("environment", environment),
    ):
        if not isinstance(part, Mapping):
            raise _fail(f"{name} must be an object")
    manifest = freeze(
        {
            "schemaVersion": "apx/0.1",
            "suite": {
                "id": checked["id"],
                "version": checked["version"],
                "selectionId": checked["selectionId"],
                "holdoutId": checked["holdoutId"],
                "partition": checked["partition"],
                "slots": [{"id": t["id"], "classId": t["classId"]} for t in checked["tasks"]],
            },
            "baseline": dict(baseline),
            "evaluator": dict(evaluator),
            "environment": dict(environment),
        }
    )
    return {"specHash": digest(checked), "manifest": manifest}
