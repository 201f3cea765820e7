"""The import record (``import/import-record.json``, schema class Ap1ImportRecord) and its parts.

What the import checked and did, as the import writes it: plain dicts at run
time, built key by key in the order the schema lists them.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = [
    "DroppedClaim",
    "GroundTruthCheck",
    "ImportCounts",
    "ImportRecord",
    "ImportSource",
    "ImportedClaims",
    "ImporterIdentity",
    "InputFileCheck",
    "PublishedHashes",
]


class ImportSource(TypedDict):
    """The instrument that made the run and what its seal record printed of its version."""

    instrument: str
    transcriptSha256: str
    runnerVersionTag: str | None
    runnerVersionCommit: str | None
    runnerSourceHash: str | None
    sealedAt: str | None


class ImporterIdentity(TypedDict):
    """The apconform that imported the run."""

    name: str
    version: str


class PublishedHashes(TypedDict):
    """The reference's own hashes, recomputed (an import requires both to match)."""

    configHash: str
    sealHash: str
    configHashMatches: bool
    sealHashMatches: bool


class InputFileCheck(TypedDict):
    """One supplied file against the hash the reference published for it."""

    input: str
    publishedSha256: str | None
    fileSha256: str | None
    matches: bool | None


class GroundTruthCheck(TypedDict):
    """One item's final as the reference recorded it beside the supplied derivation's."""

    itemId: str
    referenceFinal: str
    derivationFinal: str | None
    agrees: bool


class DroppedClaim(TypedDict):
    """A claimed dimension the imported configuration does not claim, and why."""

    dimension: str
    reason: str


class ImportedClaims(TypedDict):
    """The dimensions claimed before and after the import."""

    reference: list[str]
    imported: list[str]
    dropped: list[DroppedClaim]


class ImportCounts(TypedDict):
    """What the import read and wrote (counts as text)."""

    lines: str
    executions: str
    plannedCells: str
    recordedCells: str
    masked: str


class ImportRecord(TypedDict):
    """The import record."""

    schemaVersion: str
    source: ImportSource
    importer: ImporterIdentity
    publishedHashes: PublishedHashes
    inputChecks: list[InputFileCheck]
    groundTruthChecks: list[GroundTruthCheck]
    claims: ImportedClaims
    records: ImportCounts
    conversions: list[str]
    lacking: list[str]
    verdictsFile: str
    transcriptionVerdicts: str | None
