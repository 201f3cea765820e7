"""The fixed sentences of APx documents, written once so every module uses the same words.

The first group are the contract's own texts; results and promotions carry them
verbatim so documents compare across implementations.
"""

from __future__ import annotations

__all__ = [
    "ASSURANCE",
    "CONDITIONAL_ON",
    "KERNEL_VERSION",
    "METHOD",
    "NOTE_ELIGIBLE",
    "NOTE_INELIGIBLE",
    "PROMOTION_LIMITATION",
    "RESULT_LIMITATION",
]

KERNEL_VERSION = "0.1.0"
ASSURANCE = (
    "declared-measured when labeled pilot; structural checks do not authenticate evidence, "
    "participants, reviewers, or independent measurement"
)
RESULT_LIMITATION = (
    "Task-conditioned, cohort-conditioned reference work. Not intelligence, book counts, "
    "lines of code, or proof of human labor displacement. Hashes are not signatures or "
    "evidence authentication."
)
NOTE_ELIGIBLE = "gated accepted output"
NOTE_INELIGIBLE = "diagnostic only; policy violation or known safety failure blocks official APx"
METHOD = "paired full-campaign percentile bootstrap"
CONDITIONAL_ON = (
    "frozen human baseline; excludes baseline calibration uncertainty, task sampling shift, "
    "and adaptive holdout reuse"
)
PROMOTION_LIMITATION = (
    "Promotion is a benchmark recommendation, never deployment authority. Independent "
    "campaign IDs are declarations, not proof of statistical independence. Holdout "
    "governance must prevent adaptive reuse."
)
