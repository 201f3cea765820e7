"""What the site shows, taken from one verification walk and derived from the documents.

The site never reads the stored index or the query columns: every name,
version, verdict and clause outcome on it is derived again from the result
document the signed claim names (:mod:`apconform.ledger.derivation`), while
the same walk verifies the chain. An entry whose document is missing,
altered or invalid is listed as such and left out of the matrix, the
histories and the profiles.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from apconform.ledger.chain import Verification, Visited, verify_ledger
from apconform.ledger.derivation import INDEX_FIELDS
from apconform.ledger.entry import StoredEntry
from apconform.ledger.matrix import history_document, matrix_column, matrix_document
from apconform.ledger.store import Ledger, entry_columns, entry_summary

__all__ = ["LedgerView", "SiteEntry", "view_ledger"]

_CONFORMANCE = "conformance-report"


@dataclass(frozen=True)
class SiteEntry:
    """One entry: its summary derived from its document (None when that cannot be read)."""

    seq: int
    digest: str
    entry: dict[str, Any] | None
    facts: dict[str, Any] | None
    summary: dict[str, Any] | None

    @property
    def current(self) -> bool:
        return self.summary is not None and not self.summary["supersededBy"]


@dataclass
class LedgerView:
    """The verification and every entry, as the site shows them."""

    verification: Verification
    entries: list[SiteEntry] = field(default_factory=list)

    def findings_of(self, seq: int) -> list[dict[str, Any]]:
        return [f for f in self.verification.findings if f["seq"] == seq]

    def shown(self, kind: str) -> list[SiteEntry]:
        """The entries of ``kind`` whose documents could be read, oldest first."""
        return [e for e in self.entries if e.summary is not None and e.summary["kind"] == kind]

    def protocols(self) -> list[str]:
        """The protocols some conformance report covers, sorted."""
        found = {p for e in self.shown(_CONFORMANCE) for p in (e.facts or {})["protocols"]}
        return sorted(found)

    def matrix(self, protocol: str) -> dict[str, Any]:
        """The ``LedgerMatrix`` of ``protocol``: each implementation's latest current report."""
        latest: dict[str, SiteEntry] = {}
        for item in self.shown(_CONFORMANCE):
            facts = item.facts or {}
            if item.current and protocol in facts["protocols"]:
                latest[facts["implementation"]["name"]] = item
        columns: list[dict[str, Any]] = []
        cells: list[tuple[int, str, str, str]] = []
        for position, name in enumerate(sorted(latest)):
            item = latest[name]
            facts, summary = item.facts or {}, item.summary or {}
            verdicts = {v["protocol"]: v["verdict"] for v in facts["verdicts"]}
            columns.append(
                matrix_column(
                    name,
                    facts["implementation"]["version"],
                    item.seq,
                    item.digest,
                    verdicts[protocol],
                    summary["recordedAt"],
                    summary.get("signer"),
                )
            )
            cells.extend(
                (position, c["clause"], c["level"], c["outcome"])
                for c in facts["clauses"]
                if c["protocol"] == protocol
            )
        return matrix_document(protocol, columns, cells)

    def implementations(self) -> list[str]:
        return sorted({(e.facts or {})["implementation"]["name"] for e in self.shown(_CONFORMANCE)})

    def history(self, name: str) -> list[dict[str, Any]]:
        """An implementation's conformance entries, each compared with the previous current one."""
        mine = [
            e for e in self.shown(_CONFORMANCE) if (e.facts or {})["implementation"]["name"] == name
        ]
        outcomes = {
            e.seq: {c["clause"]: c["outcome"] for c in (e.facts or {})["clauses"]} for e in mine
        }
        return history_document([e.summary for e in mine if e.summary is not None], outcomes)

    def profiles(self) -> list[SiteEntry]:
        """The latest current AP-1 score report of each subject (the model, and for a run
        imported from another harness such as Inspect AI, who ran it), by model."""
        latest: dict[str, SiteEntry] = {}
        for item in self.shown("ap1-score-report"):
            if item.current:
                latest[str((item.facts or {})["subject"])] = item
        return sorted(latest.values(), key=lambda e: (str((e.facts or {})["model"]), e.seq))

    def apx_results(self) -> list[SiteEntry]:
        return [e for e in self.shown("apx-result") if e.current]


def _summary(visited: Visited, superseded_by: list[str]) -> dict[str, Any] | None:
    if visited.entry is None or visited.facts is None:
        return None
    index = {name: visited.facts[name] for name in INDEX_FIELDS if name in visited.facts}
    derived = StoredEntry({**visited.entry, "index": index}, b"", visited.digest)
    columns = entry_columns(derived)
    columns["seq"] = visited.seq
    return entry_summary(columns, superseded_by)


def view_ledger(
    ledger: Ledger, *, trusted_keys: Iterable[str] | None = None, anchors: Iterable[str] = ()
) -> LedgerView:
    """Verify ``ledger`` and derive, from its documents, everything the site shows."""
    seen: list[Visited] = []
    report = verify_ledger(ledger, trusted_keys=trusted_keys, anchors=anchors, visitor=seen.append)
    later: dict[str, list[str]] = {}
    for visited in seen:
        for target in sorted(visited.superseded):
            later.setdefault(target, []).append(visited.digest)
    view = LedgerView(report)
    for visited in seen:
        summary = _summary(visited, later.get(visited.digest, []))
        view.entries.append(
            SiteEntry(visited.seq, visited.digest, visited.entry, visited.facts, summary)
        )
    return view
