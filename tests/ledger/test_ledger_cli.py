"""Recording from the commands that produce results, and the `ledger` commands, as users do."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from result_samples import PLANTED, conformance_records, write_report

from apconform.cli import main
from apconform.core.signing import generate_key_file
from apconform.ledger import Ledger, verify_ledger

from .samples import apx_result

REFERENCE = "direct:apconform.conformance.reference:adapter"


def test_check_and_apx_evaluate_record_with_ledger(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_key_file(tmp_path / "me.key")
    args = ["check", "--impl", REFERENCE, "--protocol", "kit", "--format", "json"]
    args += ["--output", str(tmp_path / "r.jsonl"), "--ledger", location]
    assert main([*args, "--ledger-key", str(tmp_path / "me.key")]) == 0
    err = capsys.readouterr().err
    assert "as entry 1 (" in err and f"signed by {key.key_id}" in err
    request = tmp_path / "request.json"
    from apconform.apx.tutorial import tutorial_campaign

    manifest, run = tutorial_campaign()
    request.write_text(json.dumps({"manifest": manifest, "run": run}), encoding="utf-8")
    os.environ["APCONFORM_LEDGER"] = location  # the environment names the ledger too
    try:
        assert main(["apx", "evaluate", str(request)]) == 0
    finally:
        del os.environ["APCONFORM_LEDGER"]
    assert "as entry 2 (" in capsys.readouterr().err
    with Ledger.open(location) as ledger:
        kinds = [s["kind"] for s in ledger.summaries()]
        assert kinds == ["conformance-report", "apx-result"]
        assert verify_ledger(ledger).intact
        recorded = ledger.document(ledger.entry(1).entry["claim"]["documentSha256"])
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    assert recorded == [json.loads(line) for line in lines]  # the report file, as recorded


def test_record_list_show_diff_and_correct(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write_report(tmp_path / "v1.jsonl", conformance_records(name="impl", version="1"))
    bad = write_report(
        tmp_path / "v2.jsonl",
        conformance_records({PLANTED: "wrong-value"}, name="impl", version="2"),
    )
    assert main(["ledger", "record", str(good), "--ledger", location]) == 0
    assert main(["ledger", "record", str(bad), "--ledger", location]) == 0
    capsys.readouterr()
    assert main(["ledger", "diff", "1", "2", "--ledger", location]) == 1
    out = capsys.readouterr().out
    assert f"NEWLY FAILING  {PLANTED}  pass -> fail" in out
    assert out.splitlines()[-1].startswith("REGRESSION: 2 newly failing")
    assert main(["ledger", "record", str(good), "--ledger", location, "--reason", "x"]) == 2
    assert "APC-LEDGER-REASON" in capsys.readouterr().err
    args = ["ledger", "record", str(good), "--ledger", location, "--supersedes", "2"]
    assert main([*args, "--reason", "version 2 was built from the wrong branch"]) == 0
    capsys.readouterr()
    assert main(["ledger", "list", "--ledger", location, "--current", "--format", "json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [e["seq"] for e in listing["entries"]] == [1, 3]
    assert listing["headSeq"] == 3
    assert main(["ledger", "list", "--ledger", location]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "superseded by" in lines[1] and lines[-1].startswith("3 entries shown; head: entry 3")
    assert main(["ledger", "show", "3", "--ledger", location]) == 0
    shown = capsys.readouterr().out
    assert "reason       version 2 was built from the wrong branch" in shown
    assert main(["ledger", "show", "1", "--document", "--ledger", location]) == 0
    assert json.loads(capsys.readouterr().out)[0]["record"] == "header"


def test_submission_prints_a_signed_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_key_file(tmp_path / "k.key")
    result = tmp_path / "result.json"
    result.write_text(json.dumps(apx_result()), encoding="utf-8")
    assert main(["ledger", "submission", str(result), "--key", str(tmp_path / "k.key")]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["claim"]["signature"]["keyId"] == key.key_id
    assert body["claim"]["kind"] == "apx-result"
    made = datetime.fromisoformat(body["claim"]["createdAt"])  # dated now, inside the signature
    assert abs((datetime.now(UTC) - made).total_seconds()) < 120


def test_usage_and_input_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ledger", "list"]) == 2
    assert capsys.readouterr().err.startswith("error APC-LEDGER-LOCATION: no ledger given")
    assert main(["ledger", "list", "--ledger", str(tmp_path / "none.db")]) == 2
    assert capsys.readouterr().err.startswith("error APC-LEDGER-MISSING")
    secret = "postgresql+psycopg://someone:s3cret@127.0.0.1:1/db"
    assert main(["ledger", "list", "--ledger", secret]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-LEDGER-UNAVAILABLE") and "s3cret" not in err
    assert "Traceback" not in err
    assert main(["ledger"]) == 2


def test_ap1_score_records_the_profile(location: str, tmp_path: Path) -> None:
    from result_samples import ap1_run_dir

    output = tmp_path / "scored"
    assert (
        main(
            ["ap1", "score", str(ap1_run_dir()), "--output-dir", str(output), "--ledger", location]
        )
        == 0
    )
    with Ledger.open(location) as ledger:
        [summary] = ledger.summaries()
        document = ledger.document(summary["documentSha256"])
    assert (summary["kind"], summary["model"]) == ("ap1-score-report", "mock-mixed")
    assert document == json.loads((output / "score-report.json").read_text(encoding="utf-8"))
