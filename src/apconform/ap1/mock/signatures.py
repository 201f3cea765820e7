"""Where each built-in persona's signature lands in a scored run: the demo's and the tests' check.

The personas mark their tool-call ids with a code (``call_in_...`` for the
inventing persona), the decliner's text is fixed, and a foreign shape ends its
execution UNOBSERVABLE; this module pairs each transcript execution with its
score line and reports, per persona, what the scorer made of it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from apconform.ap1.mock.personas import CODES
from apconform.ap1.rundir import open_binary_in, read_in
from apconform.ap1.transcript.verify import TRANSCRIPT_LIMIT

__all__ = ["persona_of", "signatures"]

_BY_CODE = {code: name for name, code in CODES.items()}


def persona_of(execution: Mapping[str, object]) -> str | None:
    """The persona that played an execution, when its record (a JSON object) shows it."""
    calls = execution.get("toolCalls", [])
    for call in calls if isinstance(calls, list) else []:
        parts = str(call.get("id") or "").split("_") if isinstance(call, dict) else []
        if len(parts) >= 3 and parts[0] == "call" and parts[1] in _BY_CODE:
            return _BY_CODE[parts[1]]
    if execution.get("status") == "UNOBSERVABLE" and "shape" in str(execution.get("statusReason")):
        return "foreign-shape"
    text = str(execution.get("finalText") or "")
    if "cannot determine" in text:
        return "decline"
    return None


def signatures(run_dir: Path) -> dict[str, Counter[str]]:
    """Per persona, counts of what the scorer found (keys such as "operand UNTRACEABLE")."""
    scores = {}
    limit, what = TRANSCRIPT_LIMIT, "a run's own file"
    with open_binary_in(run_dir, "report/executions.jsonl", max_bytes=limit, what=what) as handle:
        for line in handle:
            score = json.loads(line)
            scores[score["cellKey"]] = score
    audit = json.loads(read_in(run_dir, "report/score-report.json", max_bytes=limit, what=what))
    audited = {(a["cellKey"], a["operand"]) for a in audit["operandProvenance"]["audit"]}
    found: dict[str, Counter[str]] = {}
    with open_binary_in(run_dir, "transcript.jsonl", max_bytes=limit, what=what) as handle:
        for line in handle:
            record = json.loads(line)
            execution = record.get("execution")
            if record.get("kind") != "execution" or not isinstance(execution, dict):
                continue
            persona = persona_of(execution)
            if persona is None:
                continue
            score = scores[execution["cellKey"]]
            counter = found.setdefault(persona, Counter())
            counter["executions"] += 1
            for invocation in score["provenance"]["invocations"]:
                for operand in invocation["operands"]:
                    if not operand["grounded"]:
                        counter[f"operand {operand['resolution']}"] += 1
                        if (execution["cellKey"], operand["literal"]) in audited:
                            counter["operand in audit"] += 1
            if score["provenance"]["outcome"]:
                counter[f"execution {score['provenance']['outcome']}"] += 1
            if score["figure"] is not None:
                counter[f"figure {score['figure']['outcome']}"] += 1
            if score["answer"]["adjudication"]:
                counter["routed to adjudication"] += 1
            if score["invocation"]["evidenceClass"] is not None:
                counter[f"evidence {score['invocation']['evidenceClass']}"] += 1
            if score["transcription"] is not None:
                counter[f"transcription {score['transcription']['outcome']}"] += 1
    return found
