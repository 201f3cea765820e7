"""The APx 0.1 kernel: freeze, validate, evaluate and compare agent campaigns.

A faithful, independent implementation of the APx 0.1 contract (the
reference kernel ruvnet/APx): for every input that kernel accepts, these
functions return the same documents, and every input it refuses is refused
here too, with the same first message. Beyond the contract, every violation
is reported with a stable code and a ``$``-path, results carry the
measurements the specification asks for, and results and promotions can be
signed. Only the names below are public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.apx.errors import ApxRefused
    from apconform.apx.hashing import digest, freeze, rebind
    from apconform.apx.kernel import (
        ManifestCheck,
        RunCheck,
        compare,
        compare_document,
        evaluate,
        evaluate_document,
        validate_manifest,
        validate_run,
    )
    from apconform.apx.manifest import ClassCalibration
    from apconform.apx.metrics import exponent_to_power, power_metrics
    from apconform.apx.signing import sign, verify
    from apconform.apx.text import KERNEL_VERSION

__all__ = [
    "KERNEL_VERSION",
    "ApxRefused",
    "ClassCalibration",
    "ManifestCheck",
    "RunCheck",
    "compare",
    "compare_document",
    "digest",
    "evaluate",
    "evaluate_document",
    "exponent_to_power",
    "freeze",
    "power_metrics",
    "rebind",
    "sign",
    "validate_manifest",
    "validate_run",
    "verify",
]

_EXPORTS = {
    "KERNEL_VERSION": "apconform.apx.text",
    "ApxRefused": "apconform.apx.errors",
    "ClassCalibration": "apconform.apx.manifest",
    "ManifestCheck": "apconform.apx.kernel",
    "RunCheck": "apconform.apx.kernel",
    "compare": "apconform.apx.kernel",
    "compare_document": "apconform.apx.kernel",
    "digest": "apconform.apx.hashing",
    "evaluate": "apconform.apx.kernel",
    "evaluate_document": "apconform.apx.kernel",
    "exponent_to_power": "apconform.apx.metrics",
    "freeze": "apconform.apx.hashing",
    "power_metrics": "apconform.apx.metrics",
    "rebind": "apconform.apx.hashing",
    "sign": "apconform.apx.signing",
    "validate_manifest": "apconform.apx.kernel",
    "validate_run": "apconform.apx.kernel",
    "verify": "apconform.apx.signing",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
