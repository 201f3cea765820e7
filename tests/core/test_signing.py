"""Ed25519 over canonical bytes: fixed vectors, tamper detection, key handling and secrecy."""

from __future__ import annotations

import copy
import hashlib
import os
import pickle
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apconform.core import (
    ApconformError,
    Ed25519Key,
    generate_key_file,
    key_id,
    load_signing_key,
    public_key_hex,
    sign_document,
    sign_value,
    verify_document,
    verify_value,
)

# RFC 8032 section 7.1, TEST 1: the secret seed and the public key it must give.
SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
KEY_ID = "ed25519:21fe31dfa154a261"
OTHER_SEED = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
OTHER_PUBLIC = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"

PAYLOAD = {"schemaVersion": "apx/0.1", "score": 0.8, "slots": ["a", "b"]}
# Computed once with PyNaCl 1.6.2 over b'{"schemaVersion":"apx/0.1","score":0.8,"slots":["a","b"]}'.
PAYLOAD_SIGNATURE = (
    "e46752da8f70d21352db21f2595a68119165113beedb02d3ed16451df49a8ce9"
    "90f5b7d8506af9a4fa5abcc20647988051dac4df6bd26b2b541d9b176b21de02"
)
POSIX = os.name == "posix"


@pytest.fixture
def key() -> Ed25519Key:
    return Ed25519Key(bytes.fromhex(SEED))


@pytest.fixture
def other_key() -> Ed25519Key:
    return Ed25519Key(bytes.fromhex(OTHER_SEED))


def refusal(action: Any, *args: Any, **kwargs: Any) -> ApconformError:
    with pytest.raises(ApconformError) as caught:
        action(*args, **kwargs)
    return caught.value


def assert_secret_absent(*texts: str) -> None:
    for text in texts:
        assert SEED not in text
        assert SEED[:16] not in text


# --- fixed vectors ----------------------------------------------------------------------


def test_fixed_seed_gives_the_rfc8032_public_key_and_a_fixed_key_id(key: Ed25519Key) -> None:
    assert public_key_hex(key) == PUBLIC
    assert key.key_id == KEY_ID
    assert key_id(PUBLIC) == "ed25519:" + hashlib.sha256(bytes.fromhex(PUBLIC)).hexdigest()[:16]
    assert Ed25519Key(bytes.fromhex(OTHER_SEED)).public_key_hex == OTHER_PUBLIC


def test_fixed_seed_and_payload_give_a_fixed_signature(key: Ed25519Key) -> None:
    assert sign_value(PAYLOAD, key) == {
        "algorithm": "ed25519",
        "keyId": KEY_ID,
        "publicKey": PUBLIC,
        "signature": PAYLOAD_SIGNATURE,
    }


def test_key_order_and_number_spelling_do_not_matter(key: Ed25519Key) -> None:
    reordered = {"slots": ["a", "b"], "score": 8e-1, "schemaVersion": "apx/0.1"}
    assert sign_value(reordered, key)["signature"] == PAYLOAD_SIGNATURE
    verify_value(reordered, sign_value(PAYLOAD, key))


# --- tampering --------------------------------------------------------------------------


def test_one_changed_payload_byte_is_detected(key: Ed25519Key) -> None:
    signature = sign_value(PAYLOAD, key)
    tampered = {**PAYLOAD, "slots": ["a", "c"]}
    error = refusal(verify_value, tampered, signature)
    assert error.code == "APC-SIG-INVALID"
    assert error.path == "$.signature"


@pytest.mark.parametrize("byte_index", [0, 31, 32, 63])
def test_one_flipped_signature_byte_is_detected(key: Ed25519Key, byte_index: int) -> None:
    signature = sign_value(PAYLOAD, key)
    raw = bytearray(bytes.fromhex(signature["signature"]))
    raw[byte_index] ^= 0x01
    error = refusal(verify_value, PAYLOAD, {**signature, "signature": raw.hex()})
    assert error.code == "APC-SIG-INVALID"


def test_wrong_key_id_is_detected(key: Ed25519Key) -> None:
    signature = {**sign_value(PAYLOAD, key), "keyId": "ed25519:0000000000000000"}
    error = refusal(verify_value, PAYLOAD, signature)
    assert error.code == "APC-SIG-KEY-ID"
    assert error.path == "$.keyId"
    assert KEY_ID in error.message


def test_substituted_public_key_with_matching_id_fails_verification(
    key: Ed25519Key, other_key: Ed25519Key
) -> None:
    signature = sign_value(PAYLOAD, key)
    swapped = {**signature, "publicKey": OTHER_PUBLIC, "keyId": other_key.key_id}
    assert refusal(verify_value, PAYLOAD, swapped).code == "APC-SIG-INVALID"


# --- trust ------------------------------------------------------------------------------


