"""The clause extractor: exact records from marked paragraphs, clear refusals for bad markers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from apconform.conformance.clauses import extract_clauses, load_clause_registry
from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError

SAMPLE = textwrap.dedent("""\
    # Calibration

    Some prose that is not a clause.

    ## Reference hours

    <a id="APX-CAL-1"></a>**APX-CAL-1 (MUST)** The reference hours of a class are
    the summed hours of all its predeclared attempts
    divided by its accepted attempts. [cites: APx 0.1 §4.1]

    <a id="APX-CAL-2"></a>**APX-CAL-2 (SHOULD; retired)** Old wording. [untestable: superseded]
    [cites: §4]

    ```markdown
    <a id="APX-NOT-1"></a>**APX-NOT-1 (MUST)** Inside a fence, so only an example.
    ```

    <a id="APX-CAL-3"></a>**APX-CAL-3 (MAY)**   Spaces    are   folded.
    """)


def _spec(tmp_path: Path, protocol: str, name: str, text: str) -> Path:
    folder = tmp_path / "spec" / protocol
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_sample_clause_file_round_trips(tmp_path: Path) -> None:
    root = _spec(tmp_path, "apx", "calibration.md", SAMPLE)
    registry = extract_clauses(root)
    quote1 = (
        "The reference hours of a class are the summed hours of all its predeclared "
        "attempts divided by its accepted attempts."
    )
    assert registry == {
        "schemaVersion": "apconform-clauses/1",
        "clauses": [
            {
                "id": "APX-CAL-1",
                "level": "MUST",
                "protocol": "apx",
                "status": "active",
                "section": "Reference hours",
                "file": "spec/apx/calibration.md",
                "anchor": "APX-CAL-1",
                "quote": quote1,
                "quoteSha256": sha256_hex(quote1),
                "cites": "APx 0.1 §4.1",
            },
            {
                "id": "APX-CAL-2",
                "level": "SHOULD",
                "protocol": "apx",
                "status": "retired",
                "section": "Reference hours",
                "file": "spec/apx/calibration.md",
                "anchor": "APX-CAL-2",
                "quote": "Old wording.",
                "quoteSha256": sha256_hex("Old wording."),
                "untestable": "superseded",
                "cites": "§4",
            },
            {
                "id": "APX-CAL-3",
                "level": "MAY",
                "protocol": "apx",
                "status": "active",
                "section": "Reference hours",
                "file": "spec/apx/calibration.md",
                "anchor": "APX-CAL-3",
                "quote": "Spaces are folded.",
                "quoteSha256": sha256_hex("Spaces are folded."),
            },
        ],
    }


def test_quote_digest_is_sha256_of_utf8() -> None:
    import hashlib

    quote = "Zähler über 1,000 — €"
    assert sha256_hex(quote) == hashlib.sha256(quote.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    "text,code,where",
    [
        (
            '<a id="APX-A-1"></a>**APX-A-1 (MUST)** One.\n\n'
            '<a id="APX-A-1"></a>**APX-A-1 (MAY)** Two.\n',
            "APC-CLAUSE-DUPLICATE",
            "spec/apx/x.md",
        ),
        (
            '<a id="APX-A-1"></a>**APX-A-1 (MUST NOT)** One.\n',
            "APC-CLAUSE-LEVEL",
            "spec/apx/x.md:1",
        ),
        ('<a id="APX-A-1"></a>**APX-A-1 (MUST)**\n', "APC-CLAUSE-EMPTY", "spec/apx/x.md:1"),
        (
            '<a id="APX-A-1"></a>**APX-A-1 (MUST)** [cites: only a tag]\n',
            "APC-CLAUSE-EMPTY",
            "spec/apx/x.md:1",
        ),
        (
            '<a id="APX-A-2"></a>**APX-A-1 (MUST)** Anchor differs.\n',
            "APC-CLAUSE-SYNTAX",
            "spec/apx/x.md:1",
        ),
        (
            'text\n\n<a id="AP1-A-1"></a>**AP1-A-1 (MUST)** Wrong folder.\n',
            "APC-CLAUSE-PREFIX",
            "spec/apx/x.md:3",
        ),
        (
            '<a id="APX-A-1"></a>**apx-a-1 (MUST)** Lower case id.\n',
            "APC-CLAUSE-SYNTAX",
            "spec/apx/x.md:1",
        ),
        ('<a id="APX-A-1"></a>APX-A-1 (MUST) No bold.\n', "APC-CLAUSE-SYNTAX", "spec/apx/x.md:1"),
    ],
)
def test_bad_markers_are_refused(tmp_path: Path, text: str, code: str, where: str) -> None:
    root = _spec(tmp_path, "apx", "x.md", text)
    with pytest.raises(ApconformError) as info:
        extract_clauses(root)
    assert info.value.code == code
    assert info.value.path == where


def test_committed_registry_loads_and_is_sorted(repo: Path) -> None:
    index = load_clause_registry(repo / "spec" / "clauses.json")
    ids = [c.id for c in index.registry.clauses]
    assert ids == sorted(ids)
    clause = index.get("KIT-JCS-1")
    assert clause is not None
    assert clause.level == "MUST"
    assert clause.file == "spec/kit/canonical-json.md"
    assert clause.quote.startswith("Before a JSON document is hashed or signed")
    assert clause.quoteSha256 == sha256_hex(clause.quote)
    assert index.get("KIT-NOPE-1") is None
    assert len(index.digest) == 64
