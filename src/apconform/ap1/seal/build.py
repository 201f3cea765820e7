"""The seal: every input hashed and every declared rule recorded before the first request.

JSON inputs are hashed as SHA-256 over the RFC 8785 bytes of the parsed
document (so indentation and key order do not matter); the AP-1 text is hashed
with line endings normalised to LF. The composite ``sealHash`` covers the
whole record except ``sealedAt``, ``sealHash`` and ``signature``. Verification
recomputes every component from the sealed copies and names each mismatch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from apconform import __version__
from apconform.ap1.calculator.evaluator import CALCULATOR_LIMITS
from apconform.ap1.clock import utc_now
from apconform.ap1.inputs.plan import RunInputs, plan_cells, plan_digest
from apconform.ap1.inputs.sealed import SEALED_NAMES
from apconform.ap1.numbers import ARITHMETIC_PRECISION, ARITHMETIC_ROUNDING
from apconform.ap1.rundir import (
    INPUT_FILES,
    SEAL_FILE,
    create_file,
    ensure_directory,
    refuse_existing_run,
)
from apconform.ap1.seal.records import (
    DeclaredConstantJson,
    DeclaredRulesJson,
    RunPlanJson,
    SealRecord,
)
from apconform.ap1.seal.source import SOURCE_HASH_METHOD, instrument_source_hash
from apconform.core.canonical import TEXT_HASH_METHOD, sha256_hex, sha256_text
from apconform.core.signing import Ed25519Key, sign_document
from apconform.models.ap1 import DeclaredConstant

__all__ = [
    "COMPOSITE_EXCLUDES",
    "build_seal",
    "composite_hash",
    "declared_rules",
    "now_timestamp",
    "plan_summary",
    "write_sealed_run",
]

COMPOSITE_EXCLUDES = ("sealedAt", "sealHash", "signature")


def now_timestamp() -> str:
    """UTC now as RFC 3339 with microseconds and a Z."""
    return utc_now()


def composite_hash(record: Mapping[str, object]) -> str:
    """SHA-256 of the RFC 8785 bytes of the record without sealedAt, sealHash and signature."""
    return sha256_hex({k: v for k, v in record.items() if k not in COMPOSITE_EXCLUDES})


def declared_rules(inputs: RunInputs) -> DeclaredRulesJson:
    """The rules that decide what counts as traced, as the seal records them."""
    answer = inputs.config.model.answer
    return {
        "transformations": [str(t) for t in inputs.config.model.permittedTransformations],
        "quantisation": {
            "places": answer.quantisation.places,
            "rounding": str(answer.quantisation.rounding),
        },
        "tolerance": answer.tolerance,
        "arithmetic": {"precision": str(ARITHMETIC_PRECISION), "rounding": ARITHMETIC_ROUNDING},
        "calculator": CALCULATOR_LIMITS.copy(),
        "constants": [
            {"itemId": d.itemId, "constants": [_constant(c) for c in d.constants]}
            for d in inputs.derivations.derivations
        ],
    }


def _constant(constant: DeclaredConstant) -> DeclaredConstantJson:
    """A declared constant as sealed; its role (and basis) when the format declares one."""
    out: DeclaredConstantJson = {
        "name": constant.name,
        "value": constant.value,
        "meaning": constant.meaning,
    }
    if constant.role is not None:
        out["role"] = str(constant.role)
    if constant.basis is not None:
        out["basis"] = constant.basis
    return out


def plan_summary(inputs: RunInputs) -> RunPlanJson:
    cells = plan_cells(inputs)
    derivable = sum(1 for item in inputs.questions.items if item.derivable)
    return {
        "conditions": ["base", "instruction-removed"],
        "repeats": str(inputs.config.repeats),
        "derivableItems": str(derivable),
        "voidItems": str(len(inputs.questions.items) - derivable),
        "cells": str(len(cells)),
        "planSha256": plan_digest(cells),
    }


def build_seal(inputs: RunInputs, *, sealed_at: str | None = None) -> dict[str, Any]:
    """The complete seal record for these inputs (unsigned)."""
    citation = inputs.config.model.ap1
    record: SealRecord = {
        "schemaVersion": "apconform-ap1-seal/1",
        "sealedAt": sealed_at or now_timestamp(),
        "sealHash": "",
        "instrument": {
            "name": "apconform",
            "version": __version__,
            "sourceSha256": instrument_source_hash(),
            "sourceHashMethod": SOURCE_HASH_METHOD,
        },
        "ap1": {
            "version": citation.version,
            "versionDoi": citation.versionDoi,
            "textSha256": sha256_text(inputs.ap1_text),
            "textHashMethod": TEXT_HASH_METHOD,
            "file": INPUT_FILES["ap1Text"],
        },
        "inputs": {
            name: {
                "sha256": sha256_hex(inputs.documents[name]),
                "method": "jcs-sha256",
                "file": INPUT_FILES[name],
            }
            for name in SEALED_NAMES
        },
        "declared": declared_rules(inputs),
        "plan": plan_summary(inputs),
        "evidence": {"ev3Implemented": False, "verificationKeys": []},
    }
    record["sealHash"] = composite_hash(record)
    return dict(record)  # callers extend it (the ap1.seal_record operation) as a JSON object


def write_sealed_run(
    run_dir: Path, inputs: RunInputs, *, sign_key: Ed25519Key | None = None
) -> dict[str, Any]:
    """Write the sealed copies and the seal record into a directory that holds no run yet.

    The directory is created when missing and must be a real directory; every
    file is created new, without following links (see :mod:`apconform.ap1.rundir`).
    """
    ensure_directory(run_dir)
    refuse_existing_run(run_dir)
    record = build_seal(inputs)
    if sign_key is not None:
        record = sign_document(record, sign_key, field="signature")
    for name in SEALED_NAMES:
        text = json.dumps(inputs.documents[name], indent=2, ensure_ascii=False) + "\n"
        create_file(run_dir, INPUT_FILES[name], text.encode("utf-8"))
    create_file(run_dir, INPUT_FILES["ap1Text"], inputs.ap1_text.encode("utf-8"))
    seal_text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    create_file(run_dir, SEAL_FILE, seal_text.encode("utf-8"))
    return record
