"""The seal: written before any request, verified component by component, and the reference's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.seal.build import build_seal, composite_hash, write_sealed_run
from apconform.ap1.seal.reference import reference_seal_hashes
from apconform.ap1.seal.verify import open_sealed_run, verify_seal
from apconform.core.canonical import sha256_hex, sha256_text
from apconform.core.errors import ApconformError
from apconform.core.signing import generate_signing_key

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "ap1" / "seal"
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


def _inputs(docs: dict[str, Any]) -> Any:
    return load_run_inputs(
        config=docs["config"],
        fixture=docs["fixture"],
        questions=docs["questions"],
        derivations=docs["derivations"],
        ap1_text=docs["ap1_text"],
    )


def test_the_seal_records_every_component(docs: dict[str, Any]) -> None:
    record = build_seal(_inputs(docs), sealed_at="2026-11-30T12:00:00.000000Z")
    assert record["inputs"]["fixture"] == {
        "sha256": sha256_hex(docs["fixture"]),
        "method": "jcs-sha256",
        "file": "inputs/fixture.json",
    }
    assert record["ap1"]["textSha256"] == sha256_text(docs["ap1_text"])
    assert record["ap1"]["textHashMethod"] == "sha256-utf8-lf"
    assert record["declared"]["quantisation"] == {"places": "2", "rounding": "ROUND_HALF_UP"}
    assert record["declared"]["arithmetic"] == {"precision": "34", "rounding": "ROUND_HALF_EVEN"}
    assert record["plan"]["cells"] == "204"
    assert record["evidence"] == {"ev3Implemented": False, "verificationKeys": []}
    q07 = next(c for c in record["declared"]["constants"] if c["itemId"] == "Q07")
    assert [c["value"] for c in q07["constants"]] == ["100", "4"]
    # The timestamp is outside the composite; everything else is inside.
    later = dict(record, sealedAt="2027-01-01T00:00:00.000000Z")
    assert composite_hash(later) == record["sealHash"]
    assert (
        composite_hash(dict(record, plan={**record["plan"], "repeats": "3"})) != record["sealHash"]
    )


def test_json_is_hashed_as_parsed_and_text_with_normalised_line_endings(
    docs: dict[str, Any],
) -> None:
    reordered = dict(reversed(list(docs["fixture"].items())))
    assert sha256_hex(reordered) == sha256_hex(docs["fixture"])
    crlf = docs["ap1_text"].replace("\n", "\r\n")
    docs_crlf = dict(docs, ap1_text=crlf)
    assert (
        build_seal(_inputs(docs_crlf))["ap1"]["textSha256"]
        == build_seal(_inputs(docs))["ap1"]["textSha256"]
    )


def test_a_sealed_run_verifies_and_names_each_edited_component(
    docs: dict[str, Any], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    write_sealed_run(run, _inputs(docs))
    assert verify_seal(run)[0] == []
    assert open_sealed_run(run).inputs.config.repeats == 2

    fixture_file = run / "inputs/fixture.json"
    fixture_file.write_text(fixture_file.read_text().replace("18450.00", "18450.01"))
    text_file = run / "inputs/ap1-text.md"
    text_file.write_text(text_file.read_text() + "x")
    findings, opened = verify_seal(run)
    assert opened is None
    components = [f.component for f in findings if f.fatal]
    assert components[:2] == ["inputs.fixture", "ap1.textSha256"]
    with pytest.raises(ApconformError) as caught:
        open_sealed_run(run)
    assert caught.value.code == "AP1-SEAL-BROKEN"


def test_an_edited_seal_record_is_named(docs: dict[str, Any], tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_sealed_run(run, _inputs(docs))
    seal_file = run / "seal.json"
    record = json.loads(seal_file.read_text())
    record["declared"]["tolerance"] = "0.5"
    seal_file.write_text(json.dumps(record))
    findings = [f.component for f in verify_seal(run)[0]]
    assert findings == ["sealHash", "declared"]


def test_a_signed_seal_verifies_and_a_tampered_one_does_not(
    docs: dict[str, Any], tmp_path: Path
) -> None:
    key = generate_signing_key()
    run = tmp_path / "run"
    record = write_sealed_run(run, _inputs(docs), sign_key=key)
    assert record["signature"]["keyId"] == key.key_id
    [note] = verify_seal(run, trusted_keys=[key.public_key_hex])[0]
    assert (note.component, note.fatal) == ("signature", False)
    assert f"verified against the trusted key {key.key_id} (named by you)" in note.message
    other = generate_signing_key()
    assert [f.component for f in verify_seal(run, trusted_keys=[other.public_key_hex])[0]] == [
        "signature"
    ]
    [untrusted] = verify_seal(run)[0]  # no key named: only the published TEST key is trusted
    assert untrusted.fatal and "only the kit's published TEST key is trusted" in untrusted.message
    record["sealedAt"] = "2020-01-01T00:00:00Z"  # outside the composite, inside the signature
    (run / "seal.json").write_text(json.dumps(record))
    [changed] = verify_seal(run, trusted_keys=[key.public_key_hex])[0]
    assert changed.component == "signature" and changed.fatal
    assert "does not match" in changed.message and "changed: sealedAt" in changed.message


def test_a_directory_that_holds_a_run_is_refused(docs: dict[str, Any], tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_sealed_run(run, _inputs(docs))
    with pytest.raises(ApconformError) as caught:
        write_sealed_run(run, _inputs(docs))
    assert caught.value.code == "AP1-RUN-EXISTS"
    assert "a run directory is never reused" in caught.value.message


@pytest.mark.parametrize("run", sorted(PUBLISHED_HASHES))
def test_the_four_published_reference_seals_reproduce(run: str) -> None:
    vector = json.loads((VECTORS / f"ap1-reference-seal-{run.replace('_', '-')}.json").read_text())
    config, printed = vector["input"]["config"], vector["input"]["sealRecord"]
    config_hash, seal_hash = PUBLISHED_HASHES[run]
    assert (printed["config_hash"], printed["seal_hash"]) == (config_hash, seal_hash)
    assert reference_seal_hashes(config, printed) == {
        "configHash": config_hash,
        "sealHash": seal_hash,
        "configHashMatchesRecord": True,
        "sealHashMatchesRecord": True,
    }


def test_the_reference_rule_refuses_floats() -> None:
    with pytest.raises(ApconformError) as caught:
        reference_seal_hashes({"answer_tolerance": 0.01}, {"seal_hash": "x"})
    assert (caught.value.code, caught.value.path) == ("AP1-REFERENCE-FLOAT", "$.answer_tolerance")
