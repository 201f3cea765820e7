"""The ledger in words, for the terminal: listing lines, an entry, a verification."""

from __future__ import annotations

from typing import Any

__all__ = ["entry_lines", "summary_line", "verification_text"]


def summary_line(summary: dict[str, Any]) -> str:
    """One entry on one line: number, time, kind, subject, version, verdict, signer, status."""
    impl = summary["implementation"]
    parts = [
        f"{summary['seq']:>6}",
        summary["entrySha256"][:12],
        summary["recordedAt"],
        f"{summary['kind']:<18}",
        f"{summary['subject']} ({impl['name']} {impl['version']})",
        summary.get("verdict", "-"),
        summary.get("signer", "unsigned"),
    ]
    if summary["supersededBy"]:
        parts.append(f"superseded by {summary['supersededBy'][-1][:12]}")
    return "  ".join(parts)


def entry_lines(entry: dict[str, Any], digest: str) -> list[str]:
    """An entry's envelope as readable lines (the document is shown with --document)."""
    claim, index = entry["claim"], entry["index"]
    impl = index["implementation"]
    lines = [
        f"entry {entry['seq']}  {digest}",
        f"  previous     {entry['previous'] or '(none: the first entry)'}",
        f"  recorded     {entry['recordedAt']}",
        f"  kind         {index['kind']}",
        f"  subject      {index['subject']} ({impl['name']} {impl['version']})",
        f"  document     {claim['documentSha256']}",
    ]
    for name, label in (("model", "model"), ("verdict", "verdict"), ("runDate", "run date")):
        if name in index:
            lines.append(f"  {label:<12} {index[name]}")
    for item in index["verdicts"]:
        lines.append(f"  {item['protocol']:<12} {item['verdict']}")
    signature = claim.get("signature")
    lines.append(f"  signed by    {signature['keyId'] if signature else '(unsigned)'}")
    if "supersedes" in claim:
        lines.append(f"  supersedes   {', '.join(d[:16] for d in claim['supersedes'])}")
        lines.append(f"  reason       {claim['reason']}")
    if "origin" in entry:
        origin = entry["origin"]
        lines.append(f"  imported     from entry {origin['seq']} ({origin['entrySha256'][:16]}...)")
    if index["clauses"]:
        counts: dict[str, int] = {}
        for clause in index["clauses"]:
            counts[clause["outcome"]] = counts.get(clause["outcome"], 0) + 1
        shown = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        lines.append(f"  clauses      {len(index['clauses'])}: {shown}")
    return lines


def verification_text(report: dict[str, Any], where: str) -> str:
    """A verification as text: the head, then every finding, the first broken entry first."""
    head = (
        f"entry {report['headSeq']} ({report['headSha256'][:16]}...)"
        if report["headSha256"]
        else "empty"
    )
    trust = (
        f"signatures from {len(report['trustedKeys'])} trusted key(s) required"
        if report["trustedKeys"]
        else "signatures checked for integrity only (no --trusted-key)"
    )
    lines = [
        f"ledger {where}: {report['entries']} entries, head {head}, "
        f"{report['signed']} signed; {trust}"
    ]
    if report["intact"]:
        lines.append(
            "intact: every entry, link, document, signature and index row verifies, and every "
            "index is what its document says"
        )
    else:
        first = report["findings"][0]
        lines.append(f"BROKEN at entry {first['seq']}: {first['message']}")
        for finding in report["findings"]:
            lines.append(f"  entry {finding['seq']}: {finding['code']}: {finding['message']}")
    return "\n".join(lines) + "\n"
