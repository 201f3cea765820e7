"""The report's reading order, shared by the Markdown and the HTML renderings.

Both renderings are built from this one layout of the score report document,
so they cannot disagree: sections of paragraphs, tables, pictures and code
blocks, in AP-1 order. Long lists are cut in the renderings (the JSON keeps
every row) and say how many rows they leave out.
"""

from __future__ import annotations

import json
from typing import Any

from apconform.ap1.scoring.layout_blocks import LIST_LIMIT as _LIST_LIMIT
from apconform.ap1.scoring.layout_blocks import Section
from apconform.ap1.scoring.layout_blocks import counts_text as _c
from apconform.ap1.scoring.layout_blocks import optional as _n
from apconform.ap1.scoring.layout_blocks import rate_text as _r
from apconform.ap1.scoring.layout_d7 import answers, operations, provenance, transcription

__all__ = ["layout"]


def _head(doc: dict[str, Any]) -> list[Section]:
    run, scorer, integrity = doc["run"], doc["scorer"], doc["integrity"]
    top = Section("AP-1 score report")
    top.p(doc["profileStatement"])
    top.table(
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
            [i["name"], _n(i["sealedSha256"]), i["actualSha256"], _n(i["matches"])]
            for i in integrity["inputs"]
        ],
    )
    transcript, plan = integrity["transcript"], integrity["plan"]
    check.p(
        f"Transcript: {transcript['records']} records, {transcript['executions']} executions, "
        f"chain {'verifies' if transcript['verified'] else 'DOES NOT VERIFY'}. Plan: "
        f"{plan['recorded']} of {plan['planned']} cells recorded, {plan['missing']} missing, "
        f"{plan['unplanned']} unplanned, run {'finished' if plan['finished'] else 'not finished'}."
    )
    if transcript["problems"]:
        check.table(
            ("Line", "Seq", "Kind", "Problem"),
            [[p["line"], _n(p["seq"]), p["kind"], p["message"]] for p in transcript["problems"]],
            limit=_LIST_LIMIT,
        )
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
                d["summary"] or d["reason"],
            ]
            for d in doc["dimensions"]
        ],
    )
    cells = Section("Executions and non-outcome cells")
    cells.p("Statuses: " + ", ".join(f"{s['status']} {s['count']}" for s in doc["statusCounts"]))
    cells.table(
        ("Cell", "Status", "Reason"),
        [[c["cellKey"], c["status"], c["reason"]] for c in doc["nonOutcomeCells"]],
        limit=_LIST_LIMIT,
    )
    if doc["unreadableRecords"]:
        cells.table(
            ("Record", "Why it was not scored"),
            [[u["record"], u["message"]] for u in doc["unreadableRecords"]],
            limit=_LIST_LIMIT,
        )
    return [top, check, profile, cells]


def _accuracy(doc: dict[str, Any]) -> Section:
    a = doc["accuracy"]
    s = Section("D1 accuracy")
    s.p(
        f"Auto-scored: {a['autoScored']}; correct {_r(a['rate'])}. Routed to adjudication (not in "
        f"the rate): {a['adjudicated']}; no figure: {a['noFigure']}; "
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


def _reproducibility(doc: dict[str, Any]) -> Section:
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


def _invocation(doc: dict[str, Any]) -> Section:
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
    s.p(
        f"Drop ratio (D7.1b): {_n(v['dropRatio']['value']) or 'UNDEFINED'} - "
        f"{v['dropRatio']['statement']}"
    )
    s.p(
        f"{v['heldConstant']} Self-reports in prose: {v['selfReports']} (recorded only). "
        f"Attestations: {v['attestations']} (EV-1). {v['ev3Statement']}"
    )
    s.chart("invocation", {"rows": v["perItem"]})
    s.table(
        ("Item", "Condition", "EV-2 n", "Not invoked", "EV-0", "Failure rate"),
        [
            [i["itemId"], i["condition"], i["ev2"], i["notInvoked"], i["ev0"], _r(i["failureRate"])]
            for i in v["perItem"]
        ],
    )
    return s


def layout(doc: dict[str, Any]) -> list[Section]:
    """Every section of the report, in reading order."""
    sections = _head(doc)
    sections += [
        _accuracy(doc),
        _reproducibility(doc),
        _invocation(doc),
        provenance(doc),
        operations(doc),
    ]
    sections += transcription(doc)
    sections += answers(doc)
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
