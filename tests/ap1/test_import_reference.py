"""`apconform ap1 import reference` and `ap1 compare-reference` on runs in the published shape.

Every run here is written by the tests (see ``published_runs``): the four
published configurations and seal records, invented accounts and conversations.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.importers.reference.records import unix_to_rfc3339
from apconform.cli import main
from apconform.core.errors import ApconformError

from .published_runs import (
    FIXTURE,
    Call,
    Execution,
    grounded_v1,
    grounded_v2,
    published,
    resealed,
    standard_executions,
    text_hash,
    transcript_lines,
    write_published_run,
)

PUBLISHED_HASHES = {
    "run_a_mini": (
        "3606cf8b3c6fab69758425ea0dfc9841dcd807d1f12251ad98e19fd1da4e7a12",
        "7312616b1a7d39c7f840215a5b52ccdb5c0d68a86e1d8bb75fa4d2f1aa5f1393",
    ),
    "run_b_sol": (
        "01be675a0716af46e043013c9638fa24391d95dfa9564c42ddc31640dc40ad79",
        "ada88b4381fe51d4a68c18cf311af6591838078658f3254b71de6dddca867879",
    ),
    "run_e_mini": (
        "9baa6877dbaabe486aa40bccbccbf62d92570c980b637bb243d2d41167c3e65a",
        "d66a8d62765949c36387ec539afe56ce47b1ce709c63673524649cd6dfd368c4",
    ),
    "run_f_sol": (
        "279b3f3f0057b4cab4fd997ecff60fa9922e32bc2b4935665566cd3f20d932c9",
        "e9db37fb8696d9cf7ccd46a1836c376f748abfa1b9a8fe6a1926a652ae43be73",
    ),
}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _transcript(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _executions(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {
        r["execution"]["cellKey"]: r["execution"]
        for r in _transcript(run_dir)
        if r["kind"] == "execution"
    }


def _rows(run_dir: Path) -> dict[str, tuple[str, str, str, str]]:
    document = _json(run_dir / "comparison" / "reference-comparison.json")
    return {
        row["dimension"]: (row["compared"], row["agree"], row["disagree"], row["notRecorded"])
        for row in document["dimensions"]
    }


@pytest.mark.parametrize("name", sorted(PUBLISHED_HASHES))
def test_each_published_run_imports_with_its_own_hashes_and_is_scored_and_compared(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, name)
    run_dir = tmp_path / "run"
    assert main(run.import_args(run_dir)) == 0
    config_hash, seal_hash = PUBLISHED_HASHES[name]
    out = capsys.readouterr().out
    assert f"config_hash {config_hash}, seal_hash {seal_hash}" in out
    record = _json(run_dir / "import" / "import-record.json")
    assert record["publishedHashes"] == {
        "configHash": config_hash,
        "sealHash": seal_hash,
        "configHashMatches": True,
        "sealHashMatches": True,
    }
    assert record["records"] == {
        "lines": "10",
        "executions": "5",
        "plannedCells": "200",
        "recordedCells": "5",
        "masked": "0",
    }
    assert [c["matches"] for c in record["inputChecks"]] == [False, False, None]
    assert record["groundTruthChecks"] == [
        {"itemId": "V1", "referenceFinal": "3.2500", "derivationFinal": "3.250", "agrees": True},
        {"itemId": "V2", "referenceFinal": "475.00", "derivationFinal": "475.00", "agrees": True},
    ]
    assert [d["dimension"] for d in record["claims"]["dropped"]] == ["D1", "D2"]
    transcript = _transcript(run_dir)
    assert transcript[0]["runStarted"]["instrumentVersion"].startswith("zorrzai/ap1-run")
    assert [r["kind"] for r in transcript][-1] == "run-stopped"
    assert sorted(_executions(run_dir)) == [
        "base/V1/1",
        "base/V1/2",
        "base/V2/1",
        "instruction-removed/V1/1",
        "instruction-removed/V2/1",
    ]
    assert main(["ap1", "score", str(run_dir)]) == 0
    score = _json(run_dir / "report" / "score-report.json")
    assert score["integrity"]["transcript"]["verified"] is True
    assert main(["ap1", "compare-reference", str(run_dir)]) == 0
    assert _rows(run_dir) == {
        "D7.1 evidence class": ("5", "5", "0", "0"),
        "D7.1 invocation": ("5", "5", "0", "0"),
        "figure outcome": ("5", "5", "0", "0"),
        "released figure": ("5", "5", "0", "0"),
        "D7.2(a) operand": ("22", "22", "0", "0"),
        "D7.2(a) call": ("8", "8", "0", "0"),
        "D7.2(b) call": ("8", "8", "0", "0"),
        "D7.3 transcription": ("5", "5", "0", "0"),
    }


def test_attempt_times_come_from_the_record_the_reference_kept(tmp_path: Path) -> None:
    """September: round 1 keeps the recorded Unix time; later rounds and August: the record's."""
    september = write_published_run(tmp_path / "e", "run_e_mini")
    assert main(september.import_args(tmp_path / "e-run")) == 0
    rounds = _executions(tmp_path / "e-run")["base/V1/2"]["rounds"]
    assert [r["attempts"][0]["startedAt"] for r in rounds] == [
        "2026-09-08T11:13:21.25Z",
        "2026-09-08T11:20:00.000000+00:00",
        "2026-09-08T11:20:00.000000+00:00",
    ]
    august = write_published_run(tmp_path / "a", "run_a_mini")
    assert main(august.import_args(tmp_path / "a-run")) == 0
    rounds = _executions(tmp_path / "a-run")["base/V1/2"]["rounds"]
    assert {r["attempts"][0]["startedAt"] for r in rounds} == {"2026-09-08T11:20:00.000000+00:00"}
    note = _json(tmp_path / "a-run" / "import" / "import-record.json")["lacking"]
    assert any("the August runs kept no attempt at all" in line for line in note)


