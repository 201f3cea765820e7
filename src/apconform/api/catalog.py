"""What the conformance routes serve, loaded once per worker, beside serving.

The clause registry, every vector and the digests of the version report are
read and checked once, and the read-only answers serialised once. That takes
some 0.4 CPU-seconds a worker, so a worker does not wait for it before it
answers: :class:`LazyCatalog` loads it on a thread of its own after the first
request (or a second after the app is built, whichever comes first), and a
route that reads it waits for it. A broken installation is reported by those
routes (and logged once) instead of stopping the worker.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
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

__all__ = ["API_VERSION", "Catalog", "LazyCatalog", "vector_summary", "version_report"]

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


WARM_AFTER_SECONDS = 1.0
"""When nothing has asked for the catalog yet, it is loaded this long after the app is built
(a worker's own start-up first, then this work, so the two do not share the interpreter)."""


class LazyCatalog:
    """The worker's catalog, loaded once (thread-safe) on first use or by :meth:`warm`."""

    def __init__(self, load: Callable[[], Catalog] = Catalog.load) -> None:
        self._load = load
        self._lock = threading.Lock()  # the state below
        self._loading = threading.Lock()  # held while loading
        self._catalog: Catalog | None = None
        self._error: Exception | None = None
        self._timer: threading.Timer | None = None
        self._begun = False
        self._then: list[Callable[[], object]] = []

    @property
    def ready(self) -> Catalog | None:
        """The catalog if it is loaded, else None (without waiting)."""
        return self._catalog

    def get(self) -> Catalog:
        """The catalog, loading it (or waiting for the load under way) first."""
        if self._catalog is not None:
            return self._catalog
        with self._loading:
            with self._lock:
                self._begun = True
            if self._catalog is None and self._error is None:
                catalog: Catalog | None = None
                error: Exception | None = None
                try:
                    catalog = self._load()
                except Exception as failure:
                    error = failure
                    logging.getLogger("apconform.api").error(
                        "the clause registry and vectors could not be loaded: %s", failure
                    )
                with self._lock:
                    self._catalog, self._error = catalog, error
                    then, self._then = self._then, []
                for call in then:
                    call()
            if self._error is not None:
                raise self._error
            assert self._catalog is not None
            return self._catalog

    def warm(self, after: float = WARM_AFTER_SECONDS) -> None:
        """Load on a daemon thread ``after`` seconds from now, or sooner if already planned
        later (errors wait for :meth:`get`)."""
        with self._lock:
            if self._begun or self._catalog is not None or self._error is not None:
                return
            if self._timer is not None:
                if after > 0:
                    return
                self._timer.cancel()  # a request came first: load now
            self._timer = threading.Timer(after, self._quietly)
            self._timer.daemon = True
            self._timer.name = "apconform-catalog"
            self._timer.start()

    def when_loaded(self, then: Callable[[], object]) -> None:
        """Call ``then`` once the catalog is loaded (now, if it is)."""
        with self._lock:
            if self._catalog is None and self._error is None:
                self._then.append(then)
                return
        then()

    def _quietly(self) -> None:
        with contextlib.suppress(Exception):  # logged by get(); the routes report it
            self.get()
