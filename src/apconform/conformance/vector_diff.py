"""What changed between two vector sets, vector by vector and clause by clause.

``apconform vectors diff OLD NEW`` compares two vector folders (for example
two releases unpacked side by side) or two signed manifests. Folders are
compared document by document, so a changed vector names the members that
changed and, inside its expectation and input, every JSON Pointer that
differs with both values; manifests carry each vector's and each clause's
digest, so a changed vector is named with its clauses. Clauses are compared
when each side knows its registry: a manifest that lists the expectations, or
a folder with ``../spec/clauses.json`` beside it (as in a checkout).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.conformance.compare import json_equal, resolve_pointer
from apconform.conformance.manifest import MANIFEST_NAME
from apconform.conformance.releases import (
    clause_fingerprints,
    read_version,
    required_step,
    state_changes,
    vector_documents,
    vector_fingerprint,
)
from apconform.core.canonical import canonical_text
from apconform.core.errors import ApconformError, DocumentRefused, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.conformance import VectorManifest

__all__ = ["VectorSet", "diff_vector_sets", "read_vector_set", "render_vector_diff"]

DIFF_INPUT = define_code(
    "APC-VECTOR-DIFF-INPUT",
    "A side of a vector-set comparison cannot be read as a vector set",
    "Name a vector folder (holding <protocol>/<area>/<id>.json files) or a signed "
    "MANIFEST.json that lists the set's expectations; for a manifest made before vector sets "
    "were versioned, compare the two vector folders instead.",
)

_SHOWN = 20
"""Differences listed per changed member at most (the count says how many there are)."""


@dataclass(frozen=True)
class VectorSet:
    """One side of a comparison: its version, each vector's fingerprint and, from a folder,
    the documents; the clauses' fingerprints when the side knows its registry."""

    source: str
    version: str | None
    vectors: dict[str, dict[str, Any]]
    documents: dict[str, dict[str, Any]] | None
    clauses: list[dict[str, Any]] | None


def _manifest(path: Path) -> dict[str, Any]:
    document = load_path(path)
    try:
        validate_document(VectorManifest, document, what=f"vector manifest {path}")
    except DocumentRefused as refused:
        raise ApconformError(DIFF_INPUT, f"{path}: {refused.message}") from None
    manifest: dict[str, Any] = document
    return manifest


def read_vector_set(path: Path) -> VectorSet:
    """A vector folder or a manifest, read bounded."""
    if path.is_dir():
        documents = vector_documents(path)
        if not documents:
            raise ApconformError(
                DIFF_INPUT, f"{path} holds no vector (<protocol>/<area>/<id>.json)"
            )
        manifest = _manifest(path / MANIFEST_NAME) if (path / MANIFEST_NAME).is_file() else {}
        clauses: list[dict[str, Any]] | None = None
        if "expectations" in manifest:
            clauses = manifest["expectations"]["clauses"]
        elif (path.parent / "spec" / "clauses.json").is_file():
            registry = load_path(path.parent / "spec" / "clauses.json")
            clauses = clause_fingerprints(registry) if isinstance(registry, dict) else None
        return VectorSet(
            str(path),
            read_version(path) or manifest.get("vectorSetVersion"),
            {i: vector_fingerprint(doc) for i, (_, doc) in documents.items()},
            {i: doc for i, (_, doc) in documents.items()},
            clauses,
        )
    manifest = _manifest(path)
    if "expectations" not in manifest:
        raise ApconformError(
            DIFF_INPUT,
            f"{path} lists file digests only (it was made before manifests carried each "
            "vector's expectation), so its vectors cannot be compared one by one",
        )
    state = manifest["expectations"]
    return VectorSet(
        str(path),
        manifest.get("vectorSetVersion"),
        {v["id"]: v for v in state["vectors"]},
        None,
        state["clauses"],
    )


def _differences(member: str, old: Any, new: Any) -> list[dict[str, Any]]:
    """Where two values of a member differ, with both values; an array that grew or shrank
    lists each item it gained or lost."""
    found: list[dict[str, Any]] = []
    for m in json_equal(old, new):
        if m.reason == "array lengths differ":
            before, after = resolve_pointer(old, m.path), resolve_pointer(new, m.path)
            assert isinstance(before, list) and isinstance(after, list)
            for index in range(min(len(before), len(after)), max(len(before), len(after))):
                entry: dict[str, Any] = {"member": member, "path": f"{m.path}/{index}"}
                if index < len(before):
                    entry["before"] = before[index]
                if index < len(after):
                    entry["after"] = after[index]
                found.append(entry)
            continue
        entry = {"member": member, "path": m.path}
        if m.reason != "not expected":
            entry["before"] = m.expected
        if m.reason != "missing from the answer":
            entry["after"] = m.actual
        found.append(entry)
    return found


