"""What a ledger admits, on both backends: each result once, in time order, from its bound key;
and what verification and import find when a copy breaks those rules."""

from __future__ import annotations

import copy
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.core.errors import ApconformError
from apconform.core.signing import generate_signing_key
from apconform.ledger import Ledger, export_records, import_records, prepare, verify_ledger
from apconform.ledger.admission import Admission
from apconform.ledger.claim import make_claim
from apconform.results import ResultKind

from .samples import CLAIMS, PLANTED, apx, apx_result, conformance
from .tampering import forged_ledger


def _export(ledger: Ledger) -> list[bytes]:
    out = io.StringIO()
    export_records(ledger, out)
    return [line.encode("utf-8") for line in out.getvalue().splitlines()]


def test_the_same_claim_again_is_answered_with_its_entry(ledger: Ledger) -> None:
    submission = conformance("impl-a")
    first = ledger.append(submission)
    again = ledger.append(submission)
    assert (again.seq, again.digest, again.existing, first.existing) == (
        1,
        first.digest,
        True,
        False,
    )
    assert ledger.head().seq == 1
    with pytest.raises(ApconformError) as refused:  # the same document, claimed afresh
        ledger.append(
            prepare(ResultKind.CONFORMANCE_REPORT, submission.document, created_at=CLAIMS())
        )
    assert refused.value.code == "APC-LEDGER-DUPLICATE"
    assert refused.value.message.startswith("the ledger already holds this document as entry 1 (")
    assert ledger.head().seq == 1


def test_an_older_result_cannot_become_the_latest(ledger: Ledger) -> None:
    key = generate_signing_key()
    early = conformance("impl-a", "1", key=key)  # made first, submitted last
    late = ledger.append(conformance("impl-a", "2", {PLANTED: "wrong-value"}, key=key))
    with pytest.raises(ApconformError) as refused:
        ledger.append(early)
    assert refused.value.code == "APC-LEDGER-STALE"
    assert refused.value.message == (
        f"the latest conformance-report of 'impl-a' is entry 1 (created "
        f"{late.entry['claim']['createdAt']}); this result was created "
        f"{early.claim['createdAt']}, earlier, and does not supersede it"
    )
    ledger.append(conformance("impl-b", "1"))  # other subjects keep their own order
    corrected = ledger.append(
        prepare(
            ResultKind.CONFORMANCE_REPORT,
            early.document,
            key=key,
            supersedes=[late.digest],
            reason="version 2 was built from the wrong branch",
            created_at=CLAIMS.now - timedelta(hours=1),
        )
    )
    assert corrected.seq == 3  # a correction of the newer entry may be older
    assert verify_ledger(ledger, trusted_keys=None).intact


def test_a_claim_from_the_future_is_refused(ledger: Ledger) -> None:
    clock = ledger.clock()  # the ledger's clock reads 12:00:01 on 2026-12-01 here
    soon = apx_result("soon")
    fine = prepare(ResultKind.APX_RESULT, soon, created_at=clock + timedelta(minutes=4))
    assert ledger.append(fine).seq == 1
    later = prepare(
        ResultKind.APX_RESULT, apx_result("later"), created_at=clock + timedelta(hours=1)
    )
    with pytest.raises(ApconformError) as refused:
        ledger.append(later)
    assert refused.value.code == "APC-LEDGER-CREATED"
    undated = make_claim(ResultKind.APX_RESULT, later.document_sha256)
    with pytest.raises(ApconformError) as missing:
        ledger.append(type(later)(undated, later.kind, later.document, later.document_bytes))
    assert missing.value.message == "the claim does not say when it was made"


def test_a_bound_subject_takes_only_its_key_or_a_trusted_one(ledger: Ledger) -> None:
    owner, other, operator = generate_signing_key(), generate_signing_key(), generate_signing_key()
    server = Admission(rebind_keys=frozenset({operator.public_key_hex}))
    ledger.append(conformance("impl-a", "1", key=owner), admission=server)
    for key in (other, None):
        with pytest.raises(ApconformError) as refused:
            ledger.append(conformance("impl-a", "2", key=key), admission=server)
        assert refused.value.code == "APC-LEDGER-BOUND"
    ledger.append(conformance("impl-a", "3", key=owner), admission=server)
    ledger.append(conformance("impl-a", "4", key=operator), admission=server)
    with pytest.raises(ApconformError):
        ledger.append(conformance("impl-a", "5", key=owner), admission=server)
    assert [s["signer"] for s in ledger.summaries()] == [
        owner.key_id,
        owner.key_id,
        operator.key_id,
    ]


def test_a_replayed_entry_in_a_copy_is_found(ledger: Ledger, tmp_path: Path) -> None:
    key = generate_signing_key()
    ledger.append(conformance("impl-a", "1", {PLANTED: "wrong-value"}, key=key))
    ledger.append(conformance("impl-a", "2", key=key))
    lines = _export(ledger)
    old = json.loads(lines[0])
    replayed = copy.deepcopy(old)  # entry 1 again, after entry 2: the copy's latest is the old one
    replayed["entry"].update(seq=3, previous=json.loads(lines[1])["entrySha256"])
    replayed["entrySha256"] = sha256_bytes(canonical_bytes(replayed["entry"]))
    forged = [*lines, json.dumps(replayed).encode("utf-8")]
    with Ledger.open(tmp_path / "copy.db", create=True) as copy_ledger:
        with pytest.raises(ApconformError) as refused:
            import_records(copy_ledger, forged, trusted_keys=[key.public_key_hex])
        assert refused.value.code == "APC-LEDGER-STALE"
        assert refused.value.message.startswith(
            "line 3 (entry 3): the latest conformance-report of 'impl-a' is entry 2"
        )
        assert copy_ledger.head().seq == 0
    forged_ledger(tmp_path / "forged.db", forged)
    with Ledger.open(tmp_path / "forged.db") as opened:
        report = verify_ledger(opened, trusted_keys=[key.public_key_hex])
    assert [(f["seq"], f["code"]) for f in report.findings] == [(3, "APC-LEDGER-CHAIN-STALE")]


def test_rechain_imports_each_result_once(ledger: Ledger, tmp_path: Path) -> None:
    ledger.append(apx("one"))
    ledger.append(apx("two"))
    lines = _export(ledger)
    with Ledger.open(tmp_path / "other.db", create=True) as other:
        other.append(apx("mine"))
        first = import_records(other, lines, rechain=True)
        again = import_records(other, lines, rechain=True)
        assert (first.appended, first.skipped, again.appended, again.skipped) == (2, 0, 0, 2)
        assert other.head().seq == 3
        assert verify_ledger(other).intact
