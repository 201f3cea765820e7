"""Examples the kit's own runs make: documents that carry a time, a signature or a file's digest.

A conformance report, its signature and a diff of two reports; a ledger's entry
and export line; an imported reference run and its comparison; an AP-1 score
report and its signed anchor. No vector holds one: each is made here, when the
OpenAPI document is built, by running the code that makes it for a user, in a
temporary folder, on a shipped vector's input. What would differ between two
runs is fixed instead: the clock reads :data:`EXAMPLE_TIME`, durations are 0,
and signatures are made with :func:`example_key`, a throw-away key whose seed
is public (see :data:`EXAMPLE_KEY_LABEL`), so nobody should trust it. Every
example is therefore the same on every build.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from apconform.core.signing import Ed25519Key

__all__ = [
    "EXAMPLE_KEY_LABEL",
    "EXAMPLE_TIME",
    "REPORT_VECTORS",
    "example_key",
    "example_moment",
    "example_report",
    "run_example",
    "scratch",
]

EXAMPLE_TIME = "2026-01-01T00:00:00.000Z"
"""The time every example run's clock reads (records, ledger entries)."""

EXAMPLE_KEY_LABEL = "apconform OpenAPI example key: its seed is public, never trust it"
"""The seed of :func:`example_key` is the SHA-256 of these words."""

REPORT_VECTORS = ("kit-jcs-negative-zero", "kit-vec-id-differs")
"""The shipped vectors the example conformance reports check the reference implementation on."""

IMPORT_VECTOR = "ap1-imp-august-record"
"""The vector whose published reference documents the example import reads."""

SCORE_VECTOR = "ap1-rpt-transcript-anchor"
"""The vector whose sealed documents and transcript the example score report scores."""

LEDGER_VECTOR = "apx-claim-result-valid"
"""The vector whose APx result the example ledger records."""

_REFERENCE = "direct:apconform.conformance.reference:adapter"


def example_key() -> Ed25519Key:
    """The throw-away signing key of the examples (public seed: a signature proves nothing)."""
    return Ed25519Key(hashlib.sha256(EXAMPLE_KEY_LABEL.encode("utf-8")).digest())


def _fixed_clock() -> str:
    return EXAMPLE_TIME


def example_moment() -> datetime:
    """:data:`EXAMPLE_TIME` as a moment, for clocks that read one (the ledger's)."""
    return datetime.fromisoformat(EXAMPLE_TIME.replace("Z", "+00:00")).astimezone(UTC)


def _no_time() -> float:
    return 0.0


@contextmanager
def scratch() -> Iterator[Path]:
    """A temporary folder for one example run, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="apconform-example-") as folder:
        yield Path(folder)


def _suite_copy(folder: Path) -> Path:
    """A copy of :data:`REPORT_VECTORS` with a manifest of its own, signed with the test key."""
    from apconform.api.examples import shipped_vectors
    from apconform.conformance.clauses import load_clause_registry
    from apconform.conformance.manifest import build_manifest, load_vector_test_key
    from apconform.core.canonical import sha256_hex
    from apconform.core.files import load_path
    from apconform.resources import data_path

    shipped = data_path("vectors").resolve()
    copy = folder / "vectors"
    for vector in shipped_vectors():
        if vector.id in REPORT_VECTORS:
            target = copy / vector.path.resolve().relative_to(shipped)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(vector.path, target)
    schemas = {
        f"schemas/jsonschema/{path.name}": sha256_hex(load_path(path))
        for path in sorted(data_path("schemas", "jsonschema").glob("*.json"))
    }
    manifest = build_manifest(
        copy,
        clause_registry_digest=load_clause_registry().digest,
        schema_digests=schemas,
        key=load_vector_test_key(),
    )
    (copy / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return copy


def _check(copy: Path, only: list[str]) -> list[dict[str, Any]]:
    from apconform.conformance.runner import CheckOptions, run_check

    options = CheckOptions(impl=_REFERENCE, only=only)
    run = run_check(options, clock=_fixed_clock, timer=_no_time, copy=copy)
    return run.records


@cache
def _conformance() -> dict[str, Any]:
    """``apconform check --only`` of the reference on two vectors, signed; and a diff of it with
    the same check of the first vector alone."""
    from apconform.conformance.reports.formats import render, sign_report
    from apconform.core.files import load_path
    from apconform.results.diff import diff_files

    with scratch() as folder:
        copy = _suite_copy(folder)
        records = _check(copy, list(REPORT_VECTORS))
        report = folder / "report.jsonl"
        report.write_text(render(records, "json"), encoding="utf-8")
        signature = load_path(sign_report(report, "json", example_key()))
        earlier = folder / "earlier.jsonl"
        earlier.write_text(render(_check(copy, list(REPORT_VECTORS[:1])), "json"), "utf-8")
        diff = diff_files(earlier, report)
    return {
        "report": records,
        "report-header": records[0],
        "report-case": records[1],
        "report-footer": records[-1],
        "report-signature": signature,
        "result-diff": diff,
    }


@cache
def _ledger() -> dict[str, Any]:
    """An unsigned APx result recorded in a new ledger: the submission (its claim made at the
    example time, as ``apconform ledger submission`` writes it), the entry and the export line."""
    import io

    from apconform.api.examples import vector_input
    from apconform.ledger.claim import prepare
    from apconform.ledger.exchange import export_records
    from apconform.ledger.store import Ledger
    from apconform.results import ResultKind

    moment = example_moment()
    document = vector_input(LEDGER_VECTOR)["document"]
    out = io.StringIO()
    with (
        scratch() as folder,
        Ledger.open(folder / "ledger.db", create=True, clock=lambda: moment) as ledger,
    ):
        submission = prepare(ResultKind.APX_RESULT, document, created_at=moment)
        stored = ledger.append(submission)
        export_records(ledger, out)
    return {
        "ledger-submission": {"claim": submission.claim, "document": submission.document},
        "ledger-claim": submission.claim,
        "ledger-entry": stored.entry,
        "ledger-record": json.loads(out.getvalue()),
    }


@cache
def _imported() -> dict[str, Any]:
    """``apconform ap1 import-reference`` of a vector's published documents, and the comparison
    of the imported run with the reference's verdicts."""
    from apconform.ap1.importers.reference.comparison import compare_reference
    from apconform.ap1.importers.reference.run_import import (
        IMPORT_FILE,
        ReferenceSources,
        import_reference_run,
    )
    from apconform.ap1.inputs.sealed import SealedInputs
    from apconform.api.examples import vector_input
    from apconform.core.files import load_path

    value = vector_input(IMPORT_VECTOR)
    with scratch() as folder:
        published = folder / "reference"
        (published / "output").mkdir(parents=True)

        def put(name: str, document: Any) -> Path:
            path = published / name
            path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
            return path

        lines = "".join(json.dumps(record) + "\n" for record in value["records"])
        (published / "output" / "smoke_run.jsonl").write_text(lines, encoding="utf-8")
        sealed = SealedInputs.from_mapping(value)
        sources = ReferenceSources(
            output_folder=published / "output",
            fixture=put("fixture.json", sealed.fixture),
            questions=put("questions.json", sealed.questions),
            derivations=put("derivations.json", sealed.derivations),
            ap1_text=None,  # the vector's text is a stand-in, not the text the run hashed
            reference_config=put("config.json", sealed.config),
            reference_seal=put("seal-record.json", value["sealRecord"]),
        )
        run = import_reference_run(sources, folder / "run")
        record = load_path(run.run_dir / IMPORT_FILE)
        comparison = compare_reference(run.run_dir).document
    return {"ap1-import-record": record, "ap1-reference-comparison": comparison}


