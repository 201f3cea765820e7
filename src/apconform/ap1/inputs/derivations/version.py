"""What each version of the derivation format allows, checked before anything is evaluated.

Version 1 is the original format: every step is a reference intermediate,
every declared constant is used, and the question's step count is the
derivation's. Version 2 says what real ground truth needs: a combined
operation (``multiply_then_divide``), steps marked as reference intermediates
or helpers, constants declared with a role, and a step count that stays the
question's own. A version 1 document may use none of the version 2 members,
and a version 2 document must declare every one, so no meaning is defaulted.
"""

from __future__ import annotations

from collections.abc import Iterator

from apconform.ap1.refusal import violation
from apconform.core.errors import Violation, define_code
from apconform.models.ap1 import Ap1DerivationSet, ItemDerivation

__all__ = ["VERSION", "VERSION_2_OPERATIONS", "format_version", "version_violations"]

VERSION = define_code(
    "AP1-DRV-VERSION",
    "A derivation uses a member its format version does not have, or omits one it requires",
    'Write "schemaVersion": "apconform-ap1-derivations/2" to use roles, reference flags and '
    "multiply_then_divide, and then declare every step's reference flag and every "
    "constant's role.",
    exit_status=1,
)

VERSION_2_OPERATIONS = frozenset({"multiply_then_divide"})


def format_version(derivations: Ap1DerivationSet) -> int:
    """1 or 2, from the document's schemaVersion."""
    return 2 if derivations.schemaVersion.endswith("/2") else 1


def version_violations(derivation: ItemDerivation, where: str, version: int) -> Iterator[Violation]:
    """Every member of one derivation that its format version refuses or misses."""
    for s_index, step in enumerate(derivation.intermediates):
        at = f"{where}.intermediates[{s_index}]"
        has_flag = "reference" in step.model_fields_set and step.reference is not None
        if version == 1:
            if has_flag:
                yield violation(VERSION, f"{at}.reference", "reference is a version 2 member")
            if str(step.operation) in VERSION_2_OPERATIONS:
                yield violation(
                    VERSION, f"{at}.operation", f"{step.operation!s} is a version 2 operation"
                )
        elif not has_flag:
            yield violation(
                VERSION,
                f"{at}.reference",
                f"step {step.label} must say whether it is a reference intermediate "
                "(reference: true) or a helper (reference: false)",
            )
    for c_index, constant in enumerate(derivation.constants):
        at = f"{where}.constants[{c_index}]"
        role = None if constant.role is None else str(constant.role)
        if version == 1:
            for member in ("role", "basis"):
                if getattr(constant, member) is not None:
                    yield violation(VERSION, f"{at}.{member}", f"{member} is a version 2 member")
            continue
        if role is None:
            yield violation(
                VERSION,
                f"{at}.role",
                f"constant {constant.name} must declare its role: used, alternative-route "
                "or structural",
            )
        elif role == "alternative-route" and constant.basis is None:
            yield violation(
                VERSION,
                f"{at}.basis",
                f"constant {constant.name} is declared for an alternative route; name the "
                "clause or comment that route rests on in basis",
            )
        elif role == "used" and constant.basis is not None:
            yield violation(
                VERSION,
                f"{at}.basis",
                f"constant {constant.name} is used by a step; basis belongs to an "
                "alternative-route or structural constant",
            )
