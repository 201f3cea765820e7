"""The clause registry: normative sentences, extracted from spec/**/*.md, quoted and hashed.

A clause is one paragraph of the specification text that starts with a marker::

    <a id="APX-CAL-1"></a>**APX-CAL-1 (MUST)** The reference hours of a class ...
    continued on following lines. [cites: APx 0.1 §5.1]

The level is MUST, SHOULD or MAY; ``(MUST; retired)`` marks a withdrawn clause.
Optional trailing tags ``[cites: ...]`` and ``[untestable: reason]`` are lifted
out of the quote. The anchor renders as a link target in the docs site, so the
registry's ``file`` and ``anchor`` locate the sentence a reader can click to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError, define_code
from apconform.core.files import load_path
from apconform.core.validation import validate_document
from apconform.models.conformance import Clause, ClauseRegistry
from apconform.resources import data_path

__all__ = [
    "CLAUSE_SCHEMA_VERSION",
    "ClauseIndex",
    "extract_clauses",
    "load_clause_registry",
]

CLAUSE_SCHEMA_VERSION = "apconform-clauses/1"

CLAUSE_SYNTAX = define_code(
    "APC-CLAUSE-SYNTAX",
    "A clause marker in the specification text cannot be read",
    'Write the marker as <a id="ID"></a>**ID (MUST|SHOULD|MAY)** followed by the sentence.',
)
CLAUSE_DUPLICATE = define_code(
    "APC-CLAUSE-DUPLICATE",
    "Two clauses share one id",
    "Give the new clause a new id; published ids never change and are never reused.",
)
CLAUSE_LEVEL = define_code(
    "APC-CLAUSE-LEVEL",
    "A clause has an unknown requirement level",
    "Use MUST, SHOULD or MAY.",
)
CLAUSE_EMPTY = define_code(
    "APC-CLAUSE-EMPTY",
    "A clause marker has no sentence after it",
    "Write the normative sentence in the same paragraph as the marker.",
)
CLAUSE_PREFIX = define_code(
    "APC-CLAUSE-PREFIX",
    "A clause id does not start with its protocol's prefix",
    "Clauses in spec/apx start with APX-, in spec/ap1 with AP1-, in spec/kit with KIT-.",
)

_PREFIXES = {"apx": "APX-", "ap1": "AP1-", "kit": "KIT-"}
_LEVELS = ("MUST", "SHOULD", "MAY")
_MARKER = re.compile(r'^<a id="(?P<anchor>[^"]*)"></a>\*\*(?P<head>[^*]*)\*\*(?P<body>.*)$')
_HEAD = re.compile(
    r"^(?P<id>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+) \((?P<level>[^);]+)(?P<retired>; retired)?\)$"
)
_TAG = re.compile(r"\s*\[(?P<key>cites|untestable): (?P<value>[^\]]+)\]\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_CODE_SPAN = re.compile(r"`([^`]+)`")


def _fail(code: Any, message: str, where: str) -> ApconformError:
    return ApconformError(code, message, path=where)


def _paragraphs(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    """Split into (first line number, current section title, paragraph lines)."""
    out: list[tuple[int, str, list[str]]] = []
    section = ""
    current: list[str] = []
    start = 0
    in_fence = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if not stripped or heading or in_fence:
            if current:
                out.append((start, section, current))
                current = []
            if heading:
                section = heading.group("title")
            continue
        if not current:
            start = number
        current.append(stripped)
    if current:
        out.append((start, section, current))
    return out


def _parse_file(path: Path, root: Path, protocol: str) -> list[dict[str, Any]]:
    rel = path.relative_to(root).as_posix()
    found = []
    for line_no, section, para in _paragraphs(path.read_text(encoding="utf-8").splitlines()):
        where = f"{rel}:{line_no}"
        first = para[0]
        if '<a id="' not in first:
            continue
        marker = _MARKER.match(first)
        head = _HEAD.match(marker.group("head").strip()) if marker else None
        if marker is None or head is None:
            raise _fail(CLAUSE_SYNTAX, f"cannot read the clause marker {first[:80]!r}", where)
        clause_id, level = head.group("id"), head.group("level")
        if level not in _LEVELS:
            raise _fail(CLAUSE_LEVEL, f"clause {clause_id} has level {level!r}", where)
        if marker.group("anchor") != clause_id:
            raise _fail(
                CLAUSE_SYNTAX,
                f"anchor {marker.group('anchor')!r} differs from id {clause_id}",
                where,
            )
        if not clause_id.startswith(_PREFIXES[protocol]):
            raise _fail(CLAUSE_PREFIX, f"clause {clause_id} lives in spec/{protocol}", where)
        body = " ".join([marker.group("body"), *para[1:]])
        tags: dict[str, str] = {}
        while (tag := _TAG.search(body)) is not None:
            tags[tag.group("key")] = tag.group("value").strip()
            body = body[: tag.start()]
        quote = " ".join(body.split())
        if not quote:
            raise _fail(CLAUSE_EMPTY, f"clause {clause_id} has no sentence", where)
        record: dict[str, Any] = {
            "id": clause_id,
            "level": level,
            "protocol": protocol,
            "status": "retired" if head.group("retired") else "active",
            "section": section or path.stem,
            "file": rel,
            "anchor": clause_id,
            "quote": quote,
            "quoteSha256": sha256_hex(quote),
        }
        record.update(tags)
        found.append(record)
    return found


def extract_clauses(root: Path | None = None) -> dict[str, Any]:
    """Read every spec/<protocol>/*.md under root and return the registry document."""
    base = root if root is not None else data_path()
    seen: dict[str, str] = {}
    clauses: list[dict[str, Any]] = []
    for protocol in sorted(_PREFIXES):
        folder = base / "spec" / protocol
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            for record in _parse_file(path, base, protocol):
                if record["id"] in seen:
                    raise _fail(
                        CLAUSE_DUPLICATE,
                        f"clause {record['id']} is defined twice (first in {seen[record['id']]})",
                        record["file"],
                    )
                seen[record["id"]] = record["file"]
                clauses.append(record)
    clauses.sort(key=lambda c: str(c["id"]))
    return {"schemaVersion": CLAUSE_SCHEMA_VERSION, "clauses": clauses}


class ClauseIndex:
    """The loaded registry with lookup by id and the digest of its canonical form."""

    def __init__(self, registry: ClauseRegistry, digest: str) -> None:
        self.registry = registry
        self.digest = digest
        self._by_id: dict[str, Clause] = {clause.id: clause for clause in registry.clauses}

    def get(self, clause_id: str) -> Clause | None:
        return self._by_id.get(clause_id)

    @property
    def ids(self) -> set[str]:
        return set(self._by_id)

    def quoted_texts(self, clause_ids: Iterable[str]) -> frozenset[str]:
        """Every text these clauses quote verbatim, as a code span (between backticks).

        A message a clause quotes so is normative for the vectors citing that clause
        (KIT-VEC-3); every other message is informative.
        """
        found: set[str] = set()
        for clause_id in clause_ids:
            clause = self._by_id.get(clause_id)
            if clause is not None:
                found.update(_CODE_SPAN.findall(clause.quote))
        return frozenset(found)


def load_clause_registry(path: Path | None = None) -> ClauseIndex:
    """Load and validate spec/clauses.json (bounded, schema-checked)."""
    source = path if path is not None else data_path("spec", "clauses.json")
    document = load_path(source)
    registry = validate_document(ClauseRegistry, document, what=f"clause registry {source}")
    return ClauseIndex(registry, sha256_hex(document))
