"""The APx operations golden vectors exercise, each backed by the reference implementation.

Every operation takes a vector's input (a JSON object) and returns the answer
(a JSON value) or raises an error whose code is the refusal. Inputs are plain
JSON, so a third-party kernel can be driven through the same operations.
"""

from __future__ import annotations

from typing import Any

from apconform.apx import kernel
from apconform.apx.bootstrap import draws, indices
from apconform.apx.checks import MISSING
from apconform.apx.guard import guard
from apconform.apx.hashing import digest, freeze
from apconform.apx.importers import (
    autogenous_adapter,
    import_meter,
    import_ruclip_receipt,
    metaharness_adapter,
)
from apconform.apx.metrics import exponent_to_power, power_metrics
from apconform.conformance.operations import BAD_OPERATION_INPUT, operation
from apconform.core.errors import ApconformError

__all__: list[str] = []

_REQUEST = {"/manifest": "apx-manifest", "/run": "apx-run", "": "apx-evaluation-request"}


def _member(value: Any, name: str) -> Any:
    if type(value) is not dict or name not in value:
        raise ApconformError(
            BAD_OPERATION_INPUT, f"the input needs a member {name!r}", path=f"$.{name}"
        )
    return value[name]


def _integer(value: Any, name: str, low: int, high: int) -> int:
    found = _member(value, name)
    if type(found) is not int or not low <= found <= high:
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"input member {name!r} must be an integer from {low} to {high}",
            path=f"$.{name}",
        )
    return found


@operation("apx.digest")
def apx_digest(value: Any) -> dict[str, str]:
    """Input {"value": any}: the APx digest (a string's own UTF-8 bytes, else canonical JSON)."""
    target = _member(value, "value")
    guard(target, ("value",))
    return {"sha256": digest(target)}


@operation("apx.guard")
def apx_guard(value: Any) -> dict[str, bool]:
    """Input {"value": any, "arrayOf"?: int, "wrapInArrays"?: int}: apply the structural guard.

    ``arrayOf`` repeats the value in an array of that length and
    ``wrapInArrays`` then nests it in that many arrays, so a vector can probe
    the node and depth limits without being that large or deep itself.
    """
    target = _member(value, "value")
    if "arrayOf" in value:
        target = [target] * _integer(value, "arrayOf", 0, 200_000)
    if "wrapInArrays" in value:
        for _ in range(_integer(value, "wrapInArrays", 0, 64)):
            target = [target]
    guard(target)
    return {"guarded": True}


@operation("apx.freeze")
def apx_freeze(value: Any) -> dict[str, Any]:
    """Input: a manifest draft (hashes missing or stale); the answer is the frozen manifest."""
    return freeze(value)


@operation("apx.validate_manifest", inputs={"/manifest": "apx-manifest"})
def apx_validate_manifest(value: Any) -> dict[str, Any]:
    """Input {"manifest"}: validate it; the answer lists the calibration of each class."""
    return kernel.validate_manifest(_member(value, "manifest")).to_dict()


@operation("apx.validate_run", inputs=_REQUEST)
def apx_validate_run(value: Any) -> dict[str, Any]:
    """Input {"manifest", "run"}: validate the run against the manifest."""
    return kernel.validate_run(_member(value, "manifest"), _member(value, "run")).to_dict()


@operation("apx.evaluate", inputs=_REQUEST)
def apx_evaluate(value: Any) -> dict[str, Any]:
    """Input {"manifest", "run"}: the apx-result/0.1 document."""
    return kernel.evaluate_document(_member(value, "manifest"), _member(value, "run"))


@operation(
    "apx.compare",
    inputs={
        "/manifest": "apx-manifest",
        "/comparison": "apx-comparison",
        "": "apx-promotion-request",
    },
)
def apx_compare(value: Any) -> dict[str, Any]:
    """Input {"manifest", "comparison", "options"?}: the apx-promotion/0.1 document."""
    options = value.get("options", MISSING) if type(value) is dict else MISSING
    return kernel.compare_document(
        _member(value, "manifest"), _member(value, "comparison"), options
    )


@operation("apx.power_metrics")
def apx_power_metrics(value: Any) -> dict[str, Any]:
    """Input {"creditedHumanHours", "wallHours"}: AP and APx."""
    power, exponent = power_metrics(
        _member(value, "creditedHumanHours"), _member(value, "wallHours")
    )
    return {"AP": power, "APx": exponent}


@operation("apx.exponent_to_power")
def apx_exponent_to_power(value: Any) -> dict[str, Any]:
    """Input {"exponent"}: 2 to that power."""
    return {"AP": exponent_to_power(_member(value, "exponent"))}


@operation("apx.draws")
def apx_draws(value: Any) -> dict[str, Any]:
    """Input {"seed", "count", "pairs"}: the generator's first draws and pair indices."""
    seed = _integer(value, "seed", 0, 4_294_967_295)
    count = _integer(value, "count", 1, 1000)
    pairs = _integer(value, "pairs", 1, 100)
    return {"draws": draws(seed, count), "indices": list(indices(seed, count, pairs))}


@operation("apx.import_meter")
def apx_import_meter(value: Any) -> dict[str, Any]:
    """Input {"value"?, "status"?}: the imported meter (an absent member is undefined)."""
    given = value if type(value) is dict else {}
    return import_meter(given.get("value", MISSING), given.get("status", MISSING))


@operation("apx.import_ruclip")
def apx_import_ruclip(value: Any) -> dict[str, Any]:
    """Input {"receipt"}: the imported ruClip receipt."""
    return import_ruclip_receipt(_member(value, "receipt"))


@operation("apx.adapter", inputs={"/manifest": "apx-manifest", "/run": "apx-run"})
def apx_adapter(value: Any) -> dict[str, Any]:
    """Input {"adapter": "autogenous" | "metaharness", "manifest", "run"}: the labelled result."""
    name = _member(value, "adapter")
    adapters = {"autogenous": autogenous_adapter, "metaharness": metaharness_adapter}
    if name not in adapters:
        raise ApconformError(
            BAD_OPERATION_INPUT,
            "input member 'adapter' must be autogenous or metaharness",
            path="$.adapter",
        )
    return adapters[name](_member(value, "manifest"), _member(value, "run"))


_DOCUMENT_TYPES = (
    "apx-manifest",
    "apx-run",
    "apx-result",
    "apx-promotion",
    "apx-ext-preregistration",
    "apx-ext-power",
    "apx-ext-population",
)


@operation("apx.validate_document")
def apx_validate_document(value: Any) -> dict[str, bool]:
    """Input {"documentType", "document"}: check a stored document against its schema alone."""
    import importlib

    from apconform.core.validation import validate_document
    from apconform.models import DOCUMENTS

    name = _member(value, "documentType")
    if name not in _DOCUMENT_TYPES:
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"input member 'documentType' must be one of {', '.join(_DOCUMENT_TYPES)}",
            path="$.documentType",
        )
    module, cls = DOCUMENTS[name]
    model = getattr(importlib.import_module(f"apconform.models.{module}"), cls)
    validate_document(model, _member(value, "document"), what=f"{name} document")
    return {"valid": True}


# The extension beyond APx 0.1 registers its operations beside these (spec/apx/ext-*.md).
from apconform.apx.population import operations as _population_operations  # noqa: E402, F401
