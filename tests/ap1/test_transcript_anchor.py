"""A transcript is anchored at both ends: a cut, emptied or re-chained one does not verify.

Finding 4 of the trust review: deleting the last line or the last 20 lines,
truncating the file, or rewriting a record and recomputing the chain all
verified ("chain verifies", exit 0), and `rescore` then said "identical".
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.transcript.chain import GENESIS, record_hash
from apconform.cli import main
from apconform.core.canonical import canonical_text
from apconform.core.signing import generate_key_file

from .runs import example_inputs, seal_run

QUIET = RunOptions(concurrency=4, progress=io.StringIO(), tty=False)


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of mock-correct (104 cells, 106 records), scored."""
    folder = tmp_path_factory.mktemp("anchored")
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(folder, mock.url, "mock-correct", repeats="1")
        assert not run_sealed(run_dir, QUIET).interrupted
    assert main(["ap1", "score", str(run_dir)]) == 0
    return run_dir


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(run_dir, target)
    return target


def _lines(run_dir: Path) -> list[str]:
    return (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def _rechain(records: list[dict[str, object]]) -> str:
    prev, out = GENESIS, []
    for record in records:
        record = {k: v for k, v in record.items() if k != "sha256"}
        record["prevSha256"] = prev
        record["sha256"] = prev = record_hash(record)
        out.append(canonical_text(record) + "\n")
    return "".join(out)


def _verify(run_dir: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["ap1", "verify-transcript", str(run_dir), *extra])
    return status, capsys.readouterr().out


def test_a_finished_run_verifies_anchored_and_scored(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _verify(scored, capsys)
    assert status == 0
    assert "anchored: the head names record 106, the last one, by its hash" in out
    assert "score report: the report scored exactly these 106 records" in out
    head = json.loads((scored / "transcript.head.json").read_text(encoding="utf-8"))
    assert (head["records"], head["lastKind"]) == ("106", "run-finished")
    report = json.loads((scored / "report/score-report.json").read_text(encoding="utf-8"))
    last = json.loads(_lines(scored)[-1])
    assert report["integrity"]["transcript"]["records"] == "106"
    assert report["integrity"]["transcript"]["headSha256"] == last["sha256"]


@pytest.mark.parametrize(
    ("keep", "expected"),
    [
        (105, "cut: the transcript ends at record 105 of 106; the run-finished record is missing"),
        (86, "cut: the transcript ends at record 86 of 106; the run-finished record is missing"),
        (0, "emptied: the transcript holds no record; its head says 106"),
    ],
)
def test_a_cut_or_emptied_transcript_does_not_verify(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], keep: int, expected: str
) -> None:
    run_dir = _copy(scored, tmp_path)
    (run_dir / "transcript.jsonl").write_text("".join(_lines(scored)[:keep]), encoding="utf-8")
    status, out = _verify(run_dir, capsys)
    assert status == 1
    assert expected in out
    assert f"the report scored 106 records; the transcript now holds {keep}" in out
    assert out.rstrip().endswith("transcript does NOT verify (exit status 1)")


def test_a_rewritten_and_rechained_transcript_does_not_verify_or_rescore_identical(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _copy(scored, tmp_path)
    records = [json.loads(line) for line in _lines(scored)]
    records[40]["recordedAt"] = "2020-01-01T00:00:00.000000Z"  # changes no score
    (run_dir / "transcript.jsonl").write_text(_rechain(records), encoding="utf-8")
    status, out = _verify(run_dir, capsys)
    assert status == 1
    assert "rewritten: record 106 (seq 105) hashes to" in out
    assert "the chain was recomputed after an edit" in out
    capsys.readouterr()
    assert main(["ap1", "rescore", str(run_dir)]) == 1
    out = capsys.readouterr().out
    assert f"THE TRANSCRIPT CHANGED since {run_dir / 'report'} was scored" in out
    assert "record 106 of the transcript now hashes to" in out
    assert "identical" not in out


def test_an_unfinished_run_has_its_own_exit_status(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _copy(scored, tmp_path)
    shutil.rmtree(run_dir / "report")
    records = [json.loads(line) for line in _lines(scored)][:50]  # a run that crashed
    (run_dir / "transcript.jsonl").write_text(_rechain(records), encoding="utf-8")
    head = json.loads((run_dir / "transcript.head.json").read_text(encoding="utf-8"))
    head.update(records="1", headSha256=json.loads(_rechain(records).splitlines()[0])["sha256"])
    head["lastKind"] = "run-started"
    (run_dir / "transcript.head.json").write_text(json.dumps(head), encoding="utf-8")
    status, out = _verify(run_dir, capsys)
    assert status == 3
    assert "records 2 to 50 follow the head" in out and "NOT FINISHED" in out
    assert out.rstrip().endswith("transcript verifies so far, unfinished (exit status 3)")


def test_an_older_transcript_verifies_as_unanchored(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _copy(scored, tmp_path)
    shutil.rmtree(run_dir / "report")
    (run_dir / "transcript.head.json").unlink()
    records = [json.loads(line) for line in _lines(scored)]
    for member in ("headFile", "credentialTransport", "endpointFailureLimit"):
        del records[0]["runStarted"][member]
    (run_dir / "transcript.jsonl").write_text(_rechain(records), encoding="utf-8")
    status, out = _verify(run_dir, capsys)
    assert status == 0
    assert "unanchored (older format)" in out
    assert _verify(run_dir, capsys, "--require-anchor")[0] == 1


def test_a_missing_head_of_a_new_transcript_is_a_fault(
    scored: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = _copy(scored, tmp_path)
    (run_dir / "transcript.head.json").unlink()
    status, out = _verify(run_dir, capsys)
    assert status == 1
    assert "the head file transcript.head.json is missing" in out


def test_a_signed_head_and_a_signed_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_key_file(tmp_path / "run.key")
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(tmp_path, mock.url, "mock-no-tool", repeats="1")
        sign = ["--sign-with", str(tmp_path / "run.key")]
        assert main(["ap1", "run", "--output-dir", str(run_dir), *sign]) == 0
    assert main(["ap1", "score", str(run_dir), *sign]) == 0
    assert (run_dir / "report/score-report.sig.json").is_file()
    trusted = ["--trusted-key", key.public_key_hex]
    status, out = _verify(run_dir, capsys, *trusted)
    assert status == 0
    assert f"head signature: verified against the trusted key {key.key_id}" in out
    assert f"signed anchor verified against the trusted key {key.key_id}" in out
    status, out = _verify(run_dir, capsys)  # no key named: only the TEST key is trusted
    assert status == 1 and "only the kit's published TEST key is trusted" in out
    head = json.loads((run_dir / "transcript.head.json").read_text(encoding="utf-8"))
    del head["signature"]  # an unsigned head where a signed one is expected
    (run_dir / "transcript.head.json").write_text(json.dumps(head), encoding="utf-8")
    status, out = _verify(run_dir, capsys, *trusted)
    assert status == 1 and "the head is not signed, but trusted keys were named" in out
