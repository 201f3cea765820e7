"""The kit's verdicts beside the reference instrument's, per execution and dimension, classified.

An imported run is re-scored from its transcript and sealed copies, and each
execution's scores are set against the verdicts the reference recorded for it
(kept by the import in ``import/reference-verdicts.jsonl``): evidence class and
invocation outcome, figure outcome and released figure, every operand's ladder
step and kind, every call's operand outcome and operation outcome, and the
transcription outcome. Every disagreement is classified as a documented
defect of the reference (its id in the errata or the research notes), a
deliberate rule difference (the kit's clause), or unexplained, which the
rendering highlights. Agreement counts are per dimension.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from apconform.ap1.importers.reference.comparison_document import (
    Classification,
    ComparisonDimension,
    ComparisonDisagreement,
    ReferenceComparison,
)
from apconform.ap1.importers.reference.run_import import IMPORT_FILE, VERDICTS_FILE
from apconform.ap1.importers.reference.verdicts import (
    ReferenceCall,
    ReferenceOperand,
    ReferenceOperation,
    ReferenceVerdict,
)
from apconform.ap1.inputs.files import read_text_file
from apconform.ap1.inputs.plan import load_sealed_inputs
from apconform.ap1.inputs.sealed import SEALED_NAMES, SealedInputs
from apconform.ap1.numbers import quantise
from apconform.ap1.rundir import INPUT_FILES, TRANSCRIPT_FILE
from apconform.ap1.scoring.context import ScoringInputs, scoring_inputs
from apconform.ap1.scoring.record import RecordUnreadable, read_execution
from apconform.ap1.scoring.rescoring import Rescorer
from apconform.ap1.scoring.results import CallOperationJson, InvocationJson, OperandJson
from apconform.core.errors import ApconformError, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1ReferenceComparison, Ap1ReferenceVerdict

__all__ = [
    "COMPARISON_DIMENSIONS",
    "NOT_IMPORTED",
    "Comparison",
    "compare_execution",
    "compare_reference",
    "derived_transcription",
    "render_comparison",
]

NOT_IMPORTED = define_code(
    "AP1-COMPARE-NOT-IMPORTED",
    "The run directory holds no imported reference run",
    "Import the reference run first with `apconform ap1 import reference OUTPUT_FOLDER ...`, "
    "then compare the run directory it wrote.",
)

COMPARISON_DIMENSIONS = (
    "D7.1 evidence class",
    "D7.1 invocation",
    "figure outcome",
    "released figure",
    "D7.2(a) operand",
    "D7.2(a) call",
    "D7.2(b) call",
    "D7.3 transcription",
)

DEFECT = "documented-defect"
RULE = "rule-difference"
UNEXPLAINED = "unexplained"

_REFERENCE_KIND = {
    "source_match": ("i", "SOURCE-VALUE"),
    "constant": ("i", "DECLARED-CONSTANT"),
    "constant_magnitude": ("i", "CONSTANT-MAGNITUDE"),
    "transformed_source": ("ii", "TRANSFORMED-SOURCE"),
    "intermediate": ("iii", "INTERMEDIATE"),
    "transformed_intermediate": ("iii", "TRANSFORMED-INTERMEDIATE"),
    "quantised_intermediate": ("iii", "QUANTISED-INTERMEDIATE"),
    "computed_in_session": ("iv", "COMPUTED-IN-SESSION"),
    "computed_in_session_ungrounded": ("v", "UNGROUNDED-EARLIER-RETURN"),
    "originated": ("v", "ORIGINATED"),
}


@dataclass
class _Tally:
    compared: int = 0
    agree: int = 0
    not_recorded: int = 0


@dataclass
class Comparison:
    """The comparison document and the rows behind it."""

    document: ReferenceComparison
    tallies: dict[str, _Tally] = field(default_factory=dict)


def _decimal(text: object) -> Decimal | None:
    if not isinstance(text, str):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _scores(
    run_dir: Path,
) -> tuple[ScoringInputs, dict[str, dict[str, Any]], dict[str, list[Decimal]]]:
    """The prepared inputs, each execution's scores and each execution's calculator returns."""
    documents = {name: load_path(run_dir / INPUT_FILES[name]) for name in SEALED_NAMES}
    text_path = run_dir / INPUT_FILES["ap1Text"]
    text = read_text_file(text_path) if text_path.is_file() else None
    inputs = load_sealed_inputs(SealedInputs(**documents, ap1_text=text))
    prepared = scoring_inputs(inputs)
    scores: dict[str, dict[str, Any]] = {}
    returns: dict[str, list[Decimal]] = {}
    tool = prepared.inputs.config.tool_name
    rescorer = Rescorer(prepared, on_execution=lambda doc: scores.__setitem__(doc["cellKey"], doc))
    with (run_dir / TRANSCRIPT_FILE).open("rb") as handle:
        for raw in handle:
            line = raw[:-1] if raw.endswith(b"\n") else raw
            rescorer.add_line(line)
            try:
                view = read_execution(json.loads(line))
            except (ValueError, RecordUnreadable):
                continue
            values = [call.result() for call in view.tool_calls if call.name == tool]
            returns[view.cell_key] = [v for v in values if v is not None]
    return prepared, scores, returns


def _verdicts(run_dir: Path) -> Iterator[ReferenceVerdict]:
    with (run_dir / VERDICTS_FILE).open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            value = json.loads(raw)
            if not isinstance(value, dict) or not isinstance(value.get("cellKey"), str):
                raise ApconformError(
                    NOT_IMPORTED, f"{run_dir / VERDICTS_FILE} line {number} is not a verdict"
                )
            yield checked_verdict(value, f"{run_dir / VERDICTS_FILE} line {number}")


def checked_verdict(value: object, what: str) -> ReferenceVerdict:
    """A reference verdict checked against its schema (``what`` names it in a refusal)."""
    return _verdict(validate_document(Ap1ReferenceVerdict, value, what=what))


def _verdict(checked: Ap1ReferenceVerdict) -> ReferenceVerdict:
    """A verdict line the schema accepted, as the plain dict the comparison reads."""
    return {
        "cellKey": checked.cellKey,
        "engineLine": checked.engineLine,
        "figureLine": checked.figureLine,
        "evidenceClass": checked.evidenceClass,
        "invocationRecorded": checked.invocationRecorded,
        "invocation": checked.invocation,
        "groundTruthFinal": checked.groundTruthFinal,
        "figureOutcome": checked.figureOutcome,
        "releasedFigure": checked.releasedFigure,
        "callsRecorded": checked.callsRecorded,
        "calls": [
            {
                "outcome": call.outcome,
                "expression": call.expression,
                "operands": [
                    {
                        "literal": operand.literal,
                        "value": operand.value,
                        "step": operand.step,
                        "resolution": operand.resolution,
                        "matchedField": operand.matchedField,
                        "matchedIntermediate": operand.matchedIntermediate,
                        "transformation": operand.transformation,
                    }
                    for operand in call.operands
                ],
            }
            for call in checked.calls
        ],
        "operationsRecorded": checked.operationsRecorded,
        "operations": [
            {
                "outcome": operation.outcome,
                "matchedAgainst": operation.matchedAgainst,
                "value": operation.value,
            }
            for operation in checked.operations
        ],
        "transcription": checked.transcription,
    }


class _Comparer:
    def __init__(self, prepared: ScoringInputs, august: bool) -> None:
        self.prepared = prepared
        self.august = august
        self.tallies = {name: _Tally() for name in COMPARISON_DIMENSIONS}
        self.rows: list[ComparisonDisagreement] = []

    def note(
        self,
        dimension: str,
        agree: bool | None,
        *,
        cellKey: str,
        where: str,
        apconform: str,
        reference: str,
        classification: str,
        cites: str,
        explanation: str,
    ) -> None:
        tally = self.tallies[dimension]
        if agree is None:
            tally.not_recorded += 1
            return
        tally.compared += 1
        if agree:
            tally.agree += 1
            return
        self.rows.append(
            {
                "dimension": dimension,
                "cellKey": cellKey,
                "where": where,
                "apconform": apconform,
                "reference": reference,
                "classification": classification,
                "cites": cites,
                "explanation": explanation,
            }
        )

    # ------------------------------------------------------------------ per execution
    def execution(self, ours: dict[str, Any], theirs: ReferenceVerdict) -> None:
        key = ours["cellKey"]
        invocation = ours["invocation"]
        self.note(
            "D7.1 evidence class",
            invocation.get("evidenceClass") == theirs.get("evidenceClass"),
            cellKey=key,
            where="execution",
            apconform=str(invocation.get("evidenceClass")),
            reference=str(theirs.get("evidenceClass")),
            **_unexplained(),
        )
        recorded = theirs.get("invocation")
        self.note(
            "D7.1 invocation",
            invocation.get("outcome") == recorded if theirs.get("invocationRecorded") else None,
            cellKey=key,
            where="execution",
            apconform=str(invocation.get("outcome")),
            reference=str(recorded),
            **_unexplained(),
        )
        self.figure(key, ours, theirs)
        self.provenance(key, ours, theirs)
        self.operations(key, ours, theirs)
        self.transcription(key, ours, theirs)

    def figure(self, key: str, ours: dict[str, Any], theirs: ReferenceVerdict) -> None:
        figure = ours.get("figure") or {}
        recorded = theirs.get("figureOutcome")
        self.note(
            "figure outcome",
            None if recorded is None else figure.get("outcome") == recorded,
            cellKey=key,
            where="execution",
            apconform=str(figure.get("outcome")),
            reference=str(recorded),
            **_unexplained(),
        )
        if figure.get("outcome") == "AUTO-MATCH" and recorded == "AUTO-MATCH":
            mine, other = _decimal(figure.get("released")), _decimal(theirs.get("releasedFigure"))
            self.note(
                "released figure",
                mine is not None and other is not None and mine == other,
                cellKey=key,
                where="execution",
                apconform=str(figure.get("released")),
                reference=str(theirs.get("releasedFigure")),
                **_unexplained(),
            )

    def provenance(self, key: str, ours: dict[str, Any], theirs: ReferenceVerdict) -> None:
        calls = theirs["calls"] if theirs.get("callsRecorded") else None
        mine = [i for i in ours["provenance"]["invocations"] if i.get("expression") is not None]
        if calls is None:
            for invocation in mine:
                self.tallies["D7.2(a) call"].not_recorded += 1
                self.tallies["D7.2(a) operand"].not_recorded += len(invocation["operands"])
            return
        propagated: set[str] = set()
        for index, invocation in enumerate(mine):
            number = invocation["call"]
            if index >= len(calls):
                self.note(
                    "D7.2(a) call",
                    False,
                    cellKey=key,
                    where=f"call {number}",
                    apconform=invocation["outcome"],
                    reference="no entry",
                    **_unexplained(),
                )
                continue
            other = calls[index]
            if other.get("outcome") is None:  # a damaged entry: nothing recorded to compare
                self.tallies["D7.2(a) call"].not_recorded += 1
                self.tallies["D7.2(a) operand"].not_recorded += len(invocation["operands"])
                continue
            causes = self.operands(key, number, invocation, other, propagated)
            agree = _grounded(invocation["outcome"]) == _grounded(other.get("outcome"))
            classification = causes[0] if causes else _unexplained()
            self.note(
                "D7.2(a) call",
                agree,
                cellKey=key,
                where=f"call {number}",
                apconform=invocation["outcome"],
                reference=str(other.get("outcome")),
                **classification,
            )
            if not agree and causes:
                propagated.add(str(causes[0]["cites"]))

    def operands(
        self,
        key: str,
        number: str,
        invocation: InvocationJson,
        other: ReferenceCall,
        propagated: set[str],
    ) -> list[Classification]:
        causes: list[Classification] = []
        theirs = list(other.get("operands") or [])
        mine = list(invocation["operands"])
        precision = list(invocation.get("precisionArguments") or [])
        position = 0
        for operand in theirs:
            value = _decimal(operand.get("value"))
            match = next(
                (j for j in range(position, len(mine)) if _decimal(mine[j]["literal"]) == value),
                None,
            )
            where = f"call {number} operand {operand.get('literal')}"
            if match is None:
                literal = operand.get("literal")
                if any(_decimal(p) == value for p in precision):
                    cause = _classified(
                        DEFECT,
                        "defect 31",
                        "the reference counts the places argument of round() as an operand; "
                        "AP1-OPD-1 does not",
                    )
                else:
                    cause = _unexplained()
                self.note(
                    "D7.2(a) operand",
                    False,
                    cellKey=key,
                    where=where,
                    apconform="not an operand",
                    reference=f"{literal} at step {operand.get('step')}",
                    **cause,
                )
                causes.append(cause)
                continue
            position = match + 1
            ours_operand = mine[match]
            step, kind = _REFERENCE_KIND.get(str(operand.get("resolution")), ("?", "?"))
            agree = ours_operand["step"] == step and (
                kind == ours_operand["resolution"]
                or (kind == "ORIGINATED" and ours_operand["step"] == "v")
            )
            cause = _classified(DEFECT, "", "")
            if not agree:
                cause = self.operand_cause(operand, ours_operand, propagated)
                causes.append(cause)
            self.note(
                "D7.2(a) operand",
                agree,
                cellKey=key,
                where=where,
                apconform=f"{ours_operand['resolution']} (step {ours_operand['step']})",
                reference=f"{operand.get('resolution')} (step {operand.get('step')})",
                **cause,
            )
        return causes

    def operand_cause(
        self, theirs: ReferenceOperand, ours: OperandJson, propagated: set[str]
    ) -> Classification:
        resolution = theirs.get("resolution")
        if resolution == "constant_magnitude" and ours["step"] == "v":
            return _classified(
                DEFECT,
                "defect 24",
                "the reference grounds the negation of a declared constant at step 1 "
                "(constant magnitude); the kit keeps it at step (v) "
                f"({ours['resolution']}, AP1-OPD-2, AP1-OPD-3)",
            )
        if (
            resolution == "computed_in_session"
            and ours["resolution"] == "UNGROUNDED-EARLIER-RETURN"
            and propagated
        ):
            first = sorted(propagated)[0]
            return _classified(
                DEFECT,
                first,
                f"the earlier call this operand returns from differs under {first}; step (iv) "
                "carries that call's outcome (AP1-OPD-2)",
            )
        return _unexplained()

    def operations(self, key: str, ours: dict[str, Any], theirs: ReferenceVerdict) -> None:
        recorded = theirs["operations"] if theirs.get("operationsRecorded") else None
        mine = list(ours["operation"]["calls"])
        invocations = {i["call"]: i for i in ours["provenance"]["invocations"]}
        mine = [c for c in mine if invocations.get(c["call"], {}).get("expression") is not None]
        if recorded is None:
            self.tallies["D7.2(b) call"].not_recorded += len(mine)
            return
        for index, call in enumerate(mine):
            other = recorded[index] if index < len(recorded) else None
            where = f"call {call['call']}"
            if other is None:
                self.note(
                    "D7.2(b) call",
                    False,
                    cellKey=key,
                    where=where,
                    apconform=call["outcome"],
                    reference="no entry",
                    **_unexplained(),
                )
                continue
            agree = call["outcome"] == other.get("outcome")
            cause = _classified(DEFECT, "", "")
            if not agree:
                cause = self.operation_cause(call, other, ours)
            self.note(
                "D7.2(b) call",
                agree,
                cellKey=key,
                where=where,
                apconform=f"{call['outcome']} ({call.get('matchedAgainst')})",
                reference=f"{other.get('outcome')} ({other.get('matchedAgainst')})",
                **cause,
            )

    def operation_cause(
        self, call: CallOperationJson, other: ReferenceOperation, ours: dict[str, Any]
    ) -> Classification:
        mine, theirs = call["outcome"], other.get("outcome")
        matched = str(call.get("matchedAgainst") or "")
        if mine == "OPERATION-CORRECT" and theirs == "WRONG-OPERATION":
            if matched.startswith("operand of call "):
                later = matched.rsplit(" ", 1)[1]
                value = _decimal(call.get("value"))
                negative = any(
                    o["literal"].startswith("-") and _decimal(o["literal"]) == value
                    for i in ours["provenance"]["invocations"]
                    if i["call"] == later
                    for o in i["operands"]
                )
                if negative:
                    return _classified(
                        DEFECT,
                        "defect 32",
                        "the reference's session reclassification ignores a unary minus, so a "
                        "step returning -x is not rescued by a later (-x); AP1-OPN-2 counts the "
                        "sign",
                    )
                if self.august:
                    return _classified(
                        DEFECT,
                        "E5",
                        "the August reference scored each call alone; AP1-OPN-2 reclassifies "
                        "the session",
                    )
            if call.get("returnsAsEvaluated"):
                return _classified(
                    RULE,
                    "AP1-OPN-5",
                    "an earlier return written as binary-float text is read as that call's value",
                )
        if mine == "WRONG-OPERATION" and theirs == "OPERATION-CORRECT":
            value = _decimal(call.get("value"))
            item = self.prepared.items.get(ours["itemId"])
            tolerance = self.prepared.rules.tolerance
            if value is not None and item is not None:
                near = [label for label, target in item.targets if abs(value - target) <= tolerance]
                if near:
                    return _classified(
                        RULE,
                        "AP1-OPN-1",
                        f"the value is within the answer tolerance of {near[0]} but not equal "
                        "to it; the reference compares operations within the answer tolerance, "
                        "AP1-OPN-1 never does",
                    )
        if theirs == "OPERATION-UNOBSERVABLE" or mine == "OPERATION-UNOBSERVABLE":
            return _classified(
                RULE,
                "AP1-OPN-1",
                "the two evaluators support different functions and names; AP1-OPN-1 evaluates "
                "everything the calculator executes",
            )
        return _unexplained()

    def transcription(self, key: str, ours: dict[str, Any], theirs: ReferenceVerdict) -> None:
        recorded = theirs.get("transcription")
        mine = (ours.get("transcription") or {}).get("outcome")
        if recorded is None:
            self.tallies["D7.3 transcription"].not_recorded += 1
            return
        self.note(
            "D7.3 transcription",
            mine == recorded,
            cellKey=key,
            where="execution",
            apconform=str(mine),
            reference=str(recorded),
            **_unexplained(),
        )


def _grounded(outcome: object) -> bool | None:
    if outcome == "OPERANDS-GROUNDED":
        return True
    if outcome in ("OPERAND-ORIGINATED", "OPERANDS-ORIGINATED"):
        return False
    return None


def _classified(kind: str, cites: str, explanation: str) -> Classification:
    return {"classification": kind, "cites": cites, "explanation": explanation}


def _unexplained() -> Classification:
    return _classified(UNEXPLAINED, "", "no documented defect or rule of the kit explains it")


def derived_transcription(
    theirs: ReferenceVerdict, returns: list[Decimal], places: int
) -> str | None:
    """The reference's documented D7.3 rule, for runs whose summary is not at hand.

    The last return against the released figure, both quantised half-even to
    the declared places when they differ, only for an automatically matched
    figure; otherwise unobservable.
    """
    released = _decimal(theirs.get("releasedFigure"))
    if theirs.get("figureOutcome") is None:
        return None
    if theirs.get("figureOutcome") != "AUTO-MATCH" or released is None or not returns:
        return "UNOBSERVABLE"
    last = returns[-1]
    same = released == last or quantise(released, places, "ROUND_HALF_EVEN") == quantise(
        last, places, "ROUND_HALF_EVEN"
    )
    return "TRANSCRIBED-EXACT" if same else "TRANSCRIBED-ALTERED"


def _with_transcription(
    theirs: ReferenceVerdict, returns: list[Decimal], places: int
) -> tuple[ReferenceVerdict, bool]:
    """The verdict with the reference's D7.3 rule applied when the record holds no D7.3 verdict."""
    if theirs.get("transcription") is not None:
        return theirs, False
    derived = theirs.copy()
    derived["transcription"] = derived_transcription(theirs, returns, places)
    return derived, True


