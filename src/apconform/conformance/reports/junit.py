"""JUnit XML and shields.io badges, rendered from the report records.

JUnit: one ``testsuite`` per protocol, one ``testcase`` per vector (class name
``apconform.<protocol>.<first clause>``, name the vector id). A fail or an
xpass is a ``failure``, an errored case an ``error``, skipped and xfail cases
are ``skipped`` (an xfail says so and gives the reason). A protocol whose
verdict is incomplete (nothing executed, a partial run chosen with ``--only``,
or MUST clause branches that never ran) gets one more test case, ``MUST clause
branches executed``, which fails and lists them, so a CI view never shows a
vacuous or partial run as green.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from apconform.conformance.reports.text import case_reason

__all__ = ["render_badges", "render_junit"]


def _seconds(milliseconds: float) -> str:
    return f"{milliseconds / 1000:.3f}"


def _testcase(parent: ET.Element, case: dict[str, Any]) -> None:
    element = ET.SubElement(
        parent,
        "testcase",
        {
            "classname": f"apconform.{case['protocol']}.{case['clauses'][0]}",
            "name": case["vector"],
            "time": _seconds(case["durationMs"]),
        },
    )
    outcome = case["outcome"]
    detail = f"{case_reason(case)}\nreproduce: {case['reproduce']}"
    if outcome in ("fail", "xpass"):
        child = ET.SubElement(element, "failure", {"message": case_reason(case), "type": outcome})
        child.text = detail
    elif outcome == "errored":
        child = ET.SubElement(element, "error", {"message": case_reason(case), "type": "errored"})
        child.text = detail
    elif outcome == "skipped":
        ET.SubElement(element, "skipped", {"message": case_reason(case)})
    elif outcome == "xfail":
        ET.SubElement(element, "skipped", {"message": f"xfail: {case.get('xfailReason', '')}"})


_COVERAGE_CASE = "MUST clause branches executed"


def _coverage_failure(summary: dict[str, Any], partial: bool) -> tuple[str, str] | None:
    """The message and text of the extra coverage test case's failure (None when covered)."""
    if summary["verdict"] != "incomplete":
        return None
    gaps = summary.get("unexecutedBranches", [])
    lines = [
        f"{gap['clause']} {gap['branch']}: none of "
        f"{', '.join(gap['branchVectors']) or 'its vectors (the suite has none)'} ran"
        for gap in gaps
    ]
    message = f"incomplete: {len(gaps)} MUST clause branch(es) never ran"
    if partial:
        message = (
            f"incomplete: a partial run (--only); {len(gaps)} MUST clause branch(es) were not "
            "chosen, so this run is never a pass"
        )
    if not any(summary["counts"][outcome] for outcome in ("pass", "fail", "xfail", "xpass")):
        message = "incomplete: no case of this protocol executed"
        lines.insert(0, message)
    return message, "\n".join(lines)


def render_junit(records: list[dict[str, Any]]) -> str:
    header, cases, footer = records[0], records[1:-1], records[-1]
    total_ms = sum(case["durationMs"] for case in cases)
    partial = not header["selection"].get("complete", True)
    uncovered = {
        summary["protocol"]: text
        for summary in footer["protocols"]
        if (text := _coverage_failure(summary, partial)) is not None
    }
    root = ET.Element(
        "testsuites",
        {
            "name": f"apconform {header['target']}",
            "tests": str(len(cases) + len(uncovered)),
            "failures": str(footer["counts"]["fail"] + footer["counts"]["xpass"] + len(uncovered)),
            "errors": str(footer["counts"]["errored"]),
            "skipped": str(footer["counts"]["skipped"] + footer["counts"]["xfail"]),
            "time": _seconds(total_ms),
        },
    )
    for summary in footer["protocols"]:
        mine = [case for case in cases if case["protocol"] == summary["protocol"]]
        counts = summary["counts"]
        gap = uncovered.get(summary["protocol"])
        extra = 0 if gap is None else 1
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": f"apconform.{summary['protocol']}",
                "tests": str(len(mine) + extra),
                "failures": str(counts["fail"] + counts["xpass"] + extra),
                "errors": str(counts["errored"]),
                "skipped": str(counts["skipped"] + counts["xfail"]),
                "time": _seconds(sum(case["durationMs"] for case in mine)),
                "timestamp": header["startedAt"][:19],
            },
        )
        properties = ET.SubElement(suite, "properties")
        implementation = header["implementation"]
        for name, value in (
            ("kit.version", header["kit"]["version"]),
            ("implementation", f"{implementation['name']} {implementation['version']}"),
            ("target", header["target"]),
            ("vectorManifestSha256", header["vectorManifestSha256"]),
            ("clauseRegistrySha256", header["clauseRegistrySha256"]),
            ("verdict", summary["verdict"]),
        ):
            ET.SubElement(properties, "property", {"name": name, "value": value})
        for case in mine:
            _testcase(suite, case)
        if gap is not None:
            element = ET.SubElement(
                suite,
                "testcase",
                {
                    "classname": f"apconform.{summary['protocol']}",
                    "name": _COVERAGE_CASE,
                    "time": "0.000",
                },
            )
            failure = ET.SubElement(
                element,
                "failure",
                {"message": gap[0], "type": "incomplete"},
            )
            failure.text = gap[1]
        if summary["vacuousClauses"]:
            out = ET.SubElement(suite, "system-out")
            out.text = "MUST clauses with no executed vector: " + ", ".join(
                summary["vacuousClauses"]
            )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_badges(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One shields.io endpoint document per checked protocol; only a pass is green."""
    header, footer = records[0], records[-1]
    partial = header.get("record") == "header" and not header["selection"].get("complete", True)
    badges = {}
    for summary in footer["protocols"]:
        counts = summary["counts"]
        total = sum(counts.values())
        if total == 0:
            message, color = "nothing checked", "lightgrey"
        elif partial and summary["verdict"] == "incomplete":
            message, color = f"partial run: {counts['pass']}/{total} passed", "orange"
        elif summary["verdict"] == "incomplete":
            gaps = len(summary.get("unexecutedBranches", []))
            message = f"incomplete ({gaps} MUST branches not run)" if gaps else "incomplete"
            color = "orange"
        else:
            message = f"{counts['pass']}/{total} passed"
            color = "brightgreen" if summary["verdict"] == "pass" else "red"
        badges[summary["protocol"]] = {
            "schemaVersion": 1,
            "label": f"apconform {summary['protocol']}",
            "message": message,
            "color": color,
        }
    return badges
