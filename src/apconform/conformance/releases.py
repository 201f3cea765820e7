"""Versions of the vector set: what each vector and clause requires, by digest, and its history.

An implementer pins a vector set by its semantic version (``vectors/VERSION``,
carried by the signed manifest and reported by every ``apconform check``). The
*state* of a set is, per vector, the clauses it cites and the digest of
everything that decides its outcome, and per clause its level, status and the
digest of its quote. ``apconform-dev gen`` keeps ``vectors/RELEASES.json``:
one entry per version with what changed since the version before, and the
state of the latest version. A state that differs from the latest version's
is refused until the version moves, at least as far as its changes require:

- **major**: an expectation changed, or a vector or clause was removed or changed;
- **minor**: vectors or clauses were only added;
- **patch**: nothing any vector or clause requires changed.

``vectors/CHANGELOG.md`` is rendered from the history, never written by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError, define_code
from apconform.core.files import load_path, read_file

__all__ = [
    "CHANGELOG_NAME",
    "RELEASES_NAME",
    "RELEASES_SCHEMA_VERSION",
    "VERSION_NAME",
    "clause_fingerprints",
    "history_text",
    "next_history",
    "parse_version",
    "read_version",
    "render_changelog",
    "set_state",
    "state_changes",
    "vector_documents",
    "vector_fingerprint",
]

VERSION_NAME = "VERSION"
RELEASES_NAME = "RELEASES.json"
CHANGELOG_NAME = "CHANGELOG.md"
RELEASES_SCHEMA_VERSION = "apconform-vector-releases/1"

VECTOR_VERSION = define_code(
    "APC-VECTOR-VERSION",
    "The vector set's version does not move as far as its changes require",
    "Set vectors/VERSION to at least the version named (MAJOR.MINOR.PATCH), then run "
    "`apconform-dev gen` again; the changelog entry is written for you.",
)

_VERSION = re.compile(r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})")
_STEPS = ("patch", "minor", "major")
_UNDECIDED = frozenset({"description", "clauses"})
"""Members that decide no outcome by themselves (the clauses are compared on their own)."""


def parse_version(text: str, *, where: str = "vectors/VERSION") -> tuple[int, int, int]:
    """MAJOR.MINOR.PATCH as three numbers; anything else is refused, naming where it was read."""
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        raise ApconformError(
            VECTOR_VERSION,
            f"{where}: {text.strip()[:40]!r} is not a version MAJOR.MINOR.PATCH",
            path=where,
        )
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def read_version(vectors_root: Path) -> str | None:
    """The version a vector folder declares in its VERSION file, or None without one."""
    path = vectors_root / VERSION_NAME
    if not path.is_file():
        return None
    text = read_file(path, max_bytes=64, what="the vector set's VERSION file").decode("utf-8")
    parse_version(text, where=str(path))
    return text.strip()


def vector_documents(vectors_root: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every vector document of a folder by id, with its path (read bounded, not schema-checked,
    so that sets written under older rules can still be compared)."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in sorted(vectors_root.rglob("*.json")):
        rel = path.relative_to(vectors_root)
        if len(rel.parts) < 2:
            continue
        document = load_path(path)
        if isinstance(document, dict) and isinstance(document.get("id"), str):
            found[document["id"]] = (rel.as_posix(), document)
    return found


def vector_fingerprint(document: dict[str, Any]) -> dict[str, Any]:
    """A vector's id, its clauses and the digest of every member that decides its outcome."""
    decided = {k: v for k, v in document.items() if k not in _UNDECIDED}
    clauses = document.get("clauses")
    return {
        "id": document["id"],
        "clauses": [str(c) for c in clauses] if isinstance(clauses, list) else [],
        "sha256": sha256_hex(decided),
    }


def clause_fingerprints(registry: dict[str, Any]) -> list[dict[str, Any]]:
    """Each clause of a registry document by id, level, status and quote digest."""
    return sorted(
        (
            {
                "id": c["id"],
                "level": c["level"],
                "status": c["status"],
                "quoteSha256": c["quoteSha256"],
            }
            for c in registry.get("clauses", [])
        ),
        key=lambda c: str(c["id"]),
    )


