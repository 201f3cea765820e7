"""Writing the site: gather from the ledger, render every page, swap the folder in whole.

The pages are written into a fresh sibling folder and renamed into place, so
a reader never sees half a site and an earlier site is replaced only once the
new one is complete. A folder that holds anything but an earlier site is
refused, never overwritten.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.conformance.reports import render
from apconform.core.errors import ApconformError
from apconform.ledger.errors import LEDGER_SITE_TARGET
from apconform.ledger.matrix import (
    build_matrix,
    conformance_history,
    latest_profiles,
    matrix_protocols,
)
from apconform.ledger.store import Ledger
from apconform.site.pages import (
    apx_section,
    entry_page,
    history_page,
    index_page,
    matrix_section,
    profiles_section,
    status_section,
)

__all__ = ["MARKER", "SiteWritten", "write_site"]

MARKER = ".apconform-results-site"


@dataclass(frozen=True)
class SiteWritten:
    folder: Path
    index: Path
    pages: int


def _slug(name: str) -> str:
    plain = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "implementation"
    return f"{plain}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"


def _check_target(folder: Path) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ApconformError(LEDGER_SITE_TARGET, f"{folder} is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MARKER).is_file():
        raise ApconformError(
            LEDGER_SITE_TARGET, f"{folder} is not empty and holds no earlier results site"
        )


def _pages(ledger: Ledger) -> dict[str, str]:
    files: dict[str, str] = {}
    summaries = {s["seq"]: s for s in ledger.summaries()}
    documents: dict[int, Any] = {}

    def document(seq: int) -> Any:
        if seq not in documents:
            documents[seq] = ledger.document(summaries[seq]["documentSha256"])
        return documents[seq]

    names = sorted(
        {
            s["implementation"]["name"]
            for s in summaries.values()
            if s["kind"] == "conformance-report"
        }
    )
    links = {name: f"implementations/{_slug(name)}.html" for name in names}
    matrices = [build_matrix(ledger, protocol) for protocol in matrix_protocols(ledger)]
    reports: dict[int, str] = {}
    for matrix in matrices:
        for column in matrix["columns"]:
            seq = column["seq"]
            if seq not in reports:
                reports[seq] = f"entries/{seq}-report.html"
                files[reports[seq]] = render(document(seq), "html")
    counts = []
    for name in names:
        history = conformance_history(ledger, name)
        files[links[name]] = history_page(name, history)
        counts.append((name, links[name], len(history)))
    profiles = [(s, document(s["seq"])) for s in latest_profiles(ledger)]
    apx = [
        (s, document(s["seq"]))
        for s in summaries.values()
        if s["kind"] == "apx-result" and not s["supersededBy"]
    ]
    head = ledger.head()
    files["index.html"] = index_page(
        head=(head.seq, head.digest),
        matrices=[matrix_section(m, links, reports) for m in matrices],
        implementations=counts,
        profiles=profiles_section(profiles),
        apx=apx_section(apx),
        status=status_section(matrices),
    )
    for seq, summary in summaries.items():
        entry = ledger.entry(seq).entry
        href = f"{seq}-report.html" if seq in reports else None
        files[f"entries/{seq}.html"] = entry_page(summary, entry, document(seq), href)
        documents.pop(seq, None)
    files[MARKER] = f"apconform results site; ledger head {head.seq} {head.digest or ''}\n"
    return files


def write_site(ledger: Ledger, folder: Path) -> SiteWritten:
    """Write the results site of ``ledger`` into ``folder`` (new, empty, or an earlier site)."""
    _check_target(folder)
    files = _pages(ledger)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for rel, text in sorted(files.items()):
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        os.chmod(staging, 0o755)
        if folder.exists():
            retired = folder.with_name(f".{folder.name}-old-{os.getpid()}")
            folder.rename(retired)
            staging.rename(folder)
            shutil.rmtree(retired)
        else:
            staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    pages = sum(1 for rel in files if rel.endswith(".html"))
    return SiteWritten(folder, folder / "index.html", pages)
