"""Trust is explicit: a named key replaces the published TEST key, and outputs say which verified.

Finding 1 of the trust review: a copy of the vectors, one vector changed and
the manifest re-signed with the published TEST key, verified and was used by
`check` although the user had named another key.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from apconform.cli import main
from apconform.core.signing import generate_key_file

from .conftest import DIRECT, REPO

TEST_KEY = "bf5a2b8310cf77bfa31a77d46cf7070754307ece3d1bea496751fc3964cbc662"
TEST_KEY_WORDS = "verified against the kit's published TEST key"


def _tampered(tmp_path: Path) -> Path:
    """The kit's vectors with one expected answer changed, re-signed with the TEST key."""
    folder = tmp_path / "vectors"
    shutil.copytree(REPO / "vectors", folder)
    target = folder / "kit/canonical/kit-jcs-negative-zero.json"
    vector = json.loads(target.read_text(encoding="utf-8"))
    vector["description"] = "tampered: " + vector["description"]
    target.write_text(json.dumps(vector, indent=2) + "\n", encoding="utf-8")
    assert main(["vectors", "manifest", "--vectors", str(folder), "--test-key"]) == 0
    return folder


def test_a_named_key_replaces_the_published_test_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _tampered(tmp_path)
    other = generate_key_file(tmp_path / "mine.key").public_key_hex
    capsys.readouterr()
    assert main(["vectors", "verify", "--vectors", str(folder), "--trusted-key", other]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-SIG-UNTRUSTED")
    assert "ed25519:8da4323d423af321 is not among the trusted public keys" in err
    assert main(["check", "--impl", DIRECT, "--vectors", str(folder), "--trusted-key", other]) == 2
    assert "APC-SIG-UNTRUSTED" in capsys.readouterr().err
    trust_file = tmp_path / "trusted.txt"
    trust_file.write_text(f"# our release key\n{other} release 2026\n", encoding="utf-8")
    by_file = ["--trust-file", str(trust_file)]
    assert main(["vectors", "verify", "--vectors", str(folder), *by_file]) == 2
    assert "APC-SIG-UNTRUSTED" in capsys.readouterr().err


def test_with_no_key_named_the_test_key_is_trusted_and_the_output_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vectors", "verify"]) == 0
    out = capsys.readouterr().out
    assert TEST_KEY_WORDS in out and "not who vouched for it" in out
    assert main(["vectors", "verify", "--trusted-key", TEST_KEY]) == 0
    assert "verified against the trusted key ed25519:8da4323d423af321 (named by you)" in (
        capsys.readouterr().out
    )
    report = tmp_path / "report.jsonl"
    only = ["--only", "kit-jcs-negative-zero", "--format", "json"]
    assert main(["check", "--impl", DIRECT, *only, "--output", str(report)]) == 3  # partial
    assert TEST_KEY_WORDS in capsys.readouterr().err
    header = json.loads(report.read_text(encoding="utf-8").splitlines()[0])
    assert header["vectorManifestSigner"] == {
        "keyId": "ed25519:8da4323d423af321",
        "publicKey": TEST_KEY,
        "trust": "published-test-key",
    }


def test_a_trust_file_that_is_not_a_list_of_keys_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trust_file = tmp_path / "trusted.txt"
    trust_file.write_text("not-a-key\n", encoding="utf-8")
    assert main(["vectors", "verify", "--trust-file", str(trust_file)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-TRUST-FILE")
    assert "line 1: 'not-a-key' is not a public key" in err


def test_a_changed_manifest_names_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "vectors"
    shutil.copytree(REPO / "vectors", folder)
    target = folder / "kit/canonical/kit-jcs-negative-zero.json"
    target.write_text(target.read_text(encoding="utf-8").replace("zero", "nil"), encoding="utf-8")
    manifest = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:  # the listing edited to match, the signature left alone
        if entry["path"] == "kit/canonical/kit-jcs-negative-zero.json":
            from apconform.conformance.manifest import file_digest

            entry["sha256"] = file_digest(target)
    (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    assert main(["vectors", "verify", "--vectors", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-SIG-INVALID")
    assert (
        "files entry kit/canonical/kit-jcs-negative-zero.json differs from the kit's released "
        "manifest" in err
    )
