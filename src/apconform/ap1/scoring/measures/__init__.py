"""One module per AP-1 measurement of a single execution: figure identification and its token
grammar, D1 accuracy, D2 reproducibility, D7.1 invocation, D7.2(a) operand provenance (with the
expression reader), D7.2(b) operation correctness, D7.3 transcription, and the answer outcome.

May import ``apconform.ap1.scoring.context`` and ``record``, ``calculator`` and the base modules.
"""

from __future__ import annotations
