"""Runs of the reference instrument in its published shape, written by the tests themselves.

The configuration and printed seal record of each of the four published runs
come from the kit's seal vectors (facts the kit already carries); the account,
the questions, the conversations and the verdicts are invented here. The files
are laid out as the reference publishes a run: ``report.md`` (sections 1 and 2)
and ``smoke_run.jsonl`` (an engine record, then a figure-identification record,
per execution; the September runs keep a request record with the first
request's attempts, the August runs keep the whole conversation in
``request_sent.messages``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apconform.ap1.seal.reference import reference_seal_hashes
from apconform.core.canonical import sha256_bytes
from apconform.core.files import load_path
from apconform.resources import data_path

RUNS = {
    "run_a_mini": "ap1-reference-seal-run-a-mini.json",
    "run_b_sol": "ap1-reference-seal-run-b-sol.json",
    "run_e_mini": "ap1-reference-seal-run-e-mini.json",
    "run_f_sol": "ap1-reference-seal-run-f-sol.json",
}
AUGUST = frozenset({"run_a_mini", "run_b_sol"})

FIXTURE: dict[str, Any] = {
    "fixture_version": "9.9.0",
    "domain": "synthetic",
    "description": "Two invented accounts for the import tests.",
    "amount_convention": "Amounts are magnitudes; direction is a label.",
    "accounts": [
        {
            "id": "deposit",
            "name": "Deposit Account",
            "balance": "1800.00",
            "direction": "asset",
            "annual_rate": "3.5",
            "monthly_fee": "2.00",
        },
        {
            "id": "loan",
            "name": "Loan",
            "balance": "500.00",
            "direction": "liability",
            "min_payment": "25.00",
        },
    ],
}
QUESTIONS: dict[str, Any] = {
    "questions_version": "9.9.0",
    "items": [
        {
            "id": "V1",
            "category": "interest",
            "text": "What does the deposit account earn in one month, net of its fee?",
            "required_operation": "calculator",
            "source_accounts": ["deposit"],
            "expected_value": "3.25",
            "derivable": True,
            "steps": 2,
        },
        {
            "id": "V2",
            "category": "balance",
            "text": "What is owed on the loan after one minimum payment?",
            "required_operation": "calculator",
            "source_accounts": ["loan"],
            "expected_value": "475.00",
            "derivable": True,
            "steps": 1,
        },
    ],
}
USER_MESSAGES = {
    "V1": "Here is the financial information:\n\nDeposit Account:\n  Balance: 1800.00\n"
    "  Direction: asset\n  Annual Rate: 3.5\n  Monthly Fee: 2.00\n\n"
    "Question: What does the deposit account earn in one month, net of its fee?",
    "V2": "Here is the financial information:\n\nLoan:\n  Balance: 500.00\n"
    "  Direction: liability\n  Min Payment: 25.00\n\n"
    "Question: What is owed on the loan after one minimum payment?",
}
FINALS = {"V1": "3.2500", "V2": "475.00"}
DERIVATIONS: dict[str, Any] = {
    "schemaVersion": "apconform-ap1-derivations/2",
    "derivationSetId": "import-tests",
    "derivations": [
        {
            "itemId": "V1",
            "derivable": True,
            "sourceFields": ["deposit.balance", "deposit.annual_rate", "deposit.monthly_fee"],
            "constants": [
                {"name": "percent", "value": "100", "meaning": "percent", "role": "used"},
                {"name": "months", "value": "12", "meaning": "months a year", "role": "used"},
            ],
            "intermediates": [
                {
                    "label": "monthly_interest",
                    "operation": "multiply_then_divide",
                    "reference": True,
                    "inputs": [
                        {"source": "deposit.balance"},
                        {"source": "deposit.annual_rate"},
                        {"constant": "percent"},
                        {"constant": "months"},
                    ],
                },
                {
                    "label": "net_interest",
                    "operation": "subtract",
                    "reference": True,
                    "inputs": [
                        {"intermediate": "monthly_interest"},
                        {"source": "deposit.monthly_fee"},
                    ],
                },
            ],
            "final": "net_interest",
        },
        {
            "itemId": "V2",
            "derivable": True,
            "sourceFields": ["loan.balance", "loan.min_payment"],
            "constants": [],
            "intermediates": [
                {
                    "label": "owed",
                    "operation": "subtract",
                    "reference": True,
                    "inputs": [{"source": "loan.balance"}, {"source": "loan.min_payment"}],
                }
            ],
            "final": "owed",
        },
    ],
}


def published(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The published configuration and printed seal record of one of the four runs."""
    vector = load_path(data_path("vectors", "ap1", "seal", RUNS[name]))
    config: dict[str, Any] = vector["input"]["config"]
    seal: dict[str, Any] = vector["input"]["sealRecord"]
    return config, seal


