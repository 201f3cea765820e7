"""Schemathesis hooks that make the documents of one generated body agree with each other.

JSON Schema states what each document of a request may hold, not how the
documents of one body relate: the AP-1 text's hash named by the configuration,
the entities a question names in the fixture, one derivation per question, the
item an operation is asked about. Random bodies almost never satisfy such a
relation, so the kernel refuses every one of them and the fuzzer never reaches
the operation's acceptance path (schemathesis then warns that the operation
"mostly rejected generated data"). These hooks repair the relations of a
*positive* case from what was generated (the hash is recomputed from the
generated text, a question is pointed at one of the generated entities), using
the kit's own functions, and leave every generated value they need not touch.

Only positive cases are touched, and only a deterministic share of them (three
in four, decided by a hash of the generated body), so the refusal branches are
still fuzzed with schema-valid bodies. A negative case is never repaired: it
must stay invalid for the negative data rejection check.

Loaded by ``.ci/fuzz-api`` (``SCHEMATHESIS_HOOKS=tests.api.fuzz_hooks``, from the
repository root) and imported by ``tests/api/test_api_fuzz.py``; see
docs/api/fuzzing.md.

This module registers the hook and holds ``REPAIRS``, the repair of each route; the
repairs live in the modules beside it: ``shared`` (the repaired share and the helpers
every repair uses), ``ap1_inputs`` (the configuration and the run inputs of one body),
``ap1_records`` (seals, transcripts, execution records), ``ap1_import`` (a published
reference run), ``ap1_load_config`` (a configuration to load), ``apx`` (power metrics and
the contract adapter's campaign), ``kit`` (kit/parse and vector documents) and ``ledger``
(a result the ledger's submit route accepts).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import schemathesis
from schemathesis import Case
from schemathesis.generation.modes import GenerationMode

from apconform.conformance.operations import input_documents
from apconform.core.schemas import json_schema_validator

from .ap1_import import _import_reference
from .ap1_inputs import NATIVE_REASONS, _item_cell, _validate_config, run_inputs
from .ap1_load_config import _load_config
from .ap1_records import _execution, _records, _transcript
from .apx import _apx_adapter, _power_metrics
from .kit import _check_vector, _kit_parse
from .ledger import _submission
from .shared import Body, repaired_share

__all__ = [
    "CHECKERS",
    "NATIVE_REASONS",
    "REPAIRS",
    "coherent",
    "documents_meet_schemas",
    "map_case",
    "repaired_share",
    "run_inputs",
]


REPAIRS: dict[str, Callable[[Body], object]] = {
    "/v1/ap1/validate-config": _validate_config,
    "/v1/ap1/derivation-findings": run_inputs,
    "/v1/ap1/seal-record": run_inputs,
    "/v1/ap1/render-request": _item_cell,
    "/v1/ap1/tool-loop": _item_cell,
    "/v1/ap1/validate-derivations": run_inputs,
    "/v1/ap1/check-inputs": run_inputs,
    "/v1/ap1/adjudication-sheets": _records,
    "/v1/ap1/rescore": _records,
    "/v1/ap1/score-execution": _execution,
    "/v1/ap1/score-transcript": _transcript,
    "/v1/ap1/compare-reference-execution": _execution,
    "/v1/kit/parse": _kit_parse,
    "/v1/apx/power-metrics": _power_metrics,
    "/v1/kit/check-vector": _check_vector,
    "/v1/ap1/import-reference": _import_reference,
    "/v1/ap1/load-config": _load_config,
    "/v1/apx/adapter": _apx_adapter,
    "/v1/ledger/entries": _submission,
}
"""The repair each operation's positive bodies get, by route."""


CHECKERS = {"/v1/ap1/check-inputs": "ap1.check_inputs", "/v1/kit/check-vector": "kit.check_vector"}
"""The document checkers among the repaired routes, by route: their members are a document
or any other value (``checked_by: operation``)."""


def documents_meet_schemas(path: str, body: Body) -> bool:
    """Whether every document a checker's body carries meets its document schema.

    Only such bodies are repaired: the relations between documents are what the hooks
    make agree, and a member that is not a document is the operation's to refuse.
    """
    operation = CHECKERS.get(path)
    if operation is None:
        return True
    return all(
        json_schema_validator(document).is_valid(body.get(pointer.lstrip("/")))
        for pointer, document in input_documents(operation).items()
    )


def coherent(path: str, body: Any) -> Any:
    """``body`` with its documents made to agree (a repaired copy), or ``body`` itself."""
    repair = REPAIRS.get(path)
    if repair is None or not isinstance(body, dict) or not repaired_share(body):
        return body
    if not documents_meet_schemas(path, body):
        return body
    out = copy.deepcopy(body)
    repair(out)
    return out


@schemathesis.hook
def map_case(context: schemathesis.HookContext, case: Case[Any]) -> Case[Any]:
    """Repair a share of the positive cases of the operations in ``REPAIRS``."""
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE:
        return case
    if case.operation.path in REPAIRS and case.body is not None:
        case.body = coherent(case.operation.path, case.body)
    return case
