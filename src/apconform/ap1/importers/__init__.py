"""Importers: runs made by other AP-1 instruments, as apconform run directories.

One subpackage per source; each checks the source's own integrity evidence,
converts its inputs and records into the kit's documents, seals them, and
keeps the source's verdicts beside them for comparison. May import every other
package of ``apconform.ap1`` below the interfaces (inputs, seal, transcript,
run, scoring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.importers.reference import ReferenceSources as ReferenceSources
    from apconform.ap1.importers.reference import compare_reference as compare_reference
    from apconform.ap1.importers.reference import import_reference_run as import_reference_run

__getattr__ = lazy_exports(__name__)
