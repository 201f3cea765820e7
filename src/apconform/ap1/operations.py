"""The AP-1 operations vectors exercise, each a thin call into the instrument's library.

Each takes the vector's input and returns a JSON answer, or raises an
:class:`~apconform.core.errors.ApconformError` whose code is the refusal.
"""

from __future__ import annotations

from typing import Any

from apconform.ap1.compat import reference_seal_hashes
from apconform.conformance.operations import operation

__all__: list[str] = []


def _member(value: Any, name: str) -> Any:
    from apconform.conformance.operations import BAD_OPERATION_INPUT
    from apconform.core.errors import ApconformError

    if not isinstance(value, dict) or name not in value:
        raise ApconformError(
            BAD_OPERATION_INPUT, f"the input needs a member {name!r}", path=f"$.{name}"
        )
    return value[name]


@operation("ap1.reference_seal_hashes")
def reference_seal_hashes_op(value: Any) -> dict[str, Any]:
    """Input {"config", "sealRecord"} as printed in a reference report; answer both hashes."""
    return reference_seal_hashes(_member(value, "config"), _member(value, "sealRecord"))
