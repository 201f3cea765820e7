"""APx refusals: one stable code per rule, every violation kept, the first in the contract's words.

The APx 0.1 reference kernel stops at its first failed check and throws
``APx validation: <detail>``. This kernel runs the same checks in the same
order but keeps going, so a user sees every fault at once. Each violation
carries the code of the rule it broke and the ``$``-path of the value; the
first one's message is exactly the text the reference kernel would have
thrown, so refusals compare across implementations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from apconform.core.errors import DocumentRefused, ErrorCode, Violation, define_code
from apconform.core.jsonpath import format_path

__all__ = ["PREFIX", "ApxRefused", "Collector", "code_for", "refuse"]

PREFIX = "APx validation: "
"""Every refusal message of the kernel starts with these words, as the contract's do."""

MAX_VIOLATIONS = 1000
"""At most this many violations are listed; a final entry says how many more there were."""


def _code(code: str, title: str, hint: str) -> ErrorCode:
    return define_code(code, title, hint, exit_status=1, http_status=422)


# The structural guard that runs before any other check.
GUARD_LIMIT = _code(
    "APX-GUARD-LIMIT",
    "An APx input is nested deeper than 32 levels or holds more than 100,000 values",
    "Flatten the input or split it; the manifest and each run are limited separately.",
)
GUARD_NONFINITE = _code(
    "APX-GUARD-NONFINITE",
    "An APx input holds NaN or an infinite number",
    "Replace the value with a finite number; an unknown quantity cannot be scored.",
)
GUARD_CYCLE = _code(
    "APX-GUARD-CYCLE",
    "An APx input contains itself",
    "Pass tree-shaped JSON data; no object or array may contain itself.",
)
GUARD_RESERVED = _code(
    "APX-GUARD-RESERVED",
    "An object member is named __proto__, constructor or prototype",
    "Rename the member; these names collide with object internals and are refused everywhere.",
)
GUARD_TYPE = _code(
    "APX-GUARD-TYPE",
    "An APx input holds a value that is not plain JSON",
    "Pass dict (with str keys), list, str, int, float, bool or None only; "
    "convert tuples, enums and other objects first.",
)
# The primitive rules of the data contract.
OBJECT = _code(
    "APX-VAL-OBJECT", "A value must be a JSON object", "Write an object ({...}) at this path."
)
STRING = _code(
    "APX-VAL-STRING",
    "A value must be a string that is not only white space, within its length limit",
    "Write a non-blank string; the limit counts UTF-16 code units as ECMAScript does.",
)
RESERVED_ID = _code(
    "APX-VAL-RESERVED-ID",
    "An identifier is __proto__, constructor or prototype",
    "Choose another identifier.",
)
BOOLEAN = _code("APX-VAL-BOOLEAN", "A value must be true or false", "Write true or false.")
NUMBER = _code(
    "APX-VAL-NUMBER",
    "A value must be a finite JSON number within its range",
    "Write a number within the range given in the message; an unknown value cannot be "
    "scored as zero, so measure it or refuse to score.",
)
INTEGER = _code(
    "APX-VAL-INTEGER", "A value must be an integer", "Write a whole number, such as 2000."
)
ARRAY = _code(
    "APX-VAL-ARRAY",
    "A value must be an array with a number of entries within its range",
    "Write an array with as many entries as the message allows.",
)
DUPLICATE = _code(
    "APX-VAL-DUPLICATE",
    "Ids that must be unique appear more than once",
    "Give every entry its own id.",
)
DIGEST = _code(
    "APX-VAL-DIGEST",
    "A value must be a SHA-256 digest in lowercase hexadecimal",
    "Write 64 characters 0-9 and a-f.",
)
ENUM = _code(
    "APX-VAL-ENUM",
    "A value must be one of the listed words",
    "Use one of the values listed in the message, spelled exactly.",
)
# Manifest rules.
SCHEMA_VERSION = _code(
    "APX-MAN-VERSION",
    "The manifest's schemaVersion is not apx/0.1",
    'Set "schemaVersion": "apx/0.1"; other versions are refused, never guessed.',
)
FROZEN_HASH = _code(
    "APX-MAN-HASH",
    "A manifest component does not match its frozen hash",
    "The component changed after it was frozen: restore it, or freeze the manifest again "
    "(apconform apx freeze) and rebind every run to the new hashes.",
)
SPLIT = _code(
    "APX-MAN-SPLIT",
    "The suite's selection and holdout ids are the same",
    "Give the holdout split its own id.",
)
TASK_SET_HASH = _code(
    "APX-MAN-TASKSET",
    "taskSetHash is not the digest of the suite's slots",
    "Freeze the manifest again so taskSetHash covers the slots in their order.",
)
PREDECLARED = _code(
    "APX-MAN-ATTEMPTS",
    "The baseline's attempts differ from its predeclared attempt ids",
    "Keep every predeclared attempt, failures and timeouts included, and no other.",
)
PROTOCOL_TIME = _code(
    "APX-MAN-PROTOCOL-TIME",
    "The calibration protocol has no valid predeclaration time",
    "Write predeclaredAt as an ISO date-time such as 2026-09-01T00:00:00Z.",
)
PROTOCOL_BINDING = _code(
    "APX-MAN-PROTOCOL-BINDING",
    "The calibration protocol names another evaluator",
    "Set the protocol's evaluatorId and evaluatorHash to the frozen evaluator's.",
)
PARTICIPANT = _code(
    "APX-MAN-PARTICIPANT",
    "A measured attempt names no declared cohort participant",
    "Set participantId to one of cohort.participantIds.",
)
BASELINE_ADJUDICATION = _code(
    "APX-MAN-ADJUDICATION",
    "A measured attempt lacks an independent human adjudication",
    'Give the attempt an adjudication with kind "human-adjudication" and independent true.',
)
SELF_REVIEW = _code(
    "APX-MAN-SELF-REVIEW",
    "A participant adjudicated their own attempt",
    "Have another reviewer adjudicate the attempt.",
)
ADJUDICATION_BINDING = _code(
    "APX-MAN-ADJUDICATION-BINDING",
    "A baseline adjudication is not bound to its attempt, participant, evaluator and provenance",
    "Copy the attempt's id, participant and provenance hash and the frozen evaluator's id and "
    "hash into the adjudication, with a decision that matches the attempt.",
)
CLASS_OUTSIDE = _code(
    "APX-MAN-CLASS",
    "A baseline attempt belongs to a class that no suite slot has",
    "Remove the attempt from this baseline or add the class to the suite.",
)
UNCALIBRATED = _code(
    "APX-CAL-UNDEFINED",
    "A task class has no accepted baseline attempt, so its reference hours are undefined",
    "Measure accepted human attempts for the class, or remove the class from the suite.",
)
# Run rules.
RUN_HASH = _code(
    "APX-RUN-HASH",
    "A run refers to another frozen manifest component",
    "Score the run against the manifest it was made for, or rebind it to this manifest.",
)
RUN_PARTITION = _code(
    "APX-RUN-PARTITION",
    "The run's partition differs from the suite's",
    "Score the run against a manifest of its own partition.",
)
AUTONOMOUS = _code(
    "APX-RUN-AUTONOMOUS",
    "An autonomous run reports human hours",
    "Report the human hours under evaluation-only, supervised or collaborative mode.",
)
WALL_SUM = _code(
    "APX-RUN-WALL-SUM",
    "The five wall-time categories do not add up to wallHours",
    "Make execution, retry, review, blocking-wait and other hours sum to wallHours.",
)
REVIEW_HOURS = _code(
    "APX-RUN-REVIEW-HOURS",
    "The run's human hours are fewer than its elapsed review hours",
    "humanReviewHours counts all human labour and cannot be below wallBreakdown.reviewHours.",
)
COVERAGE = _code(
    "APX-RUN-COVERAGE",
    "The outcomes do not match the frozen task slots one to one",
    "Give exactly one outcome per suite slot, failures included, and no other.",
)
EVIDENCE_BINDING = _code(
    "APX-RUN-EVIDENCE-BINDING",
    "Measured evidence is not bound to its slot, artifact, evaluator and run",
    "Copy the outcome's slotId and artifactHash, the frozen evaluator hash and the run id "
    "into each evidence entry.",
)
EVIDENCE_INDEPENDENT = _code(
    "APX-RUN-EVIDENCE-INDEPENDENT",
    "Measured evidence is not an independent human adjudication",
    "In APx 0.1 measured outcomes rest on human-adjudication or ruclip-adjudication entries "
    "with independent true; test receipts alone are valid only in synthetic runs.",
)
EVIDENCE_DECISION = _code(
    "APX-RUN-EVIDENCE-DECISION",
    "A measured adjudication's decision contradicts the outcome",
    'Use "accepted" for an accepted outcome and "rejected" otherwise.',
)
EVIDENCE_VERIFIED = _code(
    "APX-RUN-EVIDENCE-VERIFIED",
    "An accepted measured outcome has no verified independent adjudication",
    "Add a verified, independent adjudication, or record the outcome as not accepted.",
)
# Scoring and comparison.
CONFLICT = _code(
    "APX-SCORE-CONFLICT",
    "One deliverable id is credited with two different artifacts",
    "A deliverable has one artifact: fix the deliverable ids or the artifact hashes.",
)
PAIR_INDEPENDENCE = _code(
    "APX-CMP-INDEPENDENCE",
    "A pair's parent and candidate declare different independence ids",
    "Give both runs of a pair the same independenceId.",
)
PAIR_MODE = _code(
    "APX-CMP-MODE",
    "A pair's parent and candidate use different assistance modes",
    "Compare only campaigns run under the same assistance mode.",
)
TOO_MANY = _code(
    "APX-VAL-MORE",
    "More violations were found than are listed",
    "Fix the listed violations and check the document again.",
)