def _dimension_rows(tallies: dict[str, _Tally]) -> list[ComparisonDimension]:
    return [
        {
            "dimension": name,
            "compared": str(t.compared),
            "agree": str(t.agree),
            "disagree": str(t.compared - t.agree),
            "notRecorded": str(t.not_recorded),
        }
        for name, t in tallies.items()
    ]


def compare_execution(
    prepared: ScoringInputs,
    ours: dict[str, Any],
    theirs: ReferenceVerdict,
    returns: list[Decimal],
    *,
    august: bool = False,
) -> dict[str, Any]:
    """One execution's comparison: the tallies per dimension and every disagreement."""
    comparer = _Comparer(prepared, august)
    theirs, _ = _with_transcription(theirs, returns, prepared.rules.places)
    comparer.execution(ours, theirs)
    return {"dimensions": _dimension_rows(comparer.tallies), "disagreements": comparer.rows}


def compare_reference(run_dir: Path) -> Comparison:
    """Compare an imported run's re-scored verdicts with the reference's recorded ones."""
    record_path = run_dir / IMPORT_FILE
    if not record_path.is_file() or not (run_dir / VERDICTS_FILE).is_file():
        raise ApconformError(NOT_IMPORTED, f"{run_dir} has no {IMPORT_FILE} and {VERDICTS_FILE}")
    record = load_path(record_path)
    august = not record.get("source", {}).get("runnerVersionTag")
    prepared, scores, returns = _scores(run_dir)
    comparer = _Comparer(prepared, august)
    derived = 0
    executions = 0
    for theirs in _verdicts(run_dir):
        ours = scores.get(theirs["cellKey"])
        if ours is None:
            raise ApconformError(
                NOT_IMPORTED,
                f"execution {theirs['cellKey']} has a reference verdict but no scored record",
            )
        theirs, was_derived = _with_transcription(
            theirs, returns.get(theirs["cellKey"], []), prepared.rules.places
        )
        derived += was_derived
        comparer.execution(ours, theirs)
        executions += 1
    counts = Counter(row["classification"] for row in comparer.rows)
    document: ReferenceComparison = {
        "schemaVersion": "apconform-ap1-reference-comparison/1",
        "instrument": record.get("source", {}).get("instrument"),
        "referenceSealHash": record.get("publishedHashes", {}).get("sealHash"),
        "executions": str(executions),
        "transcriptionSource": "recorded"
        if derived == 0
        else ("derived" if derived == executions else "mixed"),
        "dimensions": _dimension_rows(comparer.tallies),
        "classifications": [
            {"classification": kind, "count": str(counts.get(kind, 0))}
            for kind in (DEFECT, RULE, UNEXPLAINED)
        ],
        "disagreements": comparer.rows,
    }
    validate_document(Ap1ReferenceComparison, document, what="reference comparison")
    return Comparison(document, comparer.tallies)


