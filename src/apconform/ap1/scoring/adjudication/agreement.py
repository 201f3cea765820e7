"""The agreement of two scorers on one measure, as the merged adjudication document writes it.

Each :class:`~typing.TypedDict` names the JSON members of one class of the
``ap1-adjudication`` schema (:class:`~apconform.models.ap1.AgreementResult`,
:class:`~apconform.models.ap1.KappaInterval` and
:class:`~apconform.models.ap1.Disagreement`; a test ties their keys
together). The score report carries the merged entries through as they are.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["AgreementResult", "KappaInterval", "MeasureDisagreement"]


class KappaInterval(TypedDict):
    """The 95% interval of Cohen's kappa, clipped to [-1, 1]."""

    lower: str
    upper: str
    confidence: str
    method: str


class MeasureDisagreement(TypedDict):
    """One row the scorers marked differently on one measure, and any settled mark."""

    rowId: str
    cellKey: str
    scorer1: str
    scorer2: str
    settled: str | None


class AgreementResult(TypedDict):
    """Agreement of two scorers on one measure, with Cohen's kappa and its interval."""

    measure: str
    n: str
    agreed: str
    rawAgreement: str | None
    kappa: str | None
    kappaInterval: KappaInterval | None
    caveat: str | None
    disagreements: list[MeasureDisagreement]
