"""What the conformance routes serve, loaded once per worker when the app is built.

The clause registry, every vector and the digests of the version report are
read and checked at start-up, so a broken installation fails when the server
starts rather than on some later request, and the read-only answers are
serialised once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apconform import __version__
from apconform.api.problems import dump_json
from apconform.conformance.catalogue import vector_summary
from apconform.conformance.clauses import ClauseIndex, load_clause_registry
from apconform.conformance.operations import operation_names
from apconform.conformance.vectors import LoadedVector, load_vectors
from apconform.core.canonical import sha256_hex
from apconform.core.files import load_path
from apconform.core.schemas import document_names, schema_digest
from apconform.resources import data_path

__all__ = ["API_VERSION", "Catalog", "vector_summary", "version_report"]

API_VERSION = "v1"


def version_report(clauses: ClauseIndex) -> dict[str, Any]:
    """What ``GET /v1/version`` answers for this installation's data."""
    report: dict[str, Any] = {
        "kitVersion": __version__,
        "apiVersion": API_VERSION,
        "schemas": [{"document": name, "sha256": schema_digest(name)} for name in document_names()],
        "clauseRegistrySha256": clauses.digest,
    }
    manifest = data_path("vectors", "MANIFEST.json")
    if manifest.is_file():
        report["vectorManifestSha256"] = sha256_hex(load_path(manifest))
    report["operations"] = operation_names()
    return report


@dataclass
class Catalog:
    """The clause registry, the vectors by id, and the pre-serialised read-only answers."""

    clauses: ClauseIndex
    vectors: dict[str, LoadedVector]
    summaries: list[dict[str, Any]]
    version: dict[str, Any]
    serialized: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def load(cls) -> Catalog:
        clauses = load_clause_registry()
        loaded = load_vectors(clauses=clauses)
        catalog = cls(
            clauses=clauses,
            vectors={item.id: item for item in loaded},
            summaries=[vector_summary(item) for item in loaded],
            version=version_report(clauses),
        )
        catalog.serialized = {
            "health": dump_json({"status": "ok"}),
            "version": dump_json(catalog.version),
            "clauses": dump_json(clauses.registry.model_dump(mode="json", exclude_unset=True)),
            "vectors": dump_json({"count": len(loaded), "vectors": catalog.summaries}),
        }
        return catalog

    def select(
        self,
        *,
        protocol: str | None = None,
        clause: str | None = None,
        operation: str | None = None,
        tag: str | None = None,
    ) -> list[dict[str, Any]]:
        """The summaries matching every given filter."""
        return [
            summary
            for summary in self.summaries
            if (protocol is None or summary["protocol"] == protocol)
            and (clause is None or clause in summary["clauses"])
            and (operation is None or summary["operation"] == operation)
            and (tag is None or tag in summary.get("tags", ()))
        ]