def render_comparison(document: ReferenceComparison) -> str:
    """The comparison as Markdown: the agreement table, then every disagreement."""
    lines = [
        "# apconform beside the reference instrument",
        "",
        f"{document['executions']} executions of the run sealed by {document['instrument']} as "
        f"{document['referenceSealHash']}. D7.3 verdicts of the reference: "
        f"{document['transcriptionSource']}.",
        "",
        "| Dimension | Compared | Agree | Disagree | Not recorded |",
        "|---|---|---|---|---|",
    ]
    for row in document["dimensions"]:
        lines.append(
            f"| {row['dimension']} | {row['compared']} | {row['agree']} | {row['disagree']} | "
            f"{row['notRecorded']} |"
        )
    lines += ["", "| Classification | Disagreements |", "|---|---|"]
    for count in document["classifications"]:
        lines.append(f"| {count['classification']} | {count['count']} |")
    lines += ["", "## Disagreements", ""]
    if not document["disagreements"]:
        lines.append("None.")
    for entry in document["disagreements"]:
        flag = "**UNEXPLAINED** " if entry["classification"] == UNEXPLAINED else ""
        cites = f" [{entry['cites']}]" if entry["cites"] else ""
        lines.append(
            f"- {flag}{entry['cellKey']} {entry['dimension']}, {entry['where']}: apconform "
            f"{entry['apconform']}, reference {entry['reference']}; {entry['classification']}"
            f"{cites}: {entry['explanation']}"
        )
    return "\n".join(lines) + "\n"
