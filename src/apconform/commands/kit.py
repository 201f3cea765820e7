"""Kit-level subcommands: demo, validate, canonicalize, hash, key, sign, verify."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

from apconform.cli import print_json, read_document, trust_arguments
from apconform.core.errors import UsageError

__all__ = ["register"]


def _document_model(name: str) -> Any:
    from apconform.models import DOCUMENTS

    if name not in DOCUMENTS:
        raise UsageError(
            f"unknown document type {name!r}",
            hint=f"Use one of: {', '.join(sorted(DOCUMENTS))}.",
        )
    module, cls = DOCUMENTS[name]
    return getattr(importlib.import_module(f"apconform.models.{module}"), cls)


def _cmd_validate(args: argparse.Namespace) -> int:
    from apconform.core.validation import validate_document

    model = _document_model(args.type)
    validate_document(model, read_document(args.file), what=f"{args.type} document")
    print(f"valid {args.type} document")
    return 0


def _cmd_canonicalize(args: argparse.Namespace) -> int:
    from apconform.core.canonical import canonical_text

    sys.stdout.write(canonical_text(read_document(args.file)) + "\n")
    return 0


_TEXT_LIMIT = 64 * 1024 * 1024
"""The largest text `hash --text` reads (a standard's text or a derivation source is far less)."""


def _read_text_argument(source: str) -> str:
    from apconform.core.files import FILE_NOT_TEXT, read_stream, read_text

    if source != "-":
        return read_text(source, max_bytes=_TEXT_LIMIT, what="a text to hash")
    data = read_stream(sys.stdin.buffer, max_bytes=_TEXT_LIMIT, what="a text to hash")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        from apconform.core.errors import ApconformError

        raise ApconformError(
            FILE_NOT_TEXT, f"<stdin>: byte {exc.start} is not UTF-8 ({exc.reason})"
        ) from None


def _cmd_hash(args: argparse.Namespace) -> int:
    from apconform.core.canonical import sha256_hex, sha256_text

    if args.text:
        print(sha256_text(_read_text_argument(args.file)))
    else:
        print(sha256_hex(read_document(args.file)))
    return 0


def _cmd_key_generate(args: argparse.Namespace) -> int:
    from apconform.core.signing import generate_key_file, key_id, public_key_hex

    key = generate_key_file(Path(args.path))
    public = public_key_hex(key)
    print_json({"path": args.path, "keyId": key_id(public), "publicKey": public})
    return 0


def _cmd_sign(args: argparse.Namespace) -> int:
    from apconform.core.signing import load_signing_key, sign_document

    document = read_document(args.file)
    if not isinstance(document, dict):
        raise UsageError("only a JSON object can carry an attached signature")
    key = load_signing_key(Path(args.key) if args.key else None)
    print_json(sign_document(document, key, field=args.field))
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from apconform.core.errors import ApconformError
    from apconform.core.signing import SIG_INVALID
    from apconform.core.trust import trust_anchors, verify_trusted

    document = read_document(args.file)
    if not isinstance(document, dict):
        raise UsageError("only a JSON object can carry an attached signature")
    anchors = trust_anchors(args.trusted_key, args.trust_file)
    try:
        statement = verify_trusted(document, anchors, field=args.field)
    except ApconformError as error:
        if error.error_code is not SIG_INVALID:
            raise
        raise ApconformError(
            SIG_INVALID,
            error.message + "; which member changed cannot be determined: the signature covers "
            "the document as a whole",
            path=error.path,
        ) from None
    signature = document[args.field]
    print(f"signature valid: key {signature['keyId']}; {statement}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from apconform.demo import run_demo

    return run_demo(Path(args.output_dir) if args.output_dir else None)


def register(subparsers: Any) -> None:
    """Add the kit-level subcommands."""
    demo = subparsers.add_parser(
        "demo", help="run the kit's main job on built-in inputs (no network, no key)"
    )
    demo.add_argument(
        "--output-dir",
        help="where to write the demo's files (default: a new folder under ./apconform-demo/)",
    )
    demo.set_defaults(handler=_cmd_demo)

    validate = subparsers.add_parser(
        "validate", help="validate a document against its schema, listing every violation"
    )
    validate.add_argument("--type", required=True, help="document type, e.g. vector")
    validate.add_argument("file", help="JSON file, or - for stdin")
    validate.set_defaults(handler=_cmd_validate)

    canon = subparsers.add_parser(
        "canonicalize", help="print the RFC 8785 canonical form of a JSON document"
    )
    canon.add_argument("file", help="JSON file, or - for stdin")
    canon.set_defaults(handler=_cmd_canonicalize)

    hash_ = subparsers.add_parser(
        "hash", help="print the SHA-256 of a JSON document's canonical form"
    )
    hash_.add_argument("file", help="JSON file, or - for stdin")
    hash_.add_argument(
        "--text",
        action="store_true",
        help="hash the file as text with line endings normalised to LF",
    )
    hash_.set_defaults(handler=_cmd_hash)

    key = subparsers.add_parser("key", help="manage Ed25519 signing keys")
    key_sub = key.add_subparsers(dest="key_command", metavar="ACTION")
    generate = key_sub.add_parser("generate", help="create a new key file readable by you alone")
    generate.add_argument("path", help="where to write the key (refused if it exists)")
    generate.set_defaults(handler=_cmd_key_generate)

    sign = subparsers.add_parser(
        "sign", help="print a JSON object with an Ed25519 signature attached"
    )
    sign.add_argument("file", help="JSON file, or - for stdin")
    sign.add_argument("--key", help="key file (default: the APCONFORM_SIGNING_KEY variable)")
    sign.add_argument(
        "--field", default="signature", help="member that holds the signature (default: signature)"
    )
    sign.set_defaults(handler=_cmd_sign)

    verify = subparsers.add_parser("verify", help="verify a JSON object's attached signature")
    verify.add_argument("file", help="JSON file, or - for stdin")
    trust_arguments(verify)
    verify.add_argument(
        "--field", default="signature", help="member that holds the signature (default: signature)"
    )
    verify.set_defaults(handler=_cmd_verify)
