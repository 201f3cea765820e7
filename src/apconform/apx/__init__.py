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
    from apconform.apx.errors import ApxRefused as ApxRefused
    from apconform.apx.hashing import digest as digest
    from apconform.apx.hashing import freeze as freeze
    from apconform.apx.hashing import rebind as rebind
    from apconform.apx.kernel import ManifestCheck as ManifestCheck
    from apconform.apx.kernel import RunCheck as RunCheck
    from apconform.apx.kernel import compare as compare
    from apconform.apx.kernel import compare_document as compare_document
    from apconform.apx.kernel import evaluate as evaluate
    from apconform.apx.kernel import evaluate_document as evaluate_document
    from apconform.apx.kernel import validate_manifest as validate_manifest
    from apconform.apx.kernel import validate_run as validate_run
    from apconform.apx.manifest import ClassCalibration as ClassCalibration
    from apconform.apx.metrics import exponent_to_power as exponent_to_power
    from apconform.apx.metrics import power_metrics as power_metrics
    from apconform.apx.signing import sign as sign
    from apconform.apx.signing import verify as verify
    from apconform.apx.text import KERNEL_VERSION as KERNEL_VERSION

__getattr__ = lazy_exports(__name__)
