"""What the clause-quoting suite (``conformance/``) needs at run time.

One :class:`ConformanceSession` per pytest session verifies the vector
manifest, starts the implementation once and sends each vector once (a vector
citing several clauses is answered once and judged under each). A
:class:`ConformanceCase` is one (clause, vector) pair; ``check()`` passes,
skips with the implementation's reason, or fails with the reason and the
command that reproduces the case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from apconform.conformance.adapters.targets import open_adapter
from apconform.conformance.clauses import ClauseIndex, load_clause_registry
from apconform.conformance.manifest import verify_manifest
from apconform.conformance.protocol import Reply
from apconform.conformance.reports.text import case_reason
from apconform.conformance.runner import CheckOptions, case_record, is_negative
from apconform.conformance.summary import EXECUTED, clause_branches, must_clauses
from apconform.conformance.vectors import LoadedVector, load_vectors
from apconform.conformance.xfail import ExpectedFailures
from apconform.core.trust import trust_anchors
from apconform.models.conformance import Implementation
from apconform.resources import data_path

__all__ = ["ConformanceCase", "ConformanceSession"]


@dataclass
class ConformanceSession:
    """The implementation under test and the vectors, shared by every clause test."""

    options: CheckOptions
    clauses: ClauseIndex = field(default_factory=load_clause_registry)
    vectors: list[LoadedVector] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    _implementation: Implementation | None = None
    _adapter: Any = None

    def __post_init__(self) -> None:
        root = self.root
        verify_manifest(
            root,
            self.clauses,
            anchors=trust_anchors(self.options.trusted_keys, self.options.trust_file),
        )
        wanted = set(self.options.protocols or ["apx", "ap1", "kit"])
        self.vectors = [
            v for v in load_vectors(root, clauses=self.clauses) if v.vector.protocol in wanted
        ]

    @property
    def root(self) -> Path:
        return self.options.vectors_dir or data_path("vectors")

    def vectors_for(self, clause_id: str) -> list[LoadedVector]:
        return [v for v in self.vectors if clause_id in v.vector.clauses]

    def implementation(self) -> Implementation:
        if self._implementation is None:
            self._adapter = open_adapter(
                self.options.impl, validate_protocol=self.options.validate_protocol
            )
            operations = sorted({v.vector.operation for v in self.vectors})
            self._implementation = self._adapter.start(self.options.timeout, operations)
        return self._implementation

    def record(self, vector: LoadedVector) -> dict[str, Any]:
        """The report record of one vector, sending it to the implementation at most once."""
        if vector.id not in self.records:
            implementation = self.implementation()
            if vector.vector.operation not in implementation.operations:
                reply = Reply("skipped", reason=f"operation {vector.vector.operation} not listed")
            else:
                reply = self._adapter.run(
                    len(self.records) + 1,
                    vector.vector.operation,
                    vector.vector.input,
                    self.options.timeout,
                )
            self.records[vector.id] = case_record(
                len(self.records) + 1,
                vector,
                self.root,
                self.clauses,
                self.options,
                ExpectedFailures({}),
                reply,
                0.0,
            )
        return self.records[vector.id]

    def unexecuted_branches(self) -> list[str]:
        """MUST clause branches of claimed protocols with no executed vector (after the run).

        The rule of ``apconform check``: a clause's acceptance and refusal
        vectors are two branches, and each needs one executed vector.
        """
        if self._implementation is None:
            return []
        claimed = {str(p) for p in self._implementation.protocols}
        claimed &= {v.vector.protocol for v in self.vectors}
        cases = [
            {
                "clauses": v.vector.clauses,
                "negative": is_negative(v),
                "outcome": self.records[v.id]["outcome"] if v.id in self.records else "skipped",
            }
            for v in self.vectors
            if v.vector.protocol in claimed
        ]
        gaps = []
        for protocol in sorted(claimed):
            branches = clause_branches(cases, must_clauses(self.clauses, protocol))
            gaps += [
                f"{clause} ({name})"
                for clause, per_clause in branches.items()
                for name, mine in per_clause.items()
                if not any(case["outcome"] in EXECUTED for case in mine)
            ]
        return gaps

    def stop(self) -> None:
        if self._adapter is not None:
            self._adapter.stop()


@dataclass
class ConformanceCase:
    """One clause judged on one of its vectors (or on none: ``vector`` is None)."""

    session: ConformanceSession
    clause_id: str
    vector: LoadedVector | None

    def check(self) -> None:
        clause = self.session.clauses.get(self.clause_id)
        if clause is None:
            pytest.fail(f"{self.clause_id} is not in spec/clauses.json; regenerate the suite")
        if self.vector is None:
            if clause.untestable:
                pytest.skip(f"untestable: {clause.untestable}")
            if clause.level == "MUST":
                pytest.fail(f"no vector exercises the MUST clause {self.clause_id}")
            pytest.skip(f"no vector exercises the {clause.level} clause {self.clause_id}")
        assert self.vector is not None
        claimed = {str(p) for p in self.session.implementation().protocols}
        if self.vector.vector.protocol not in claimed:
            pytest.skip(f"the implementation does not claim {self.vector.vector.protocol}")
        record = self.session.record(self.vector)
        if record["outcome"] == "pass":
            return
        if record["outcome"] == "skipped":
            pytest.skip(case_reason(record))
        pytest.fail(
            f"{record['outcome']}: {case_reason(record)}\nreproduce: {record['reproduce']}",
            pytrace=False,
        )
