"""The report's reading order, shared by the Markdown and the HTML renderings.

Both renderings are built from this one layout of the score report document,
so they cannot disagree: sections of paragraphs, tables, pictures and code
blocks, in AP-1 order. Long lists are cut in the renderings (the JSON keeps
every row) and say how many rows they leave out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from apconform.ap1.scoring.report.charts import answers_chart, invocation_chart, operands_chart
from apconform.ap1.scoring.report.outline import LIST_LIMIT as _LIST_LIMIT
from apconform.ap1.scoring.report.outline import Cell, CutRows, Formula, Section, StreamedRows
from apconform.ap1.scoring.report.outline import counts_text as _c
from apconform.ap1.scoring.report.outline import optional as _n
from apconform.ap1.scoring.report.outline import rate_text as _r
from apconform.ap1.scoring.report.score_report import (
    Ap1ScoreReport,
    DimensionCell,
    InvocationSection,
)
from apconform.core.spooled import RowStream

__all__ = ["layout"]


_Row = TypeVar("_Row")


def _listing(
    rows: list[_Row] | RowStream, convert: Callable[[_Row], list[Cell]]
) -> Sequence[list[Cell]]:
    """A cut table's rows: all of a list, or the first ones of rows spooled to disk."""
    if isinstance(rows, list):
        return [convert(row) for row in rows]
    return CutRows([convert(row) for row in rows.head(_LIST_LIMIT)], len(rows))


def _streamed(
    rows: list[_Row] | RowStream, convert: Callable[[_Row], list[Cell]]
) -> Sequence[list[Cell]]:
    """A table's rows: all of a list, or rows spooled to disk read as the rendering needs them."""
    if isinstance(rows, RowStream):
        return StreamedRows(rows, convert)
    return [convert(row) for row in rows]


def _work_for_people(doc: Ap1ScoreReport) -> str:
    """The three counts of work sent to people, each defined once, and how they relate."""
    adj = doc["adjudication"]
    rows = _c(adj["routedByDimension"])
    return (
        "Work for people, three counts that answer different questions. "
        f"D1 figures not matched automatically: {doc['accuracy']['adjudicated']} (their "
        "figure-identification outcome is ADJUDICATE-*; they are left out of the D1 rate). "
        f"Answers routed to people (§6.8): {doc['answers']['routedToAdjudication']} (those "
        "figures, plus every answer whose response could not be read or whose figure was "
        "incorrect, and every correct answer the record does not show computed by the "
        "calculator from grounded operands and transcribed exactly). "
        f"Adjudication sheet rows: {adj['routed']} (one D1 row per routed answer, plus one "
        f"row per answer to an item with an adversarial or conflict class; by dimension: {rows})."
    )


def _head(doc: Ap1ScoreReport) -> list[Section]:
    run, scorer, integrity = doc["run"], doc["scorer"], doc["integrity"]
    top = Section("AP-1 score report")
    top.p(doc["profileStatement"])
    profile = Section("The profile")
    profile.p("One row per dimension; no row is a pass or a fail.")
    profile.table(
        ("Dimension", "Name", "Claimed", "Status", "n", "Evidence class", "Result or reason"),
        [
            [
                d["dimension"],
                d["name"],
                "yes" if d["claimed"] else "no",
                d["status"],
                _n(d["n"]),
                _n(d["evidenceClass"]) or "n/a",
                " ".join(t for t in (d["summary"] or d["reason"], _adjudicated(d)) if t),
            ]
            for d in doc["dimensions"]
        ],
    )
    unclaimed = [d["dimension"] for d in doc["dimensions"] if not d["claimed"]]
    if unclaimed:
        profile.p(
            "Not claimed by this run: "
            + ", ".join(unclaimed)
            + ". Their rows are shown for completeness; whatever a row says, the run makes no "
            "claim about that dimension (see Dimensions claimed under The run)."
        )
    profile.p(_work_for_people(doc))
    facts = Section("The run")
    facts.table(
        ("", ""),
        [
            ["Model", run["model"]],
            ["Endpoint", run["endpointUrl"]],
            ["AP-1 version", f"{run['ap1Version']} (DOI {run['ap1VersionDoi']})"],
            ["Seal", _n(run["sealHash"]) or "no seal supplied"],
            ["Dimensions claimed", ", ".join(run["dimensionsClaimed"])],
            [
                "Scorer",
                f"{scorer['name']} {scorer['version']}, rules {scorer['rulesVersion']}, "
                f"source {scorer['sourceSha256']}",
            ],
        ],
    )
    check = Section("Integrity of what was scored")
    check.p(integrity["statement"])
    check.table(
        ("Input", "Sealed SHA-256", "Actual SHA-256", "Matches"),
        [
            [i["name"], _n(i["sealedSha256"]), i["actualSha256"], _yes_no(i["matches"])]
            for i in integrity["inputs"]
        ],
    )
    transcript, plan = integrity["transcript"], integrity["plan"]
    check.p(
        f"Transcript: {transcript['records']} records, {transcript['executions']} executions, "
        f"chain {'verifies' if transcript['verified'] else 'DOES NOT VERIFY'}. Plan: "
        f"{plan['recorded']} of {plan['planned']} cells recorded, {plan['missing']} missing, "
        f"{plan['unplanned']} unplanned, run {'finished' if plan['finished'] else 'not finished'}."
        f" The transcript scored ends in record {transcript['records']} with hash "
        f"{transcript['headSha256']}."
    )
    if plan["deferralCauses"]:
        causes = "; ".join(f"{c['cause']} ({c['count']})" for c in plan["deferralCauses"])
        check.p(
            f"Executions that failed at the endpoint were deferred and not scored: "
            f"{plan['retried']} cell(s) were retried and recorded, {plan['deferred']} still "
            f"wait to be executed again. Causes: {causes}."
        )
    if transcript["problems"]:
        check.table(
            ("Line", "Seq", "Kind", "Problem"),
            [[p["line"], _n(p["seq"]), p["kind"], p["message"]] for p in transcript["problems"]],
            limit=_LIST_LIMIT,
        )
    cells = Section("Executions and non-outcome cells")
    cells.p("Statuses: " + ", ".join(f"{s['status']} {s['count']}" for s in doc["statusCounts"]))
    cells.table(
        ("Cell", "Status", "Reason"),
        _streamed(doc["nonOutcomeCells"], lambda c: [c["cellKey"], c["status"], c["reason"]]),
        limit=_LIST_LIMIT,
        group=(1, 2),
        noun="cells",
    )
    if doc["unreadableRecords"]:
        cells.table(
            ("Record", "Why it was not scored"),
            [[u["record"], u["message"]] for u in doc["unreadableRecords"]],
            limit=_LIST_LIMIT,
        )
    return [top, profile, facts, check, cells]