def _changed_detail(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The members of a vector that changed and, for each, where, with both values."""
    members = sorted(
        key
        for key in set(old) | set(new)
        if key not in ("description", "clauses")
        and (
            key not in old or key not in new or canonical_text(old[key]) != canonical_text(new[key])
        )
    )
    found: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for member in members:
        differences = _differences(member, old.get(member), new.get(member))
        counts[member] = len(differences)
        found.extend(differences[:_SHOWN])
    return {"members": members, "differenceCounts": counts, "differences": found}


def diff_vector_sets(old: VectorSet, new: VectorSet) -> dict[str, Any]:
    """Every vector added, removed or changed, and every clause too when both sides know them."""
    compared = old.clauses is not None and new.clauses is not None
    changes = state_changes(
        {"vectors": list(old.vectors.values()), "clauses": old.clauses if compared else []},
        {"vectors": list(new.vectors.values()), "clauses": new.clauses if compared else []},
    )
    if old.documents is not None and new.documents is not None:
        for entry in changes["vectorsChanged"]:
            entry.update(_changed_detail(old.documents[entry["id"]], new.documents[entry["id"]]))
    before = {c["id"]: c for c in old.clauses or []}
    after = {c["id"]: c for c in new.clauses or []}
    changes["clausesChanged"] = [
        {
            "id": clause_id,
            "what": [
                k
                for k in ("quoteSha256", "level", "status")
                if before[clause_id][k] != after[clause_id][k]
            ],
            "citedBy": sorted(i for i, v in new.vectors.items() if clause_id in v["clauses"]),
        }
        for clause_id in changes["clausesChanged"]
    ]
    return {
        "old": {"source": old.source, "version": old.version},
        "new": {"source": new.source, "version": new.version},
        "clausesCompared": compared,
        **changes,
        "requires": required_step(
            {**changes, "clausesChanged": [c["id"] for c in changes["clausesChanged"]]}
        ),
    }


def _value(difference: dict[str, Any], side: str) -> str:
    if side not in difference:
        return "(absent)"
    text = json.dumps(difference[side], ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def _clauses(ids: list[str]) -> str:
    return ", ".join(ids) or "no clause"


def render_vector_diff(diff: dict[str, Any]) -> str:
    """The comparison as text, one change per line, most consequential first."""
    old, new = diff["old"], diff["new"]
    lines = [
        f"vector set {old['version'] or 'unversioned'} ({old['source']}) -> "
        f"{new['version'] or 'unversioned'} ({new['source']})"
    ]
    for entry in diff["vectorsChanged"]:
        line = f"  changed vector {entry['id']} [{_clauses(entry['clauses'])}]"
        if "clausesBefore" in entry:
            line += f" (cited {_clauses(entry['clausesBefore'])} before)"
        lines.append(line + (": " + ", ".join(entry["members"]) if entry.get("members") else ""))
        for difference in entry.get("differences", []):
            lines.append(
                f"    {difference['member']} {difference['path'] or '(whole)'}: "
                f"{_value(difference, 'before')} -> {_value(difference, 'after')}"
            )
        for member, count in entry.get("differenceCounts", {}).items():
            if count > _SHOWN:
                lines.append(f"    {member}: {count - _SHOWN} more differences")
    for key, label in (("vectorsRemoved", "removed"), ("vectorsAdded", "added")):
        for entry in diff[key]:
            lines.append(f"  {label} vector {entry['id']} [{_clauses(entry['clauses'])}]")
    for entry in diff["clausesChanged"]:
        what = ", ".join({"quoteSha256": "quote"}.get(w, w) for w in entry["what"])
        lines.append(
            f"  changed clause {entry['id']} ({what}); cited by {len(entry['citedBy'])} "
            f"vector(s){': ' + ', '.join(entry['citedBy']) if entry['citedBy'] else ''}"
        )
    for key, label in (("clausesRemoved", "removed"), ("clausesAdded", "added")):
        for clause_id in diff[key]:
            lines.append(f"  {label} clause {clause_id}")
    if not diff["clausesCompared"]:
        lines.append(
            "  clauses not compared: a side has no clause registry (a manifest without "
            "expectations, or a folder without ../spec/clauses.json)"
        )
    counts = (
        f"{len(diff['vectorsChanged'])} changed, {len(diff['vectorsAdded'])} added, "
        f"{len(diff['vectorsRemoved'])} removed vector(s); {len(diff['clausesChanged'])} "
        f"changed, {len(diff['clausesAdded'])} added, {len(diff['clausesRemoved'])} removed "
        "clause(s)"
    )
    step = diff["requires"]
    lines.append(
        f"{counts}; " + ("no expectation changed" if step == "patch" else f"needs a {step} version")
    )
    return "\n".join(lines) + "\n"
