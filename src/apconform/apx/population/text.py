"""The fixed texts of the extension's documents (the schemas pin each one)."""

from __future__ import annotations

__all__ = [
    "ESTIMAND",
    "ESTIMAND_STATEMENT",
    "EXTENSION",
    "INCLUDED",
    "INTERVAL_METHOD",
    "MODEL",
    "NOT_INCLUDED",
    "POPULATION_LIMITATION",
    "POWER_LIMITATION",
]

EXTENSION = (
    "Beyond APx 0.1. An apconform extension that APx 0.1 section 9 asks for; it never "
    "changes an APx 0.1 figure."
)
MODEL = "crossed-families-runs/1"
INTERVAL_METHOD = "pair-jackknife-anova-t/1"
ESTIMAND = "population-delta-apx"
ESTIMAND_STATEMENT = (
    "log2 of the candidate's population AP over the parent's: each configuration's expected "
    "credited reference hours over its expected complete elapsed hours, over the task "
    "families the suite samples, the instances within them, the human participants who "
    "calibrated each class and the campaign runs; estimated by the APx 0.1 deltaAPx."
)
INCLUDED = (
    "task families: which families the suite samples, with each family's advantage for the "
    "candidate and its weight (two-way analysis of variance)",
    "task instances within families, inside each family's contribution",
    "human participants within each class's calibration, through the family's calibrated "
    "reference hours",
    "campaign runs: run-to-run variation of credited work and of complete elapsed time "
    "(delete-one-pair jackknife)",
    "families by runs: the instance-level noise of each run",
)
NOT_INCLUDED = (
    "reviewer and adjudication error: acceptance is taken as recorded",
    "selection bias and adaptive reuse of the holdout: custody is declared, not checked",
    "how elapsed time would change with another sample of tasks: APx 0.1 receipts record one "
    "elapsed time per campaign",
    "correlation between classes calibrated by the same participants: each class's "
    "calibration is treated as independent",
    "dependence between pairs: independence ids are declarations",
    "departures from the model (exchangeable families and pairs, the t approximation): its "
    "coverage is measured, not proved (docs/apx/population.md)",
)
POPULATION_LIMITATION = (
    "An interval under a stated variance model for the population the design samples. It is "
    "not a certification, authorises no deployment, and is only as good as the independence "
    "of the pairs and the custody of the holdout."
)
POWER_LIMITATION = (
    "A simulation under an assumed model and assumed effects. It plans a study; it is not "
    "evidence about any system, and its answers are only as good as the components it was "
    "given."
)