def test_every_imported_record_states_its_provenance_and_invents_no_url_or_status(
    tmp_path: Path,
) -> None:
    """AP1-TR-6: the source and its version, the lines read, what it never records."""
    september = write_published_run(tmp_path / "e", "run_e_mini")
    assert main(september.import_args(tmp_path / "e-run")) == 0
    record = _executions(tmp_path / "e-run")["base/V1/2"]
    provenance = record["provenance"]
    assert provenance["source"] == "zorrzai/ap1-run"
    assert provenance["sourceVersion"] == "v1.3.1 (commit dd4c3e8)"
    assert provenance["sourceRecord"] == (
        "smoke_run.jsonl: the engine record on line 3 and the figure-identification record on "
        "line 4"
    )
    assert provenance["model"] == "gpt-4.1-mini"
    assert "the bytes and headers of every request" in provenance["notRecorded"]
    assert [d.split(":")[0] for d in provenance["derived"]] == [
        "deliveredContextSha256",
        "repeat",
        "elapsedSeconds",
        "rounds[*].request.bodyText and samplingAsSent",
        "rounds[0].response.bodyText",
        "rounds[1].attempts",
        "rounds[1].response.bodyText",
        "rounds[2].attempts",
        "rounds[2].response.bodyText",
    ]
    assert [r["request"]["url"] for r in record["rounds"]] == [
        "https://api.openai.com/v1/chat/completions"
    ] * 3
    assert [r["response"]["httpStatus"] for r in record["rounds"]] == ["200", None, None]
    started = _transcript(tmp_path / "e-run")[0]["runStarted"]["provenance"]
    digest = text_hash((september.folder / "smoke_run.jsonl").read_text(encoding="utf-8"))
    assert started["sourceRecord"] == (
        f"smoke_run.jsonl (sha256 {digest}) of the run sealed as "
        "d66a8d62765949c36387ec539afe56ce47b1ce709c63673524649cd6dfd368c4"
    )
    august = write_published_run(tmp_path / "a", "run_a_mini")
    assert main(august.import_args(tmp_path / "a-run")) == 0
    record = _executions(tmp_path / "a-run")["base/V1/1"]
    assert record["provenance"]["sourceVersion"].startswith("unversioned")
    assert {r["request"]["url"] for r in record["rounds"]} == {None}
    assert {r["response"]["httpStatus"] for r in record["rounds"]} == {None}
    assert all("httpStatus" not in r["attempts"][0] for r in record["rounds"])


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (1788866000.5, "2026-09-08T11:13:20.5Z"),
        (1788866000, "2026-09-08T11:13:20Z"),
        (1788866000.123456, "2026-09-08T11:13:20.123456Z"),
        ("1788866000.000001", "2026-09-08T11:13:20.000001Z"),
    ],
)
def test_a_unix_time_is_converted_exactly(seconds: Any, text: str) -> None:
    assert unix_to_rfc3339(seconds, line=1) == text