def resealed(
    config: dict[str, Any], seal: dict[str, Any], **changes: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A run a reference instrument could have published with other values: hashes recomputed."""
    config = {**config, **changes}
    seal = dict(seal)
    if "ap1_text_hash" in changes:
        seal["ap1_text_hash"] = changes["ap1_text_hash"]
    seal["config_hash"] = reference_seal_hashes(config, seal)["configHash"]
    seal["seal_hash"] = reference_seal_hashes(config, seal)["sealHash"]
    return config, seal


def report_text(config: dict[str, Any], seal: dict[str, Any]) -> str:
    """Sections 1 and 2 of a report, printed the way the reference prints them."""
    rows = "\n".join(f"| `{k}` | `{v}` |" for k, v in sorted(seal.items()))
    return (
        "# AP-1 Evaluation Report\n\n---\n\n## 1. Pre-Registration Record\n\n"
        f"| Field | Value |\n|---|---|\n{rows}\n\n## 2. Resolved Configuration\n\n"
        f"```json\n{json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False)}\n```\n\n"
        "## 3. Per-Dimension Results\n\n(not read by the import)\n"
    )


@dataclass
class Call:
    """One calculator call: its turn, expression, result and the reference's operands."""

    turn: int
    expression: str
    result: str
    operands: list[tuple[str, str, str | None]] = field(default_factory=list)
    """(literal, resolution, matched field or intermediate) as the reference recorded them."""
    outcome: str = "OPERANDS-GROUNDED"
    operation: tuple[str, str | None] = ("OPERATION-CORRECT", "expected_value")
    arguments: str | None = None
    """The arguments text as the model wrote it; by default the expression as compact JSON."""
    returned: str | None = None
    """The tool's return text; by default ``{"result": ...}``."""

    def arguments_text(self) -> str:
        return self.arguments or json.dumps({"expression": self.expression})

    def return_text(self) -> str:
        return self.returned or json.dumps({"result": self.result})


@dataclass
class Execution:
    """One execution as the reference records it."""

    condition: str
    item: str
    calls: list[Call]
    final: str | None
    figure: tuple[str, str | None]
    invocation: str | None = "INVOKED"
    evidence: str = "EV-2 PLATFORM-STRUCTURAL"
    """The evidence class as the reference prints it; "EV-0 UNOBSERVABLE" for a round it
    could not read, whose last response (the one asking for the calls) is the final one."""
    attempted_at: float = 1788866000.5
    timestamp: str = "2026-09-08T11:20:00.000000+00:00"
    reasoning: dict[int, str] = field(default_factory=dict)
    """Assistant text beside the tool calls of a turn."""


def _operands(call: Call, step: int) -> list[dict[str, Any]]:
    out = []
    for literal, resolution, matched in call.operands:
        out.append(
            {
                "expression": call.expression,
                "matched_field": matched
                if resolution in ("source_match", "transformed_source")
                else None,
                "matched_intermediate": matched if resolution == "intermediate" else None,
                "operand_literal": literal,
                "operand_value": literal,
                "quantisation_finding": False,
                "resolution": resolution,
                "sign_inversion_finding": None,
                "step": step,
                "transform_used": None,
            }
        )
    return out


def engine_record(
    config: dict[str, Any], seal: dict[str, Any], execution: Execution, number: int, august: bool
) -> dict[str, Any]:
    """The engine record the reference writes for one execution."""
    system = config[f"system_prompt_{execution.condition}"]
    opening = [
        {"content": system, "role": "system"},
        {"content": USER_MESSAGES[execution.item], "role": "user"},
    ]
    conversation = list(opening)
    calls = []
    turns = sorted({c.turn for c in execution.calls})
    for turn in turns:
        listed = [
            (f"call_{number}_{turn}_{i}", c)
            for i, c in enumerate(c for c in execution.calls if c.turn == turn)
        ]
        conversation.append(
            {
                "annotations": [],
                "content": execution.reasoning.get(turn),
                "refusal": None,
                "role": "assistant",
                "tool_calls": [
                    {
                        "function": {"arguments": c.arguments_text(), "name": "calculator"},
                        "id": ident,
                        "type": "function",
                    }
                    for ident, c in listed
                ],
            }
        )
        for ident, c in listed:
            returned = c.return_text()
            conversation.append({"content": returned, "role": "tool", "tool_call_id": ident})
            calls.append(
                {
                    "function": {"arguments": c.arguments_text(), "name": "calculator"},
                    "id": ident,
                    "return_value": returned,
                    "turn": turn,
                    "type": "function",
                }
            )
    final_message: dict[str, Any] = {
        "annotations": [],
        "content": execution.final,
        "refusal": None,
        "role": "assistant",
    }
    if execution.evidence.startswith("EV-0"):  # the re-send failed: the last response asked
        final_message = dict(conversation[-1 - len(listed)])  # for the calls of the last turn
    if august:
        request_sent: dict[str, Any] = {"messages": conversation}
    else:
        request_sent = {
            "messages": opening,
            "request_record": {
                "attempts": [
                    {
                        "attempt": 1,
                        "error": None,
                        "status_code": 200,
                        "timestamp": execution.attempted_at,
                    }
                ],
                "endpoint_url": config["endpoint_url"],
                "messages": conversation,
                "model": config["model"],
                "tools": config["tools"],
            },
        }
    return {
        "arm_id": execution.condition,
        "attestation_reason": None,
        "condition": execution.condition,
        "error_state": None,
        "evidence_class": execution.evidence,
        "ground_truth_final": FINALS[execution.item],
        "invocation_outcome": execution.invocation,
        "item_id": execution.item,
        "operation_correctness": [
            {
                "detail": "",
                "evaluated_result": c.result,
                "matched_against": c.operation[1],
                "outcome": c.operation[0],
            }
            for c in execution.calls
        ],
        "provenance_results": [
            {
                "operand_resolutions": _operands(c, step),
                "originated_operands": [],
                "outcome": c.outcome,
                "quantisation_findings": [],
            }
            for step, c in enumerate(execution.calls, start=1)
        ],
        "request_sent": request_sent,
        "required_operation": "calculator",
        "response_received": {
            "choices": [
                {
                    "finish_reason": "stop",
                    "index": 0,
                    "logprobs": None,
                    "message": final_message,
                }
            ],
            "id": f"chatcmpl-test-{number}",
            "model": config["model"],
            "object": "chat.completion",
        },
        "seal_hash": seal["seal_hash"],
        "self_report": None,
        "timestamp": execution.timestamp,
        "tool_calls": calls,
    }


def figure_record(seal: dict[str, Any], execution: Execution) -> dict[str, Any]:
    """The figure-identification record that follows an engine record."""
    outcome, released = execution.figure
    return {
        "arm_id": execution.condition,
        "condition": execution.condition,
        "error_state": None,
        "evidence_class": execution.evidence,
        "expected": FINALS[execution.item],
        "figure_outcome": outcome,
        "figure_reason": "",
        "item_id": execution.item,
        "record_type": "figure_identification",
        "released_figure": "None" if released is None else released,
        "request_sent": None,
        "response_received": None,
        "seal_hash": seal["seal_hash"],
        "timestamp": execution.timestamp,
        "tool_calls": [],
    }


def grounded_v1(condition: str = "base", **changes: Any) -> Execution:
    """V1 computed in two calls, each operand grounded, the figure released."""
    values: dict[str, Any] = {
        "condition": condition,
        "item": "V1",
        "calls": [
            Call(
                1,
                "1800.00 * 3.5 / 100 / 12",
                "5.25",
                [
                    ("1800.0", "source_match", "deposit.balance"),
                    ("3.5", "source_match", "deposit.annual_rate"),
                    ("100", "constant", None),
                    ("12", "constant", None),
                ],
                operation=("OPERATION-CORRECT", "monthly_interest"),
            ),
            Call(
                2,
                "5.25 - 2.00",
                "3.25",
                [
                    ("5.25", "intermediate", "monthly_interest"),
                    ("2.0", "source_match", "deposit.monthly_fee"),
                ],
            ),
        ],
        "final": "After the fee the account earns $3.25 in the month.",
        "figure": ("AUTO-MATCH", "3.25"),
        "reasoning": {2: "Now the fee."},
    }
    values.update(changes)
    return Execution(**values)


def grounded_v2(condition: str = "base") -> Execution:
    """V2 in one call."""
    return Execution(
        condition,
        "V2",
        [
            Call(
                1,
                "500.00 - 25.00",
                "475.0",
                [
                    ("500.0", "source_match", "loan.balance"),
                    ("25.0", "source_match", "loan.min_payment"),
                ],
            )
        ],
        "You will owe $475.00.",
        ("AUTO-MATCH", "475.00"),
    )


def unreadable_v1(condition: str = "base") -> Execution:
    """V1 whose re-send after its first call failed: the reference's EV-0, as run F's base
    Q08 #1 (no invocation outcome, the figure UNMEASURABLE, no released figure)."""
    first = grounded_v1(condition).calls[0]
    return Execution(
        condition,
        "V1",
        [first],
        None,
        ("UNMEASURABLE", None),
        invocation=None,
        evidence="EV-0 UNOBSERVABLE",
        attempted_at=1788866002.75,
        timestamp="2026-09-08T11:21:00.000000+00:00",
    )


def standard_executions() -> list[Execution]:
    """Five executions: V1 twice and V2 under base, V1 and V2 with the instruction removed."""
    return [
        grounded_v1("base"),
        grounded_v1("base", attempted_at=1788866001.25),
        grounded_v2("base"),
        grounded_v1("instruction_removed"),
        grounded_v2("instruction_removed"),
    ]


def transcript_lines(
    config: dict[str, Any], seal: dict[str, Any], executions: list[Execution], august: bool
) -> list[str]:
    """The lines of smoke_run.jsonl, two per execution."""
    lines = []
    for number, execution in enumerate(executions, start=1):
        engine = engine_record(config, seal, execution, number, august)
        lines.append(json.dumps(engine, sort_keys=True, ensure_ascii=False))
        lines.append(json.dumps(figure_record(seal, execution), sort_keys=True))
    return lines


@dataclass(frozen=True)
class PublishedRun:
    """Where a written run and the inputs it needs are."""

    folder: Path
    fixture: Path
    questions: Path
    derivations: Path
    config: dict[str, Any]
    seal: dict[str, Any]

    def import_args(self, run_dir: Path, *extra: str) -> list[str]:
        """The command line that imports this run without the AP-1 text."""
        return [
            "ap1",
            "import",
            "reference",
            str(self.folder),
            "--fixture",
            str(self.fixture),
            "--questions",
            str(self.questions),
            "--derivations",
            str(self.derivations),
            *(extra or ("--no-ap1-text",)),
            "--output-dir",
            str(run_dir),
        ]


def write_inputs(where: Path) -> tuple[Path, Path, Path]:
    """The user's copies of the fixture and questions, and the derivations."""
    where.mkdir(parents=True, exist_ok=True)
    paths = (where / "fixture.json", where / "questions.json", where / "derivations.json")
    for path, document in zip(paths, (FIXTURE, QUESTIONS, DERIVATIONS), strict=True):
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return paths


def write_published_run(
    where: Path,
    name: str,
    executions: list[Execution] | None = None,
    *,
    config: dict[str, Any] | None = None,
    seal: dict[str, Any] | None = None,
    lines: list[str] | None = None,
) -> PublishedRun:
    """A run folder of one of the four published runs, with the inputs beside it."""
    published_config, published_seal = published(name)
    config = published_config if config is None else config
    seal = published_seal if seal is None else seal
    folder = where / name
    folder.mkdir(parents=True)
    (folder / "report.md").write_text(report_text(config, seal), encoding="utf-8")
    if lines is None:
        lines = transcript_lines(config, seal, executions or standard_executions(), name in AUGUST)
    (folder / "smoke_run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    fixture, questions, derivations = write_inputs(where / "inputs")
    return PublishedRun(folder, fixture, questions, derivations, config, seal)


def text_hash(text: str) -> str:
    """The SHA-256 of a text's UTF-8 bytes, as a configuration declares it."""
    return sha256_bytes(text.encode("utf-8"))
