"""The vectors as the test command of mutation testing: one test per vector, nothing else.

Each test sends one vector through the kit's direct adapter (the same entry
point ``apconform check --impl direct:apconform.conformance.reference:adapter``
uses), reads the reply with the harness's protocol reader and compares it with
the harness's comparator. The reader validates as ``apconform check
--validate-protocol`` does: the reply must meet the adapter protocol and an
answer the operation's published answer schema (``schemas/operations/``), so a
mutant that answers with a misspelt member or a blank reason fails the vector.
No unit test takes part, so a mutant of the reference implementation counts as
killed only when some vector catches it.

``bench_mutation.py`` runs this file under mutmut; it is not part of the test
suite (its name does not start with ``test_``).
"""

from __future__ import annotations

import copy

import pytest

from apconform.conformance.protocol import read_answer
from apconform.conformance.reference import adapter
from apconform.conformance.runner import classify
from apconform.conformance.vectors import LoadedVector, load_vectors

VECTORS = load_vectors()


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_vector(vector: LoadedVector) -> None:
    message = {
        "cmd": "run",
        "seq": 1,
        "operation": vector.vector.operation,
        "input": copy.deepcopy(vector.vector.input),
    }
    reply = read_answer(adapter(message), 1, validate=True, operation=vector.vector.operation)
    outcome, mismatches = classify(vector, reply, None)
    assert outcome == "pass", (reply.message, mismatches[:3])