@pytest.mark.parametrize("seconds", [-1.0, "soon", True, None, float("inf")])
def test_a_time_that_is_not_a_unix_time_is_refused_with_its_line(seconds: Any) -> None:
    with pytest.raises(ApconformError) as caught:
        unix_to_rfc3339(seconds, line=7)
    assert caught.value.code == "AP1-IMPORT-RECORD"
    assert caught.value.message.startswith("line 7: the attempt timestamp")


def test_the_model_words_are_kept_byte_for_byte(tmp_path: Path) -> None:
    arguments = '{"expression":"1800.00*3.5/100/12" }'
    returned = '{"result": "5.25", "note": "caf\\u00e9"}'
    french = "Je calcule d\u2019abord l\u2019int\u00e9r\u00eat\u2026"
    execution = grounded_v1(
        reasoning={1: french, 2: "  Now the fee.\n"},
        final="Net: **$3.25** — after the fee.\n",
    )
    execution.calls[0].arguments = arguments
    execution.calls[0].returned = returned
    run = write_published_run(tmp_path, "run_f_sol", [execution])
    assert main(run.import_args(tmp_path / "run")) == 0
    record = _executions(tmp_path / "run")["base/V1/1"]
    assert [(c["argumentsRaw"], c["returnRaw"]) for c in record["toolCalls"]] == [
        (arguments, returned),
        ('{"expression": "5.25 - 2.00"}', '{"result": "3.25"}'),
    ]
    assert [c["id"] for c in record["toolCalls"]] == ["call_1_1_0", "call_1_2_0"]
    assert record["finalText"] == "Net: **$3.25** — after the fee.\n"
    carried = [json.loads(r["response"]["bodyText"]) for r in record["rounds"][:2]]
    assert [b["choices"][0]["message"]["content"] for b in carried] == [
        french,
        "  Now the fee.\n",
    ]
    assert carried[0]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == (
        arguments
    )
    second_request = json.loads(record["rounds"][1]["request"]["bodyText"])
    assert second_request["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1_1_0",
        "content": returned,
    }


def test_a_published_value_edited_in_the_report_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, seal = published("run_e_mini")
    edited = {**config, "repeat_count": 49}
    run = write_published_run(tmp_path, "run_e_mini", config=edited, seal=seal)
    assert main(run.import_args(tmp_path / "run")) == 1
    err = capsys.readouterr().err
    assert err.startswith("error AP1-IMPORT-SEAL")
    assert "but the seal record prints config_hash 9baa6877dbaabe48" in err
    assert not (tmp_path / "run").exists()


def _lines(name: str = "run_e_mini") -> list[str]:
    config, seal = published(name)
    return transcript_lines(config, seal, standard_executions(), august=False)


def _engine(lines: list[str], index: int) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(lines[index])
    return value


def _unknown_member(lines: list[str]) -> list[str]:
    record = _engine(lines, 2)
    record["judge_notes"] = "kept nowhere"
    return [*lines[:2], json.dumps(record), *lines[3:]]


def _unknown_kind(lines: list[str]) -> list[str]:
    record = json.loads(lines[3])
    record["record_type"] = "summary"
    return [*lines[:3], json.dumps(record), *lines[4:]]


def _other_seal(lines: list[str]) -> list[str]:
    record = _engine(lines, 4)
    record["seal_hash"] = "0" * 64
    return [*lines[:4], json.dumps(record), *lines[5:]]


