"""Kit-level subcommands: demo, validate, canonicalize, hash, key, sign, verify."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

from apconform.cli.convention import format_names
from apconform.cli.shared import print_json, read_document, trust_arguments
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
    from apconform.core.errors import DocumentRefused
    from apconform.core.validation import validate_document

    model = _document_model(args.type)
    if len(args.file) > 1:
        return _validate_each(model, args.type, args.file, as_json=args.format == "json")
    document = read_document(args.file[0])
    if args.format == "text":
        validate_document(model, document, what=f"{args.type} document")
        print(f"valid {args.type} document")
        return 0
    try:
        validate_document(model, document, what=f"{args.type} document")
    except DocumentRefused as refused:
        sys.stderr.write(f"refused: {len(refused.violations)} violation(s)\n")
        print_json(
            {
                "valid": False,
                "type": args.type,
                "violations": [v.to_dict() for v in refused.violations],
            }
        )
        return refused.exit_status
    print_json({"valid": True, "type": args.type, "violations": []})
    return 0


def _validate_each(model: Any, kind: str, files: list[str], *, as_json: bool) -> int:
    """Validate several files (as a pre-commit hook passes them), reporting each one.

    Every file is read and validated even after one fails, so one run lists every
    fault; the exit status is the worst of the files' (2 input error, 1 refused).
    """
    from apconform.core.errors import ApconformError, DocumentRefused
    from apconform.core.validation import validate_document

    worst = 0
    results: list[dict[str, Any]] = []
    for name in files:
        result: dict[str, Any] = {"file": name, "valid": False, "type": kind, "violations": []}
        try:
            validate_document(model, read_document(name), what=f"{kind} document")
        except DocumentRefused as refused:
            result["violations"] = [v.to_dict() for v in refused.violations]
            sys.stderr.write(f"{name}: refused: {len(refused.violations)} violation(s)\n")
            for v in refused.violations:
                sys.stderr.write(f"  {v.code} at {v.path}: {v.message}\n")
            worst = max(worst, refused.exit_status)
        except ApconformError as error:
            result["error"] = error.to_dict()
            sys.stderr.write(f"{name}: error {error.code}: {error.message}\n")
            worst = max(worst, error.exit_status)
        else:
            result["valid"] = True
            if not as_json:
                print(f"valid {kind} document: {name}")
        results.append(result)
    if as_json:
        print_json(results)
    return worst


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
        digest, method = sha256_text(_read_text_argument(args.file)), "text-lf"
    else:
        digest, method = sha256_hex(read_document(args.file)), "rfc8785"
    if args.format == "json":
        print_json({"sha256": digest, "method": method})
    else:
        print(digest)
    return 0


def _cmd_key_generate(args: argparse.Namespace) -> int:
    from apconform.core.signing import generate_key_file, key_id, public_key_hex

    key = generate_key_file(Path(args.path))
    public = public_key_hex(key)
    print_json({"path": args.path, "keyId": key_id(public), "publicKey": public})
    return 0


def _cmd_key_public(args: argparse.Namespace) -> int:
    from apconform.core.signing import load_signing_key

    print(load_signing_key(Path(args.path)).public_key_hex)
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


def _format_option(parser: argparse.ArgumentParser, json_help: str) -> None:
    parser.add_argument(
        "--format",
        choices=format_names("text", "json"),
        default="text",
        help=f"text (default) or {json_help}",
    )


def register(subparsers: Any) -> None:
    """Add the kit-level subcommands."""
    demo = subparsers.add_parser(
        "demo", help="run the kit's main job on built-in inputs (no network, no key)"
    )
    demo.add_argument(
        "--output-dir",
        help="where to write the demo's files (default: a new temporary folder, "
        "apconform-demo-XXXX under the system's temporary directory; its path is printed first)",
    )
    demo.set_defaults(handler=_cmd_demo)

    validate = subparsers.add_parser(
        "validate", help="validate a document against its schema, listing every violation"
    )
    validate.add_argument("--type", required=True, help="document type, e.g. vector")
    validate.add_argument(
        "file",
        nargs="+",
        metavar="FILE",
        help="JSON file, or - for stdin; several files are each validated and reported "
        "(how the pre-commit hook calls it), exit status the worst of theirs",
    )
    _format_option(
        validate,
        "json: {valid, type, violations} on standard output (for several files, a list of "
        "them, each with its file)",
    )
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
    _format_option(hash_, "json: {sha256, method}")
    hash_.set_defaults(handler=_cmd_hash)

    key = subparsers.add_parser("key", help="manage Ed25519 signing keys")
    key_sub = key.add_subparsers(dest="key_command", metavar="ACTION")
    generate = key_sub.add_parser("generate", help="create a new key file readable by you alone")
    generate.add_argument("path", help="where to write the key (refused if it exists)")
    generate.set_defaults(handler=_cmd_key_generate)
    public = key_sub.add_parser(
        "public",
        help="print a key file's public key (64 hex): what --trusted-key and trust files take",
    )
    public.add_argument("path", help="the key file")
    public.set_defaults(handler=_cmd_key_public)

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