def set_state(vectors_root: Path, registry: dict[str, Any]) -> dict[str, Any]:
    """The state of a vector folder read with a clause registry document."""
    documents = vector_documents(vectors_root)
    return {
        "vectors": [vector_fingerprint(documents[i][1]) for i in sorted(documents)],
        "clauses": clause_fingerprints(registry),
    }


def state_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[Any]]:
    """What changed between two states: vectors and clauses added, removed and changed."""
    before = {v["id"]: v for v in old["vectors"]}
    after = {v["id"]: v for v in new["vectors"]}
    changed = []
    for vector_id in sorted(set(before) & set(after)):
        was, now = before[vector_id], after[vector_id]
        if was == now:
            continue
        entry = {"id": vector_id, "clauses": now["clauses"]}
        if was["clauses"] != now["clauses"]:
            entry["clausesBefore"] = was["clauses"]
        changed.append(entry)
    old_clauses = {c["id"]: c for c in old["clauses"]}
    new_clauses = {c["id"]: c for c in new["clauses"]}
    return {
        "vectorsAdded": [_named(after[i]) for i in sorted(set(after) - set(before))],
        "vectorsRemoved": [_named(before[i]) for i in sorted(set(before) - set(after))],
        "vectorsChanged": changed,
        "clausesAdded": sorted(set(new_clauses) - set(old_clauses)),
        "clausesRemoved": sorted(set(old_clauses) - set(new_clauses)),
        "clausesChanged": sorted(
            i for i in set(old_clauses) & set(new_clauses) if old_clauses[i] != new_clauses[i]
        ),
    }


def _named(fingerprint: dict[str, Any]) -> dict[str, Any]:
    return {"id": fingerprint["id"], "clauses": fingerprint["clauses"]}


def required_step(changes: dict[str, list[Any]]) -> str:
    """The smallest version step these changes allow."""
    if any(changes[k] for k in ("vectorsRemoved", "vectorsChanged", "clausesRemoved")):
        return "major"
    if changes["clausesChanged"]:
        return "major"
    if changes["vectorsAdded"] or changes["clausesAdded"]:
        return "minor"
    return "patch"


def _step(old: tuple[int, int, int], new: tuple[int, int, int]) -> str | None:
    """How far ``new`` moved from ``old`` (None when it did not move forward)."""
    if new <= old:
        return None
    if new[0] > old[0]:
        return "major"
    return "minor" if new[1] > old[1] else "patch"


def _least(old: tuple[int, int, int], step: str) -> str:
    major, minor, patch = old
    if step == "major":
        return f"{major + 1}.0.0"
    if step == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def _summary(changes: dict[str, list[Any]]) -> str:
    parts = []
    for key, label in (
        ("vectorsChanged", "changed in expectation"),
        ("vectorsRemoved", "removed"),
        ("vectorsAdded", "added"),
    ):
        if changes[key]:
            ids = [entry["id"] for entry in changes[key]]
            shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            parts.append(f"vectors {label}: {shown}")
    for key, label in (
        ("clausesChanged", "changed"),
        ("clausesRemoved", "removed"),
        ("clausesAdded", "added"),
    ):
        if changes[key]:
            parts.append(f"clauses {label}: {', '.join(changes[key])}")
    return "; ".join(parts)