def _accuracy(doc: Ap1ScoreReport) -> Section:
    a = doc["accuracy"]
    s = Section("D1 accuracy")
    s.p(
        f"Auto-scored: {a['autoScored']}; correct {_r(a['rate'])}. Figures not matched "
        f"automatically (not in the rate; see the profile's work for people): {a['adjudicated']}; "
        f"no figure: {a['noFigure']}; "
        f"unmeasurable: {a['unmeasurable']}. "
        f"Equal to the expected value at the declared precision: {a['exactAtDeclaredPrecision']}."
    )
    s.p("Figure identification: " + _c(a["figureOutcomes"]))
    s.table(
        ("Condition", "Correct", "Incorrect", "Rate"),
        [[c["condition"], c["correct"], c["incorrect"], _r(c["rate"])] for c in a["byCondition"]],
    )
    s.table(
        ("Category", "Items", "Correct", "Incorrect", "Rate", "Note"),
        [
            [c["category"], c["items"], c["correct"], c["incorrect"], _r(c["rate"]), c["note"]]
            for c in a["perCategory"]
        ],
    )
    s.table(
        ("Item", "Correct", "Incorrect", "No figure", "Adjudicated", "Rate"),
        [
            [
                i["itemId"],
                i["correct"],
                i["incorrect"],
                i["noFigure"],
                i["adjudicated"],
                _r(i["rate"]),
            ]
            for i in a["perItem"]
        ],
    )
    return s


def _reproducibility(doc: Ap1ScoreReport) -> Section:
    d = doc["reproducibility"]
    s = Section("D2 reproducibility")
    s.p(
        f"Mechanism classes (item x condition x surface): {_c(d['classes'])}. AP-1 D2 needs "
        f"{d['minimumRuns']} successful runs per item. {d['structuralNote']}"
    )
    if d["cap"]:
        s.p(d["cap"])
    s.table(
        ("Item", "Condition", "Surface", "Runs", "Distinct", "Class", "Why"),
        [
            [
                c["itemId"],
                c["condition"],
                c["surface"],
                c["successfulRuns"],
                _n(c["distinctValues"]),
                c["mechanismClass"],
                c["reason"],
            ]
            for c in d["cells"]
        ],
        limit=_LIST_LIMIT,
        group=(5, 6),
        key=(0, 1, 2),
        noun="cells",
    )
    s.p("Parameter echo: " + _c(d["parameterEcho"]))
    s.table(
        ("Parameter", "Finding", "Requested", "Echoed", "Executions"),
        [
            [f["parameter"], f["finding"], f["requested"], _n(f["echoed"]), f["count"]]
            for f in d["echoFindings"]
        ],
    )
    return s


def _yes_no(value: bool | None) -> Cell:
    return "" if value is None else value


