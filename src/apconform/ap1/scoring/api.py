"""The scorer as a library over in-memory documents: for services, tests and notebooks.

``prepare_inputs`` checks the sealed inputs once (as the seal does) and
precomputes every item's traced values; ``score_execution`` then scores one
record in well under a millisecond, ``rescore`` turns a list of transcript
records into the full report, and ``rescore_bytes`` does the same from the
transcript file's bytes, checking each line's hash over its exact bytes as
``apconform ap1 rescore`` does (``transcript_lines`` splits those bytes into
the lines it feeds, for a caller that bounds their number first). Nothing here
reads or writes a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from apconform.ap1.inputs.plan import load_sealed_inputs
from apconform.ap1.inputs.sealed import SealedInputs
from apconform.ap1.scoring.adjudication.merged_document import Ap1Adjudication
from apconform.ap1.scoring.context import ScoringInputs, scoring_inputs
from apconform.ap1.scoring.execution import score_record
from apconform.ap1.scoring.rescoring import Rescorer, ScoreReport, rescore_records
from apconform.core.canonical import sha256_text

__all__ = ["prepare_inputs", "rescore", "rescore_bytes", "score_execution", "transcript_lines"]


def prepare_inputs(documents: Mapping[str, object]) -> ScoringInputs:
    """Check and prepare the sealed inputs: ``config``, ``fixture``, ``questions``,
    ``derivations`` and, optionally, ``ap1Text`` (checked against the configuration when given)."""
    return scoring_inputs(load_sealed_inputs(SealedInputs.from_mapping(documents)))


def _prepared(sealed_inputs: ScoringInputs | Mapping[str, object]) -> ScoringInputs:
    if isinstance(sealed_inputs, ScoringInputs):
        return sealed_inputs
    return prepare_inputs(sealed_inputs)


def score_execution(
    record: Mapping[str, Any], sealed_inputs: ScoringInputs | Mapping[str, object]
) -> dict[str, Any]:
    """Score one execution record (a transcript record or its ``execution`` member).

    Pass a :class:`ScoringInputs` from :func:`prepare_inputs` when scoring many
    records; a mapping of documents is prepared on every call. Raises
    ``ApconformError`` (AP1-SCORE-RECORD) for a record that cannot be scored.
    """
    return score_record(record, _prepared(sealed_inputs)).to_json()


def _ap1_text_sha256(
    sealed_inputs: ScoringInputs | Mapping[str, object], ap1_text: str | None
) -> str | None:
    """The SHA-256 of the AP-1 text: ``ap1_text`` when given, else the mapping's ``ap1Text``."""
    if ap1_text is None and isinstance(sealed_inputs, Mapping):
        text = sealed_inputs.get("ap1Text")
        ap1_text = text if isinstance(text, str) else None
    return None if ap1_text is None else sha256_text(ap1_text)


def rescore(
    transcript_records: Iterable[Any],
    sealed_inputs: ScoringInputs | Mapping[str, object],
    *,
    seal: dict[str, Any] | None = None,
    adjudication: Ap1Adjudication | None = None,
    ap1_text: str | None = None,
) -> ScoreReport:
    """Re-score transcript records (parsed JSON objects, in file order) into the score report.

    With ``seal`` the report states whether the inputs' hashes equal the
    sealed ones; with a merged ``adjudication`` it folds in the agreed human
    marks. ``ap1_text`` is the AP-1 text the inputs were prepared with, for
    prepared inputs (a mapping of documents carries it as ``ap1Text``).
    """
    return rescore_records(
        transcript_records,
        _prepared(sealed_inputs),
        seal=seal,
        adjudication=adjudication,
        ap1_text_sha256=_ap1_text_sha256(sealed_inputs, ap1_text),
    )


def transcript_lines(transcript: bytes) -> list[bytes]:
    """The lines of a transcript file's bytes, without their newlines (a final one ends the
    last line; it does not start an empty one)."""
    lines = transcript.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def rescore_bytes(
    transcript: bytes | Iterable[bytes],
    sealed_inputs: ScoringInputs | Mapping[str, object],
    *,
    seal: dict[str, Any] | None = None,
    adjudication: Ap1Adjudication | None = None,
    ap1_text: str | None = None,
) -> ScoreReport:
    """Re-score a transcript given as the bytes of its JSON-lines file (or its lines).

    The report is the one ``apconform ap1 rescore`` writes for the same file,
    byte for byte: each line is hash-checked over its own bytes, so an edit
    that re-serialises a record identically still shows up. ``ap1_text`` is
    as for :func:`rescore`.
    """
    rescorer = Rescorer(
        _prepared(sealed_inputs),
        seal=seal,
        adjudication=adjudication,
        ap1_text_sha256=_ap1_text_sha256(sealed_inputs, ap1_text),
    )
    if isinstance(transcript, bytes):
        transcript = transcript_lines(transcript)
    for raw in transcript:
        rescorer.add_line(raw[:-1] if raw.endswith(b"\n") else raw)
    return rescorer.finish()