def next_history(
    history: dict[str, Any] | None, declared: str, state: dict[str, Any]
) -> dict[str, Any]:
    """The release history after this generation run, or a refusal when the version must move.

    Without a history, ``declared`` is the first versioned release. With one, a state equal to
    the latest release's keeps the history as it is; a different state needs ``declared`` to be
    a later version, at least as far as :func:`required_step` says, and becomes its entry.
    """
    counts = {"vectorCount": len(state["vectors"]), "clauseCount": len(state["clauses"])}
    if history is None:
        first = {"version": declared, "requires": "first", **counts, **_no_changes()}
        return {"schemaVersion": RELEASES_SCHEMA_VERSION, "releases": [first], "state": state}
    latest = str(history["releases"][-1]["version"])
    changes = state_changes(history["state"], state)
    need = required_step(changes)
    was, now = parse_version(latest), parse_version(declared)
    if now == was:
        if history["state"] == state:
            return history
        raise ApconformError(
            VECTOR_VERSION,
            f"the vector set changed since version {latest} ({_summary(changes)}), but "
            f"vectors/VERSION still says {declared}; these changes need at least "
            f"{_least(was, need)}",
            path="vectors/VERSION",
        )
    moved = _step(was, now)
    if moved is None or _STEPS.index(moved) < _STEPS.index(need):
        raise ApconformError(
            VECTOR_VERSION,
            f"vectors/VERSION says {declared} after version {latest}, but "
            + (f"the changes ({_summary(changes)}) need" if need != "patch" else "it must be")
            + f" at least {_least(was, need)}",
            path="vectors/VERSION",
        )
    entry = {"version": declared, "requires": need, **counts, **changes}
    return {**history, "releases": [*history["releases"], entry], "state": state}


def _no_changes() -> dict[str, list[Any]]:
    return {
        "vectorsAdded": [],
        "vectorsRemoved": [],
        "vectorsChanged": [],
        "clausesAdded": [],
        "clausesRemoved": [],
        "clausesChanged": [],
    }


_STEP_WORDS = {
    "first": "the first versioned release",
    "major": (
        "a major version: an expectation or a clause changed, or a vector or clause was removed"
    ),
    "minor": "a minor version: vectors or clauses were only added",
    "patch": "a patch version: no expectation changed",
}


def _vector_line(entry: dict[str, Any]) -> str:
    clauses = ", ".join(entry["clauses"]) or "no clause"
    line = f"- `{entry['id']}` ({clauses})"
    if "clausesBefore" in entry:
        line += f"; cited {', '.join(entry['clausesBefore']) or 'no clause'} before"
    return line


def render_changelog(history: dict[str, Any]) -> str:
    """vectors/CHANGELOG.md: every version, newest first, with what changed in it."""
    lines = [
        "# Changelog of the vector set",
        "",
        "Generated by `apconform-dev gen` from `vectors/RELEASES.json`; do not edit by hand.",
        "A version's major part moves when an expectation changes or a vector or clause is",
        "removed, its minor part when vectors or clauses are only added, its patch part when no",
        "expectation changed. `apconform vectors diff OLD NEW` shows each change in detail.",
    ]
    for release in reversed(history["releases"]):
        lines += [
            "",
            f"## {release['version']}",
            "",
            f"{release['vectorCount']} vectors, {release['clauseCount']} clauses; "
            f"{_STEP_WORDS[release['requires']]}.",
        ]
        for key, label in (
            ("vectorsChanged", "Vectors changed in expectation"),
            ("vectorsRemoved", "Vectors removed"),
            ("vectorsAdded", "Vectors added"),
        ):
            if release[key]:
                lines += ["", f"{label} ({len(release[key])}):", ""]
                lines += [_vector_line(entry) for entry in release[key]]
        for key, label in (
            ("clausesChanged", "Clauses changed (quote, level or status)"),
            ("clausesRemoved", "Clauses removed"),
            ("clausesAdded", "Clauses added"),
        ):
            if release[key]:
                lines += ["", f"{label}: {', '.join(release[key])}."]
    return "\n".join(lines) + "\n"


def history_text(history: dict[str, Any]) -> str:
    """RELEASES.json as written: indented, with one line per vector and per clause of the state,
    so that a new release changes few lines."""
    head = {k: v for k, v in history.items() if k != "state"}
    text = json.dumps(head, indent=2, ensure_ascii=False)
    rows = {
        key: ",\n".join(
            "      " + json.dumps(item, ensure_ascii=False, separators=(", ", ": "))
            for item in history["state"][key]
        )
        for key in ("vectors", "clauses")
    }
    state = (
        '  "state": {\n'
        f'    "vectors": [\n{rows["vectors"]}\n    ],\n'
        f'    "clauses": [\n{rows["clauses"]}\n    ]\n'
        "  }"
    )
    return text[:-2] + ",\n" + state + "\n}\n"
