"""The reference instrument's published report: its seal table and its resolved configuration.

The reference prints its seal record as a two-column Markdown table (field,
value, each in backticks) under "1. Pre-Registration Record", and its resolved
configuration as a JSON block under "2. Resolved Configuration". Both are read
back exactly as printed: the values stay text (the seal hash is recomputed from
the printed text, as the reference itself verifies it) and the configuration
keeps its JSON integers, because its hash covers them as integers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import loads

__all__ = ["REPORT_FORMAT", "PublishedReport", "read_published_report"]

REPORT_FORMAT = define_code(
    "AP1-IMPORT-REPORT",
    "The reference report does not hold its seal table and resolved configuration",
    "Give the report.md the reference instrument wrote for the run (sections 1 and 2), or the "
    "two documents separately with --reference-config and --reference-seal.",
)

_SECTION = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)
_ROW = re.compile(r"^\| `([^`|]+)` \| `([^`]*)` \|\s*$")
_JSON_BLOCK = re.compile(r"```json\n(.*?)\n```", re.DOTALL)


@dataclass(frozen=True)
class PublishedReport:
    """What a report publishes about its run's seal."""

    seal_record: dict[str, str]
    config: dict[str, object]


def _sections(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    matches = list(_SECTION.finditer(text))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        found[match.group(2).strip()] = text[match.end() : end]
    return found


def read_published_report(text: str, *, source: str = "report.md") -> PublishedReport:
    """The printed seal record and the resolved configuration of one report."""
    sections = _sections(text.replace("\r\n", "\n"))
    table = sections.get("Pre-Registration Record")
    block = sections.get("Resolved Configuration")
    if table is None or block is None:
        missing = [
            name
            for name, found in (
                ("1. Pre-Registration Record", table),
                ("2. Resolved Configuration", block),
            )
            if found is None
        ]
        raise ApconformError(REPORT_FORMAT, f"{source} has no section {', '.join(missing)}")
    record: dict[str, str] = {}
    for number, line in enumerate(table.splitlines(), start=1):
        row = _ROW.match(line)
        if row is None:
            continue
        name, value = row.group(1), row.group(2)
        if name in record:
            raise ApconformError(
                REPORT_FORMAT, f"{source}: the seal table names {name} twice (row {number})"
            )
        record[name] = value
    if not record:
        raise ApconformError(
            REPORT_FORMAT, f"{source}: the seal table has no `field` | `value` row"
        )
    match = _JSON_BLOCK.search(block)
    if match is None:
        raise ApconformError(REPORT_FORMAT, f"{source}: section 2 holds no ```json block")
    config = loads(match.group(1), source=f"{source} (resolved configuration)")
    if not isinstance(config, dict):
        raise ApconformError(
            REPORT_FORMAT, f"{source}: the resolved configuration is not a JSON object"
        )
    return PublishedReport(record, config)
