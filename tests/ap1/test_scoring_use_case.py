"""AP-1 re-scoring has one library function per use case, and every face calls it (issue 28).

- Re-scoring an uploaded transcript: the API's score-transcript route checks the seal and
  the line bound, then makes one call to :func:`apconform.ap1.scoring.rescore_bytes` with
  its prepared (cached) inputs and the AP-1 text, so it answers what the library computes.
- Re-scoring a run directory: ``apconform ap1 rescore RUN_DIR`` calls
  :func:`apconform.ap1.scoring.rescore_run` and only renders its :class:`RescoreOutcome`
  (the comparison with the published report, the transcript change, the exit status).

Everything runs for real (the demo's run, the real app); the spies count calls and call
through.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import apconform.ap1.scoring as scoring
from apconform.ap1.inputs.sealed import SealedInputs
from apconform.ap1.scoring import (
    RescoreOutcome,
    prepare_inputs,
    rescore_bytes,
    rescore_run,
    transcript_lines,
)
from apconform.api import ApiSettings, create_app
from apconform.api.routes import ap1_scoring
from apconform.cli import main
from apconform.cli.ap1.scoring import print_rescore_outcome, print_scored
from apconform.core.files import load_path

RESCORE = "/v1/ap1/score-transcript"
LINES = 40
"""Transcript lines uploaded: the sealed documents and these fit in the 1 MiB body."""


class Spy:
    """Wraps a function, counts its calls and calls through."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.function(*args, **kwargs)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(ApiSettings())) as test_client:
        yield test_client


def _sealed(run_dir: Path) -> tuple[dict[str, object], str]:
    sealed = SealedInputs.from_run_dir(run_dir)
    assert sealed.ap1_text is not None
    return dict(sealed.documents()), sealed.ap1_text


def _transcript(run_dir: Path) -> bytes:
    data = (run_dir / "transcript.jsonl").read_bytes()
    return b"".join(line + b"\n" for line in transcript_lines(data)[:LINES])


def _body(run_dir: Path) -> dict[str, Any]:
    documents, text = _sealed(run_dir)
    return {
        **documents,
        "ap1Text": text,
        "seal": load_path(run_dir / "seal.json"),
        "transcript": _transcript(run_dir).decode("utf-8"),
    }


def _as_sent(document: Any) -> Any:
    return json.loads(json.dumps(document))


# --- the score-transcript route --------------------------------------------------------


def test_the_route_answers_what_the_library_computes(
    demo: tuple[Path, str], client: TestClient
) -> None:
    run_dir, _ = demo
    documents, text = _sealed(run_dir)
    seal = load_path(run_dir / "seal.json")
    expected = rescore_bytes(
        _transcript(run_dir), {**documents, "ap1Text": text}, seal=seal
    ).document
    reply = client.post(RESCORE, json=_body(run_dir))
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    assert answer == _as_sent(expected)
    assert int(answer["integrity"]["transcript"]["executions"]) > 0
    names = [entry["name"] for entry in answer["integrity"]["inputs"]]
    assert "ap1Text" in names


def test_prepared_inputs_take_the_ap1_text_as_a_parameter(demo: tuple[Path, str]) -> None:
    """What the route needs: prepared inputs and the AP-1 text give the mapping's report."""
    run_dir, _ = demo
    documents, text = _sealed(run_dir)
    transcript = _transcript(run_dir)
    prepared = prepare_inputs({**documents, "ap1Text": text})
    from_mapping = rescore_bytes(transcript, {**documents, "ap1Text": text}).document
    from_prepared = rescore_bytes(transcript, prepared, ap1_text=text).document
    assert from_prepared == from_mapping
    without_text = rescore_bytes(transcript, prepared).document
    assert without_text != from_mapping
    assert "ap1Text" not in [entry["name"] for entry in without_text["integrity"]["inputs"]]


