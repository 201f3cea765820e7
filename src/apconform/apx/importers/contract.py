"""Contract adapters for Autogenous and MetaHarness: a kernel result labelled with its source.

Neither adapter maps a native upstream schema or talks to a live service;
they score a run that already follows the APx contract and say which
integration produced it, with ``nativeIntegration: false``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apconform.apx.kernel import evaluate_document

__all__ = ["autogenous_adapter", "metaharness_adapter"]


def _adapter(name: str, manifest: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "adapter": {
            "name": name,
            "version": "0.1.0",
            "mode": "APx contract adapter",
            "nativeIntegration": False,
        },
        "result": evaluate_document(manifest, run),
    }


def autogenous_adapter(manifest: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    """Score an Autogenous runtime receipt that follows the APx run contract."""
    return _adapter("autogenous", manifest, run)


def metaharness_adapter(manifest: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    """Score a MetaHarness build-time benchmark run that follows the APx run contract."""
    return _adapter("metaharness", manifest, run)