def _drop_ratio(v: InvocationSection) -> Formula:
    """The drop ratio as a formula: its definition, its value and the rates it is made of."""
    base, removed = v["byCondition"]
    ratio = v["dropRatio"]
    return {
        "name": "Drop ratio (D7.1b)",
        "expression": "(I_base - I_removed) / I_base",
        "value": ratio["value"],
        "where": [
            ("I_base", f"{base['invoked']}/{base['ev2']}"),
            ("I_removed", f"{removed['invoked']}/{removed['ev2']}"),
        ],
        "note": "EV-2 records only"
        if ratio["value"] is not None
        else "the base invocation rate is zero or a condition has no EV-2 observation",
    }


def _invocation(doc: Ap1ScoreReport) -> Section:
    v = doc["invocation"]
    s = Section("D7.1 invocation (evidence class EV-2)")
    s.table(
        (
            "Condition",
            "EV-2 n",
            "Not invoked",
            "EV-1",
            "EV-0",
            "Unmeasured",
            "VOID",
            "Failure rate",
        ),
        [
            [
                c["condition"],
                c["ev2"],
                c["notInvoked"],
                c["ev1"],
                c["ev0"],
                c["unmeasured"],
                c["void"],
                _r(c["failureRate"]),
            ]
            for c in v["byCondition"]
        ],
    )
    s.formula(
        f"Drop ratio (D7.1b): {_n(v['dropRatio']['value']) or 'UNDEFINED'} - "
        f"{v['dropRatio']['statement']}",
        _drop_ratio(v),
    )
    s.p(
        f"{v['heldConstant']} Self-reports in prose: {v['selfReports']} (recorded only). "
        f"Attestations: {v['attestations']} (EV-1). {v['ev3Statement']}"
    )
    s.chart(invocation_chart(v["perItem"]))
    s.table(
        ("Item", "Condition", "EV-2 n", "Not invoked", "EV-0", "Failure rate"),
        [
            [i["itemId"], i["condition"], i["ev2"], i["notInvoked"], i["ev0"], _r(i["failureRate"])]
            for i in v["perItem"]
        ],
    )
    return s


def _provenance(doc: Ap1ScoreReport) -> Section:
    """D7.2(a), with the operand chart and the originated-operand audit."""
    p = doc["operandProvenance"]
    s = Section("D7.2(a) operand provenance (evidence class EV-2)")
    s.p(
        f"Invocations: {_c(p['invocations'])}; originated among observable: "
        f"{_r(p['originatedRate'])}. {p['unobservableStatement']}. "
        f"Executions: {_c(p['executions'])}."
    )
    s.chart(operands_chart(p["operandSteps"]))
    s.table(
        ("Step", "Resolution", "Grounded", "Operands"),
        [
            [o["step"], o["resolution"], "yes" if o["grounded"] else "no", o["count"]]
            for o in p["operandSteps"]
        ],
    )
    s.p("Findings: " + _c(p["findings"]))
    s.table(
        ("Item", "Invocations", "Originated rate", "Executions"),
        [
            [i["itemId"], _c(i["invocations"]), _r(i["originatedRate"]), _c(i["executions"])]
            for i in p["perItem"]
        ],
    )
    s.p("Originated-operand audit: every operand that reached step (v).")
    s.table(
        ("Cell", "Call", "Operand", "Kind", "Expression", "Detail"),
        _listing(
            p["audit"],
            lambda a: [
                a["cellKey"],
                a["call"],
                a["operand"],
                a["resolution"],
                a["expression"],
                a["detail"],
            ],
        ),
        limit=_LIST_LIMIT,
    )
    return s


def _operations(doc: Ap1ScoreReport) -> Section:
    """D7.2(b), per call and per session, with the split of wrong operations."""
    o = doc["operationCorrectness"]
    split = o["wrongSplit"]
    s = Section("D7.2(b) operation correctness (evidence class EV-2)")
    s.p(
        f"Calls: {_c(o['calls'])}; wrong: {_r(o['wrongRate'])}. Before the session "
        f"reclassification: {_c(o['perCallOutcomes'])}; reclassified: {o['reclassified']}. "
        f"Wrong operations split: route divergence {split['routeDivergence']}, wrong "
        f"{split['wrong']}, undetermined {split['undetermined']}. Evaluations differing from "
        f"the calculator's return: {o['toolReturnDisagreements']}."
    )
    s.table(
        ("Item", "Calls", "Wrong rate", "Reclassified"),
        [
            [i["itemId"], _c(i["calls"]), _r(i["wrongRate"]), i["reclassified"]]
            for i in o["perItem"]
        ],
    )
    return s