def test_untrusted_key_is_detected(key: Ed25519Key) -> None:
    signature = sign_value(PAYLOAD, key)
    error = refusal(verify_value, PAYLOAD, signature, trusted_public_keys=[OTHER_PUBLIC])
    assert error.code == "APC-SIG-UNTRUSTED"
    assert error.path == "$.publicKey"
    assert refusal(verify_value, PAYLOAD, signature, trusted_public_keys=[]).code == (
        "APC-SIG-UNTRUSTED"
    )


def test_trusted_key_passes(key: Ed25519Key) -> None:
    signature = sign_value(PAYLOAD, key)
    verify_value(PAYLOAD, signature, trusted_public_keys=iter([OTHER_PUBLIC, PUBLIC]))
    verify_value(PAYLOAD, signature, trusted_public_keys=PUBLIC)  # a single key as a str
    error = refusal(verify_value, PAYLOAD, signature, trusted_public_keys=OTHER_PUBLIC)
    assert error.code == "APC-SIG-UNTRUSTED"


def test_malformed_trusted_key_is_refused(key: Ed25519Key) -> None:
    error = refusal(
        verify_value, PAYLOAD, sign_value(PAYLOAD, key), trusted_public_keys=[PUBLIC.upper()]
    )
    assert error.code == "APC-KEY-PUBLIC"


def test_key_id_refuses_a_malformed_public_key() -> None:
    assert refusal(key_id, "abc").code == "APC-KEY-PUBLIC"


# --- malformed signature objects --------------------------------------------------------


def _without(signature: dict[str, str], field: str) -> dict[str, str]:
    return {name: value for name, value in signature.items() if name != field}


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda sig: ["not", "an", "object"], "$"),
        (lambda sig: _without(sig, "publicKey"), "$.publicKey"),
        (lambda sig: _without(sig, "algorithm"), "$.algorithm"),
        (lambda sig: {**sig, "comment": "hi"}, "$.comment"),
        (lambda sig: {**sig, "algorithm": "rsa"}, "$.algorithm"),
        (lambda sig: {**sig, "keyId": KEY_ID.upper()}, "$.keyId"),
        (lambda sig: {**sig, "publicKey": PUBLIC.upper()}, "$.publicKey"),
        (lambda sig: {**sig, "publicKey": PUBLIC[:-2]}, "$.publicKey"),
        (lambda sig: {**sig, "signature": sig["signature"][:-2]}, "$.signature"),
        (lambda sig: {**sig, "signature": 12}, "$.signature"),
    ],
)
def test_malformed_signature_objects_name_the_field(
    key: Ed25519Key, mutate: Any, path: str
) -> None:
    error = refusal(verify_value, PAYLOAD, mutate(sign_value(PAYLOAD, key)))
    assert error.code == "APC-SIG-MALFORMED"
    assert error.path == path


# --- documents --------------------------------------------------------------------------


def test_sign_document_signs_everything_but_the_signature_field(key: Ed25519Key) -> None:
    doc = {"b": 1, "a": [1, 2]}
    signed = sign_document(doc, key)
    assert "signature" not in doc
    assert signed == {"b": 1, "a": [1, 2], "signature": sign_value({"a": [1, 2], "b": 1}, key)}
    verify_document(signed, trusted_public_keys=[PUBLIC])
    assert sign_document(signed, key) == signed  # re-signing ignores the old signature


def test_tampered_document_is_detected(key: Ed25519Key) -> None:
    signed = sign_document({"a": [1, 2]}, key)
    tampered = copy.deepcopy(signed)
    tampered["a"][0] = 9
    error = refusal(verify_document, tampered)
    assert error.code == "APC-SIG-INVALID"
    assert error.path == "$.signature.signature"


def test_document_paths_are_under_the_signature_field(key: Ed25519Key) -> None:
    signed = sign_document({"a": 1}, key, field="seal")
    verify_document(signed, field="seal")
    signed["seal"]["keyId"] = "ed25519:ffffffffffffffff"
    error = refusal(verify_document, signed, field="seal")
    assert error.code == "APC-SIG-KEY-ID"
    assert error.path == "$.seal.keyId"


def test_document_without_signature() -> None:
    error = refusal(verify_document, {"a": 1})
    assert error.code == "APC-SIG-MISSING"
    assert error.path == "$.signature"
    error = refusal(verify_document, [1, 2])
    assert error.code == "APC-SIG-MISSING"
    assert error.path == "$"


# --- key files, environment, secrecy ----------------------------------------------------


def write_key(path: Path, text: str, mode: int) -> Path:
    path.write_text(text, encoding="ascii")
    path.chmod(mode)
    return path


@pytest.mark.skipif(not POSIX, reason="POSIX permission bits")
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o620])
def test_key_file_open_to_others_is_refused(tmp_path: Path, mode: int) -> None:
    path = write_key(tmp_path / "signing.key", SEED + "\n", mode)
    error = refusal(load_signing_key, path)
    assert error.code == "APC-KEY-PERMISSIONS"
    assert error.hint == f"Restrict the file to its owner: chmod 600 {path}"
    assert f"{mode:04o}" in error.message
    assert_secret_absent(str(error), repr(error), error.hint)


