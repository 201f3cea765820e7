"""Writing the site: verify the ledger, derive what to show, render, swap the folder in whole.

The ledger is verified first, in the same walk that derives every fact the
site shows from the documents. A ledger that does not verify is refused
(``APC-LEDGER-SITE-BROKEN``, nothing written) unless ``publish_broken`` is
given; then every page carries a banner naming the first broken entry. The
pages are written into a fresh sibling folder and renamed into place, so a
reader never sees half a site and an earlier site is replaced only once the
new one is complete. A folder that holds anything but an earlier site is
refused, never overwritten.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.conformance.reports import render
from apconform.core.errors import ApconformError
from apconform.ledger.errors import LEDGER_SITE_BROKEN, LEDGER_SITE_TARGET
from apconform.ledger.store import Ledger
from apconform.site.pages import (
    apx_section,
    broken_banner,
    entry_page,
    history_page,
    index_page,
    matrix_section,
    profiles_section,
    status_section,
    trust_statement,
    with_banner,
)
from apconform.site.view import LedgerView, view_ledger

__all__ = ["MARKER", "SiteWritten", "write_site"]

MARKER = ".apconform-results-site"


@dataclass(frozen=True)
class SiteWritten:
    folder: Path
    index: Path
    pages: int
    findings: int = 0
    """How many verification findings the site's banner reports (0: the ledger verified)."""


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


def _pages(ledger: Ledger, view: LedgerView) -> dict[str, str]:
    files: dict[str, str] = {}
    report = view.verification
    banner = broken_banner(report.to_dict()) if not report.intact else ""
    documents: dict[int, Any] = {}
    by_seq = {item.seq: item for item in view.entries}

    def document(seq: int) -> Any:
        if seq not in documents:
            summary = by_seq[seq].summary
            assert summary is not None  # only entries whose documents verified are rendered
            documents[seq] = ledger.document(summary["documentSha256"])
        return documents[seq]

    names = view.implementations()
    links = {name: f"implementations/{_slug(name)}.html" for name in names}
    matrices = [view.matrix(protocol) for protocol in view.protocols()]
    reports: dict[int, str] = {}
    for matrix in matrices:
        for column in matrix["columns"]:
            seq = column["seq"]
            if seq not in reports:
                reports[seq] = f"entries/{seq}-report.html"
                files[reports[seq]] = with_banner(render(document(seq), "html"), banner)
    counts = []
    for name in names:
        history = view.history(name)
        files[links[name]] = history_page(name, history, banner=banner)
        counts.append((name, links[name], len(history)))
    profiles = [(e.summary or {}, document(e.seq)) for e in view.profiles()]
    apx = [(e.summary or {}, document(e.seq)) for e in view.apx_results()]
    files["index.html"] = index_page(
        head=(report.head_seq, report.head_digest),
        matrices=[matrix_section(m, links, reports) for m in matrices],
        implementations=counts,
        profiles=profiles_section(profiles),
        apx=apx_section(apx),
        status=status_section(matrices),
        trust=trust_statement(report.trusted_keys),
        banner=banner,
    )
    for item in view.entries:
        seq = item.seq
        href = f"{seq}-report.html" if seq in reports else None
        body = document(seq) if item.summary is not None else None
        files[f"entries/{seq}.html"] = entry_page(
            item, body, href, view.findings_of(seq), banner=banner
        )
        documents.pop(seq, None)
    state = "verified" if report.intact else f"NOT verified ({len(report.findings)} findings)"
    files[MARKER] = (
        f"apconform results site; ledger head {report.head_seq} {report.head_digest or ''}; "
        f"{state}\n"
    )
    return files


def write_site(
    ledger: Ledger,
    folder: Path,
    *,
    trusted_keys: Iterable[str] | None = None,
    anchors: Iterable[str] = (),
    publish_broken: bool = False,
) -> SiteWritten:
    """Verify ``ledger`` (against ``trusted_keys`` and ``anchors``) and write its results site
    into ``folder`` (new, empty, or an earlier site). A ledger that does not verify is refused
    unless ``publish_broken``, which puts a banner naming the broken entry on every page."""
    _check_target(folder)
    view = view_ledger(ledger, trusted_keys=trusted_keys, anchors=anchors)
    report = view.verification
    if not report.intact and not publish_broken:
        first = report.findings[0]
        more = len(report.findings) - 1
        raise ApconformError(
            LEDGER_SITE_BROKEN,
            f"the ledger does not verify: entry {first['seq']}: {first['code']}: "
            f"{first['message']}"
            + (f" (and {more} more findings)" if more else "")
            + "; nothing was written",
        )
    files = _pages(ledger, view)
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
    return SiteWritten(folder, folder / "index.html", pages, len(report.findings))