def _other_prompt(lines: list[str]) -> list[str]:
    record = _engine(lines, 0)
    record["request_sent"]["request_record"]["messages"][0]["content"] = "Be brief."
    return [json.dumps(record), *lines[1:]]


def _other_model(lines: list[str]) -> list[str]:
    record = _engine(lines, 2)
    record["request_sent"]["request_record"]["model"] = "gpt-4o"
    return [*lines[:2], json.dumps(record), *lines[3:]]


def _request_record_member(lines: list[str]) -> list[str]:
    record = _engine(lines, 2)
    record["request_sent"]["request_record"]["proxy"] = "none"
    return [*lines[:2], json.dumps(record), *lines[3:]]


def _calls_disagree(lines: list[str]) -> list[str]:
    record = _engine(lines, 6)
    record["tool_calls"][0]["return_value"] = '{"result": "0"}'
    return [*lines[:6], json.dumps(record), *lines[7:]]


def _too_many(lines: list[str]) -> list[str]:
    config, seal = published("run_e_mini")
    more = []
    for number in range(50):  # distinct executions (a repeated record is refused as such)
        execution = grounded_v2()
        execution.timestamp = f"2026-09-08T12:{number // 60:02d}:{number % 60:02d}.000000+00:00"
        more.append(execution)
    return lines + transcript_lines({**config}, seal, more, august=False)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda lines: [*lines[:2], "{not json", *lines[3:]],
            "line 3: the line is not a JSON record",
        ),
        (lambda lines: [*lines[:2], "[1, 2]", *lines[3:]], "line 3: the line is not a JSON object"),
        (lambda lines: [*lines[:4], "", *lines[5:]], "line 5: the line is empty"),
        (
            _unknown_member,
            "line 3: the execution record has member(s) the import does not know: judge_notes",
        ),
        (_unknown_kind, "line 4: unknown record_type 'summary'"),
        (
            lambda lines: lines[1:],
            "line 1: a figure-identification record follows no execution record",
        ),
        (
            lambda lines: [lines[0], *lines[2:]],
            "line 1: the execution has no figure-identification record after it",
        ),
        (_other_seal, "line 5: the record carries seal_hash '000000"),
        (_other_prompt, "line 1: the recorded system prompt differs"),
        (_calls_disagree, "line 7: turn 1: the tool result for call_4_1_0 disagrees"),
        (
            _other_model,
            "line 3: request_record.model is 'gpt-4o' but the configuration declares "
            "'gpt-4.1-mini'",
        ),
        (_request_record_member, "line 3: request_record has member(s) the import does not know"),
        (_too_many, "line 109: base/V2 has more than the configured 50 repeats"),
    ],
    ids=[
        "malformed",
        "not-an-object",
        "empty-line",
        "unknown-member",
        "unknown-record-type",
        "figure-without-execution",
        "execution-without-figure",
        "other-seal",
        "other-system-prompt",
        "calls-disagree-with-conversation",
        "request-sent-to-another-model",
        "unknown-request-record-member",
        "more-repeats-than-configured",
    ],
)
def test_a_record_that_cannot_be_imported_is_refused_with_its_line_and_nothing_is_written(
    edit: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini", lines=edit(_lines()))
    assert main(run.import_args(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error AP1-IMPORT-RECORD"), err
    assert message in err
    assert not (tmp_path / "run").exists()


def test_a_fixture_with_a_signed_amount_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    signed = json.loads(json.dumps(FIXTURE))
    signed["accounts"][1]["balance"] = "-500.00"
    run.fixture.write_text(json.dumps(signed), encoding="utf-8")
    assert main(run.import_args(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error AP1-IMPORT-INPUT")
    assert "$.accounts[1].balance is the signed amount -500.00" in err


def test_the_ap1_text_must_have_the_hash_the_configuration_declares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "# The AP-1 text of this test\n\nAn invented stand-in with its own hash.\n"
    config, seal = resealed(*published("run_e_mini"), ap1_text_hash=text_hash(text))
    run = write_published_run(tmp_path, "run_e_mini", config=config, seal=seal)
    good, bad = tmp_path / "ap1.md", tmp_path / "other.md"
    good.write_text(text, encoding="utf-8")
    bad.write_text(text + "edited\n", encoding="utf-8")
    assert main(run.import_args(tmp_path / "bad", "--ap1-text", str(bad))) == 1
    assert capsys.readouterr().err.startswith("error AP1-IMPORT-TEXT")
    assert not (tmp_path / "bad").exists()
    assert main(run.import_args(tmp_path / "run", "--ap1-text", str(good))) == 0
    record = _json(tmp_path / "run" / "import" / "import-record.json")
    assert record["publishedHashes"]["sealHash"] == seal["seal_hash"]
    assert record["inputChecks"][2] == {
        "input": "ap1Text",
        "publishedSha256": text_hash(text),
        "fileSha256": text_hash(text),
        "matches": True,
    }
    sealed = (tmp_path / "run" / "inputs" / "ap1-text.md").read_text(encoding="utf-8")
    assert sealed == text
    assert main(["ap1", "verify-seal", str(tmp_path / "run")]) == 0


def test_without_the_ap1_text_the_run_is_sealed_with_a_stand_in_that_says_so(
    tmp_path: Path,
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    assert main(run.import_args(tmp_path / "run")) == 0
    sealed = (tmp_path / "run" / "inputs" / "ap1-text.md").read_text(encoding="utf-8")
    assert sealed.startswith("The AP-1 text was not supplied when this run was imported")
    assert run.config["ap1_text_hash"] in sealed
    record = _json(tmp_path / "run" / "import" / "import-record.json")
    assert any("--no-ap1-text" in note for note in record["conversions"])


def test_text_and_no_text_together_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    args = run.import_args(tmp_path / "run", "--ap1-text", "x.md", "--no-ap1-text")
    assert main(args) == 2
    assert capsys.readouterr().err.startswith("error APC-USAGE")


def test_an_existing_run_directory_is_never_written_into(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    assert main(run.import_args(tmp_path / "run")) == 0
    before = (tmp_path / "run" / "transcript.jsonl").read_bytes()
    assert main(run.import_args(tmp_path / "run")) == 2
    assert (tmp_path / "run" / "transcript.jsonl").read_bytes() == before


def _summary(executions: list[Execution], outcomes: list[str]) -> dict[str, Any]:
    repeats: dict[tuple[str, str], int] = {}
    results = []
    for execution, outcome in zip(executions, outcomes, strict=True):
        key = (execution.condition, execution.item)
        repeats[key] = repeats.get(key, 0) + 1
        results.append(
            {
                "item_id": execution.item,
                "repeat": repeats[key],
                "transcription_outcome": outcome,
            }
        )
    return {"all_results": results}


def test_the_reference_summary_supplies_its_transcription_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executions = standard_executions()
    run = write_published_run(tmp_path, "run_e_mini", executions)
    outcomes = ["TRANSCRIBED-EXACT"] * 4 + ["TRANSCRIBED-ALTERED"]
    (run.folder / "smoke_summary.json").write_text(
        json.dumps(_summary(executions, outcomes)), encoding="utf-8"
    )
    assert main(run.import_args(tmp_path / "run")) == 0
    record = _json(tmp_path / "run" / "import" / "import-record.json")
    assert record["transcriptionVerdicts"] == "smoke_summary.json"
    assert main(["ap1", "compare-reference", str(tmp_path / "run")]) == 1
    assert _rows(tmp_path / "run")["D7.3 transcription"] == ("5", "4", "1", "0")
    document = _json(tmp_path / "run" / "comparison" / "reference-comparison.json")
    assert [
        (d["cellKey"], d["apconform"], d["reference"], d["classification"])
        for d in document["disagreements"]
    ] == [("instruction-removed/V2/1", "TRANSCRIBED-EXACT", "TRANSCRIBED-ALTERED", "unexplained")]
    assert "UNEXPLAINED" in capsys.readouterr().out


def test_a_summary_that_does_not_list_the_executions_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executions = standard_executions()
    run = write_published_run(tmp_path, "run_e_mini", executions)
    summary = _summary(executions, ["TRANSCRIBED-EXACT"] * 5)
    summary["all_results"][1]["repeat"] = 3
    (run.folder / "smoke_summary.json").write_text(json.dumps(summary), encoding="utf-8")
    assert main(run.import_args(tmp_path / "run")) == 2
    assert "all_results[1] is not the execution base/V1/2" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_compare_reference_classifies_each_disagreement_and_highlights_the_unexplained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    negated = grounded_v1(final="It is $3.25.")
    negated.calls.append(
        Call(
            3,
            "3.25 * -12",
            "-39.0",
            [("3.25", "intermediate", "net_interest"), ("-12", "constant_magnitude", None)],
            operation=("WRONG-OPERATION", None),
        )
    )
    executions = [
        negated,
        grounded_v2(),
        grounded_v1("instruction_removed", invocation="NOT-INVOKED"),
    ]
    run = write_published_run(tmp_path, "run_e_mini", executions)
    assert main(run.import_args(tmp_path / "run")) == 0
    capsys.readouterr()
    assert main(["ap1", "compare-reference", str(tmp_path / "run")]) == 1
    out = capsys.readouterr().out
    assert "1 disagreement(s) are UNEXPLAINED" in out
    assert _rows(tmp_path / "run")["D7.1 invocation"] == ("3", "2", "1", "0")
    assert _rows(tmp_path / "run")["D7.2(a) operand"] == ("16", "15", "1", "0")
    document = _json(tmp_path / "run" / "comparison" / "reference-comparison.json")
    assert [
        (d["dimension"], d["cellKey"], d["where"], d["classification"], d["cites"])
        for d in document["disagreements"]
    ] == [
        ("D7.2(a) operand", "base/V1/1", "call 3 operand -12", "documented-defect", "defect 24"),
        ("D7.2(a) call", "base/V1/1", "call 3", "documented-defect", "defect 24"),
        ("D7.1 invocation", "instruction-removed/V1/1", "execution", "unexplained", ""),
    ]
    markdown = (tmp_path / "run" / "comparison" / "reference-comparison.md").read_text("utf-8")
    assert (
        "- **UNEXPLAINED** instruction-removed/V1/1 D7.1 invocation, execution: apconform "
        "INVOKED, reference NOT-INVOKED" in markdown
    )


def test_compare_reference_refuses_a_run_that_was_not_imported(
    demo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = demo
    assert main(["ap1", "compare-reference", str(run_dir)]) == 2
    assert capsys.readouterr().err.startswith("error AP1-COMPARE-NOT-IMPORTED")


def test_an_imported_run_is_never_executed_or_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    assert main(run.import_args(tmp_path / "run")) == 0
    before = (tmp_path / "run" / "transcript.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["ap1", "run", "--resume", str(tmp_path / "run")]) != 0
    assert "AP1-RUN-IMPORTED" in capsys.readouterr().err
    assert (tmp_path / "run" / "transcript.jsonl").read_bytes() == before


def test_the_d2_cap_of_an_imported_run_is_worded_as_the_configuration_declares_it(
    tmp_path: Path,
) -> None:
    """Run A declares temperature platform-rejected, with another model's error as its detail."""
    run = write_published_run(tmp_path, "run_a_mini")
    assert main(run.import_args(tmp_path / "run")) == 0
    assert main(["ap1", "score", str(tmp_path / "run")]) == 0
    cap = _json(tmp_path / "run" / "report" / "score-report.json")["reproducibility"]["cap"]
    assert cap == (
        "D2 is capped at OBSERVED-ONLY because the configuration declares temperature (base, "
        "instruction-removed; declared detail: gpt-5.5 returned HTTP 400: Unsupported value: "
        "'temperature' does not support 0 with this model. Only the default (1) value is "
        "supported.) omitted as platform-rejected. This is the operator's declaration: the "
        "parameter was not sent, so no rejection of it was observed in this run."
    )
