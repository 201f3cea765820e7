"""The instrument's own identity: a hash over the source files that decide its behaviour.

Every ``.py`` file under ``apconform/ap1`` and ``apconform/core`` (and the
package's ``__init__``), sorted by relative path; each contributes its path
with forward slashes, a NUL byte, its text with line endings normalised to LF,
and another NUL byte. Folders are matched by path segment, never by string
prefix, and compiled files are never included, so the hash is the same on
every operating system and in every checkout of the same source.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from apconform.core.canonical import normalize_newlines

__all__ = ["SOURCE_HASH_METHOD", "instrument_source_hash"]

SOURCE_HASH_METHOD = (
    "sha256 over sorted apconform/{__init__.py,ap1/**/*.py,core/**/*.py}: path NUL text-with-LF NUL"
)
_PACKAGE = Path(__file__).resolve().parents[2]


@cache
def instrument_source_hash() -> str:
    """The hash of the instrument's behaviour-deciding source files."""
    files = [_PACKAGE / "__init__.py"]
    for folder in ("ap1", "core"):
        files.extend(p for p in (_PACKAGE / folder).rglob("*.py") if "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(_PACKAGE).as_posix()):
        rel = "apconform/" + path.relative_to(_PACKAGE).as_posix()
        text = normalize_newlines(path.read_bytes().decode("utf-8"))
        digest.update(rel.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return digest.hexdigest()
