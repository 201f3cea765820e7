"""The layout of the D7.2, D7.3, answer and adjudication sections of the report."""

from __future__ import annotations

from typing import Any

from apconform.ap1.scoring.layout_blocks import LIST_LIMIT, Section
from apconform.ap1.scoring.layout_blocks import counts_text as _c
from apconform.ap1.scoring.layout_blocks import optional as _n
from apconform.ap1.scoring.layout_blocks import rate_text as _r

__all__ = ["answers", "operations", "provenance", "transcription"]


def provenance(doc: dict[str, Any]) -> Section:
    """D7.2(a), with the operand chart and the originated-operand audit."""
    p = doc["operandProvenance"]
    s = Section("D7.2(a) operand provenance (evidence class EV-2)")
    s.p(
        f"Invocations: {_c(p['invocations'])}; originated among observable: "
        f"{_r(p['originatedRate'])}. {p['unobservableStatement']}. "
        f"Executions: {_c(p['executions'])}."
    )
    s.chart("operands", {"steps": p["operandSteps"]})
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
        [
            [a["cellKey"], a["call"], a["operand"], a["resolution"], a["expression"], a["detail"]]
            for a in p["audit"]
        ],
        limit=LIST_LIMIT,
    )
    return s


def operations(doc: dict[str, Any]) -> Section:
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


def transcription(doc: dict[str, Any]) -> list[Section]:
    """D7.3 and release coverage, with every altered and ungoverned release."""
    t, c = doc["transcription"], doc["releaseCoverage"]
    s = Section("D7.3 transcription (evidence class EV-2)")
    s.p(f"Outcomes: {_c(t['outcomes'])}; altered: {_r(t['alteredRate'])}.")
    s.table(
        ("Cell", "Kind", "Released", "Last return", "Difference"),
        [
            [a["cellKey"], a["kind"], a["released"], a["lastReturn"], a["difference"]]
            for a in t["altered"]
        ],
        limit=LIST_LIMIT,
    )
    r = Section("Release coverage (evidence class EV-2)")
    r.p(f"Outcomes: {_c(c['outcomes'])}; partially governed: {_r(c['partialRate'])}.")
    r.table(
        ("Cell", "Figure", "Count", "Finding"),
        [[u["cellKey"], u["figure"], u["count"], u["finding"]] for u in c["ungoverned"]],
        limit=LIST_LIMIT,
    )
    return [s, r]


def answers(doc: dict[str, Any]) -> list[Section]:
    """Answer-level outcomes per item (with the chart) and the human adjudication."""
    a, adj = doc["answers"], doc["adjudication"]
    s = Section("Answer-level outcomes (AP-1 §6.8)")
    s.p(
        f"Decided automatically or as statuses: {_c(a['outcomes'])}. Routed to two human "
        f"scorers: {a['routedToAdjudication']}."
    )
    s.chart("answers", {"rows": a["perItem"]})
    s.table(("Item", "Outcomes"), [[i["itemId"], _c(i["outcomes"])] for i in a["perItem"]])
    h = Section("Human adjudication")
    h.p(f"{adj['routed']} row(s) routed ({_c(adj['routedByDimension'])}). {adj['statement']}")
    if adj["imported"]:
        h.p(
            f"Agreed answer outcomes: {_c(adj['answerOutcomes'])}; agreed accuracy: "
            f"{_r(adj['accuracy'])}; unresolved rows: {adj['unresolved']}; "
            f"stale rows: {adj['stale']}."
        )
        h.table(
            ("Measure", "n", "Agreed", "Raw agreement", "Cohen's kappa", "Caveat", "Disagreements"),
            [
                [
                    g["measure"],
                    g["n"],
                    g["agreed"],
                    _n(g["rawAgreement"]),
                    _n(g["kappa"]) or "undefined",
                    _n(g["caveat"]),
                    str(len(g["disagreements"])),
                ]
                for g in adj["agreement"]
            ],
        )
    else:
        h.p(
            "No adjudication has been imported: the sheets are in adjudication/ beside this report."
        )
    return [s, h]