def test_transcript_lines_drop_the_newlines_and_keep_an_empty_middle_line() -> None:
    assert transcript_lines(b"a\n\nb\n") == [b"a", b"", b"b"]
    assert transcript_lines(b"a\nb") == [b"a", b"b"]
    assert transcript_lines(b"") == []


def test_the_route_makes_one_library_call(
    demo: tuple[Path, str], client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, _ = demo
    spy = Spy(ap1_scoring.rescore_bytes)
    monkeypatch.setattr(ap1_scoring, "rescore_bytes", spy)
    assert client.post(RESCORE, json=_body(run_dir)).status_code == 200
    assert spy.calls == 1


def test_the_line_bound_is_checked_before_the_library_is_called(
    demo: tuple[Path, str], client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, _ = demo
    spy = Spy(ap1_scoring.rescore_bytes)
    monkeypatch.setattr(ap1_scoring, "rescore_bytes", spy)
    body = _body(run_dir)
    body["transcript"] = "\n" * (ap1_scoring.MAX_TRANSCRIPT_LINES + 1)
    reply = client.post(RESCORE, json=body)
    assert reply.status_code == 422
    problem = reply.json()
    assert (problem["code"], problem["path"]) == ("AP1-TRANSCRIPT-LINES", "$.transcript")
    assert problem["detail"] == "the transcript has 20,001 lines; the API re-scores at most 20,000"
    assert spy.calls == 0


# --- apconform ap1 rescore RUN_DIR ---------------------------------------------------------


def _rendered(outcome: RescoreOutcome) -> dict[str, Any]:
    """What the command prints with --format json for this outcome."""
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        print_scored(outcome.scored)
        print_rescore_outcome(outcome)
    return {
        "command": "ap1 rescore",
        "exitStatus": outcome.exit_status,
        "text": text.getvalue().splitlines(),
    }


def _cli_json(
    run_dir: Path, output: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    status = main(["ap1", "rescore", str(run_dir), "--output-dir", str(output), "--format", "json"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return status, document


@pytest.fixture
def run_copy(demo: tuple[Path, str], tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(demo[0], copy)
    return copy


def test_the_command_prints_the_library_outcome(
    run_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "again"
    outcome = rescore_run(run_copy, output)
    assert (outcome.compared, outcome.differ, outcome.transcript_change) == (True, (), None)
    assert outcome.exit_status == 0
    assert outcome.published == run_copy / "report"
    status, printed = _cli_json(run_copy, output, capsys)
    assert printed == _rendered(outcome)
    assert status == 0
    assert printed["text"][-1] == (
        f"  identical, byte for byte, to {run_copy / 'report'} (every report file)"
    )


def test_a_cut_transcript_is_a_change_and_a_finding(
    run_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = run_copy / "transcript.jsonl"
    lines = transcript_lines(transcript.read_bytes())
    transcript.write_bytes(b"".join(line + b"\n" for line in lines[:LINES]))
    output = tmp_path / "again"
    outcome = rescore_run(run_copy, output)
    assert outcome.transcript_change is not None
    assert f"the transcript now holds {LINES}" in outcome.transcript_change
    assert "score-report.json" in outcome.differ
    assert outcome.exit_status == 1
    status, printed = _cli_json(run_copy, output, capsys)
    assert printed == _rendered(outcome)
    assert status == 1


def test_a_run_without_a_published_report_has_nothing_to_compare(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(run_copy / "report")
    outcome = rescore_run(run_copy)
    assert outcome.scored.output_dir == run_copy / "rescore"
    assert (outcome.compared, outcome.differ, outcome.exit_status) == (False, (), 0)
    status, printed = _cli_json(run_copy, run_copy / "rescore", capsys)
    assert printed == _rendered(outcome)
    assert printed["text"][-1].endswith("holds no report")
    assert status == 0


def test_the_command_calls_the_library_function(
    run_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(scoring.rescore_run)
    monkeypatch.setattr(scoring, "rescore_run", spy)
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["ap1", "rescore", str(run_copy), "--output-dir", str(tmp_path / "again")])
    assert (status, spy.calls) == (0, 1)