@cache
def _scored() -> dict[str, Any]:
    """The score report of a vector's transcript, and its anchor signed with the example key."""
    from apconform.ap1.scoring.anchor import write_score_anchor
    from apconform.ap1.scoring.api import rescore
    from apconform.api.examples import vector_input
    from apconform.core.files import load_path

    value = vector_input(SCORE_VECTOR)
    report = rescore(value["records"], value, seal=value.get("seal"))
    with scratch() as folder:
        (folder / "score-report.json").write_text(report.json_text(), encoding="utf-8")
        anchor = load_path(write_score_anchor(folder, report.document, example_key()))
    return {"ap1-score-report": report.document, "ap1-score-anchor": anchor}


def example_report() -> list[dict[str, Any]]:
    """The records of the example check (header, a case per vector, footer), on the fixed clock."""
    records: list[dict[str, Any]] = _conformance()["report"]
    return records


_SOURCES: dict[str, tuple[str, Any]] = {
    "report-header": (f"check-of-{len(REPORT_VECTORS)}-vectors", _conformance),
    "report-case": (f"check-of-{len(REPORT_VECTORS)}-vectors", _conformance),
    "report-footer": (f"check-of-{len(REPORT_VECTORS)}-vectors", _conformance),
    "report-signature": (f"check-of-{len(REPORT_VECTORS)}-vectors", _conformance),
    "result-diff": (f"check-of-1-then-{len(REPORT_VECTORS)}-vectors", _conformance),
    "ledger-submission": (f"submission-of-{LEDGER_VECTOR}", _ledger),
    "ledger-claim": (f"claim-of-{LEDGER_VECTOR}", _ledger),
    "ledger-entry": (f"ledger-of-{LEDGER_VECTOR}", _ledger),
    "ledger-record": (f"ledger-of-{LEDGER_VECTOR}", _ledger),
    "ap1-import-record": (f"import-of-{IMPORT_VECTOR}", _imported),
    "ap1-reference-comparison": (f"import-of-{IMPORT_VECTOR}", _imported),
    "ap1-score-report": (f"score-of-{SCORE_VECTOR}", _scored),
    "ap1-score-anchor": (f"score-of-{SCORE_VECTOR}", _scored),
}


def run_example(document: str) -> tuple[str, Any] | None:
    """The instance of ``document`` an example run makes, named after the run; None if none does.

    Names say what ran, and end in ``fixed-clock`` or ``example-key`` when the instance carries
    the fixed time or the example key's signature.
    """
    if document not in _SOURCES:
        return None
    name, make = _SOURCES[document]
    instance = make()[document]
    return f"{name}{_marks(instance)}", instance


def _marks(instance: Any) -> str:
    text = json.dumps(instance)
    marks = ""
    if EXAMPLE_TIME in text:
        marks += "-fixed-clock"
    if example_key().public_key_hex in text or example_key().key_id in text:
        marks += "-example-key"
    return marks