@pytest.mark.skipif(not POSIX, reason="POSIX permission bits")
def test_key_file_with_mode_0600_is_accepted(tmp_path: Path) -> None:
    path = write_key(tmp_path / "signing.key", SEED + "\n", 0o600)
    loaded = load_signing_key(path)
    assert loaded.public_key_hex == PUBLIC
    assert load_signing_key(str(path)).key_id == KEY_ID


@pytest.mark.parametrize(
    "text",
    [SEED[:-1], SEED + "0", SEED.upper(), SEED[:-1] + "g", "", "\u00e9" * 64],
)
def test_malformed_key_file_never_echoes_its_content(tmp_path: Path, text: str) -> None:
    path = tmp_path / "signing.key"
    path.write_bytes(text.encode("utf-8"))
    path.chmod(0o600)
    error = refusal(load_signing_key, path)
    assert error.code == "APC-KEY-MALFORMED"
    assert_secret_absent(str(error), repr(error), error.hint)
    assert SEED[:-1] not in str(error)


def test_missing_key_file(tmp_path: Path) -> None:
    assert refusal(load_signing_key, tmp_path / "none.key").code == "APC-FILE-NOT-FOUND"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    monkeypatch.delenv("APCONFORM_SIGNING_KEY", raising=False)
    yield monkeypatch


def test_key_from_the_environment(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("APCONFORM_SIGNING_KEY", SEED + "\n")
    assert load_signing_key().public_key_hex == PUBLIC
    clean_env.setenv("MY_KEY", OTHER_SEED)
    assert load_signing_key(env_var="MY_KEY").public_key_hex == OTHER_PUBLIC


def test_no_key_anywhere(clean_env: pytest.MonkeyPatch) -> None:
    error = refusal(load_signing_key)
    assert error.code == "APC-KEY-MISSING"
    assert "APCONFORM_SIGNING_KEY" in error.message


def test_malformed_environment_key_is_not_echoed(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("APCONFORM_SIGNING_KEY", SEED[:-1])
    error = refusal(load_signing_key)
    assert error.code == "APC-KEY-MALFORMED"
    assert "environment variable APCONFORM_SIGNING_KEY" in error.message
    assert_secret_absent(str(error), repr(error), error.hint)
    assert SEED[:-1] not in str(error)


def test_key_repr_is_masked_and_the_key_cannot_be_pickled(key: Ed25519Key) -> None:
    assert repr(key) == f"Ed25519Key(key_id='{KEY_ID}', seed=<hidden>)"
    assert str(key) == repr(key)
    assert_secret_absent(repr(key), str(key), f"{key!r} {key}")
    with pytest.raises(TypeError):
        pickle.dumps(key)


def test_seed_of_the_wrong_length_is_refused() -> None:
    assert refusal(Ed25519Key, b"\x01" * 31).code == "APC-KEY-MALFORMED"


# --- generating keys --------------------------------------------------------------------


def test_generate_key_file_creates_a_private_loadable_key(tmp_path: Path) -> None:
    path = tmp_path / "new.key"
    previous = os.umask(0)  # even a permissive umask must not widen the mode
    try:
        created = generate_key_file(path)
    finally:
        os.umask(previous)
    text = path.read_text(encoding="ascii")
    assert len(text) == 65
    assert text.endswith("\n")
    assert int(text[:64], 16) >= 0
    if POSIX:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_signing_key(path).public_key_hex == created.public_key_hex
    assert sorted(os.listdir(tmp_path)) == ["new.key"]  # no temporary file left behind
    assert_secret_absent(repr(created))
    assert text[:64] not in repr(created)


def test_generate_key_file_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "existing.key"
    path.write_text("keep me", encoding="ascii")
    error = refusal(generate_key_file, path)
    assert error.code == "APC-KEY-EXISTS"
    assert path.read_text(encoding="ascii") == "keep me"
    assert sorted(os.listdir(tmp_path)) == ["existing.key"]


@pytest.mark.skipif(not POSIX, reason="symlinks need privileges elsewhere")
def test_generate_key_file_refuses_a_dangling_symlink(tmp_path: Path) -> None:
    link = tmp_path / "link.key"
    link.symlink_to(tmp_path / "nowhere")
    assert refusal(generate_key_file, link).code == "APC-KEY-EXISTS"
    assert not (tmp_path / "nowhere").exists()


def test_generate_key_file_in_a_missing_directory(tmp_path: Path) -> None:
    error = refusal(generate_key_file, tmp_path / "absent" / "new.key")
    assert error.code == "APC-KEY-WRITE"


def test_two_generated_keys_differ(tmp_path: Path) -> None:
    first = generate_key_file(tmp_path / "one.key")
    second = generate_key_file(tmp_path / "two.key")
    assert first.public_key_hex != second.public_key_hex