_BY_CODE: dict[str, ErrorCode] = {}


def code_for(name: str) -> ErrorCode:
    """The registered ErrorCode object of an APX- code name."""
    if not _BY_CODE:
        for value in globals().values():
            if isinstance(value, ErrorCode):
                _BY_CODE[value.code] = value
    return _BY_CODE[name]


class ApxRefused(DocumentRefused):
    """An APx input was refused: every violation is listed, the first decides the code and text.

    ``code`` is the first violation's code, ``message`` its text (the reference
    kernel's wording) and ``path`` its location; ``violations`` holds them all.
    """

    def __init__(self, violations: Iterable[Violation], *, what: str = "APx input") -> None:
        super().__init__(violations, what=what)
        first = self.violations[0]
        self.error_code = code_for(first.code)
        self.message = first.message
        self.hint = first.hint or self.error_code.hint
        self.args = (first.message,)


class Collector:
    """Gathers violations in check order; the first one is what the reference kernel throws."""

    __slots__ = ("extra", "violations")

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.extra = 0

    def add(self, code: ErrorCode, where: Sequence[str | int], detail: str) -> None:
        """Record that the value at ``where`` broke ``code``; ``detail`` follows the prefix."""
        if len(self.violations) >= MAX_VIOLATIONS:
            self.extra += 1
            return
        self.violations.append(Violation(code.code, format_path(where), PREFIX + detail, code.hint))

    def __bool__(self) -> bool:
        return bool(self.violations)

    def raise_if_any(self, what: str = "APx input") -> None:
        if self.violations:
            listed = list(self.violations)
            if self.extra:
                listed.append(
                    Violation(
                        TOO_MANY.code,
                        "$",
                        f"{PREFIX}{self.extra} more violation(s) were found and are not listed",
                        TOO_MANY.hint,
                    )
                )
            raise ApxRefused(listed, what=what)


def refuse(code: ErrorCode, where: Sequence[str | int], detail: str) -> ApxRefused:
    """A refusal with a single violation (for faults found after validation, such as conflicts)."""
    collector = Collector()
    collector.add(code, where, detail)
    return ApxRefused(collector.violations)