def _transcription(doc: Ap1ScoreReport) -> list[Section]:
    """D7.3 and release coverage, with every altered and ungoverned release."""
    t, c = doc["transcription"], doc["releaseCoverage"]
    s = Section("D7.3 transcription (evidence class EV-2)")
    s.p(f"Outcomes: {_c(t['outcomes'])}; altered: {_r(t['alteredRate'])}.")
    s.table(
        ("Cell", "Kind", "Released", "Last return", "Difference"),
        _listing(
            t["altered"],
            lambda a: [a["cellKey"], a["kind"], a["released"], a["lastReturn"], a["difference"]],
        ),
        limit=_LIST_LIMIT,
    )
    r = Section("Release coverage (evidence class EV-2)")
    r.p(f"Outcomes: {_c(c['outcomes'])}; partially governed: {_r(c['partialRate'])}.")
    r.table(
        ("Cell", "Figure", "Count", "Finding"),
        _listing(c["ungoverned"], lambda u: [u["cellKey"], u["figure"], u["count"], u["finding"]]),
        limit=_LIST_LIMIT,
    )
    return [s, r]


def _adjudicated(cell: DimensionCell) -> str:
    """A dimension's adjudication line (who, when, kappa), when people adjudicated it."""
    adjudication = cell.get("adjudication")
    return "" if adjudication is None else str(adjudication["statement"])


def _answers(doc: Ap1ScoreReport) -> list[Section]:
    """Answer-level outcomes per item (with the chart) and the human adjudication."""
    a, adj = doc["answers"], doc["adjudication"]
    s = Section("Answer-level outcomes (AP-1 §6.8)")
    s.p(
        f"Decided automatically or as statuses: {_c(a['outcomes'])}. Answers routed to people "
        f"(see the profile's work for people): {a['routedToAdjudication']}."
    )
    s.chart(answers_chart(a["perItem"]))
    s.table(("Item", "Outcomes"), [[i["itemId"], _c(i["outcomes"])] for i in a["perItem"]])
    h = Section("Human adjudication")
    h.p(
        f"Adjudication sheet rows: {adj['routed']} ({_c(adj['routedByDimension'])}; see the "
        f"profile's work for people). {adj['statement']}"
    )
    if adj["imported"]:
        scorers = "; ".join(
            f"scorer {s['scorer']}: {s['name']} ({s['marked']} marked, {s['partlyMarked']} partly, "
            f"{s['unmarked']} unmarked)"
            for s in adj["scorers"]
        )
        h.p(
            f"Adjudicated by {scorers}. Merged {adj['completed'] or '(time not stated)'}"
            + (
                ", accepting rows left unmarked or partly marked"
                if adj["acceptedIncomplete"]
                else ""
            )
            + f". Disagreements settled in reconciliation: {adj['settled']}"
            + (f", by {', '.join(adj['settledBy'])}" if adj["settledBy"] else "")
            + "."
        )
        h.p(
            f"Agreed answer outcomes: {_c(adj['answerOutcomes'])}; agreed accuracy: "
            f"{_r(adj['accuracy'])}; unresolved rows: {adj['unresolved']}; "
            f"stale rows: {adj['stale']}."
        )
        h.table(
            (
                "Measure",
                "n",
                "Agreed",
                "Raw agreement",
                "Cohen's kappa",
                "95% interval",
                "Caveat",
                "Disagreements",
                "Settled",
            ),
            [
                [
                    g["measure"],
                    g["n"],
                    g["agreed"],
                    _n(g["rawAgreement"]),
                    _n(g["kappa"]) or "undefined",
                    (
                        f"{g['kappaInterval']['lower']} to {g['kappaInterval']['upper']}"
                        if g["kappaInterval"]
                        else "none"
                    ),
                    _n(g["caveat"]),
                    str(len(g["disagreements"])),
                    str(sum(1 for d in g["disagreements"] if d["settled"])),
                ]
                for g in adj["agreement"]
            ],
        )
    else:
        h.p(
            "No adjudication has been imported: the sheets are in adjudication/ beside this report."
        )
    return [s, h]


def layout(doc: Ap1ScoreReport) -> list[Section]:
    """Every section of the report, in reading order."""
    sections = _head(doc)
    sections += [
        _accuracy(doc),
        _reproducibility(doc),
        _invocation(doc),
        _provenance(doc),
        _operations(doc),
    ]
    sections += _transcription(doc)
    sections += _answers(doc)
    tail = Section("Unmeasured dimensions")
    tail.table(
        ("Dimension", "Name", "Why it is not measured"),
        [[u["dimension"], u["name"], u["reason"]] for u in doc["unmeasured"]],
    )
    limits = Section("Limitations")
    for text in doc["limitations"]:
        limits.p(text)
    seal = Section("Seal record")
    seal.code(
        json.dumps(doc["seal"], indent=2, ensure_ascii=False) if doc["seal"] else "no seal supplied"
    )
    config = Section("Resolved configuration")
    config.code(json.dumps(doc["configuration"], indent=2, ensure_ascii=False))
    return [*sections, tail, limits, seal, config]
