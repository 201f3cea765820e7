"""The vectors as the test command of mutation testing: one test per vector, nothing else.

Each test sends one vector through the kit's direct adapter (the same entry
point ``apconform check --impl direct:apconform.conformance.reference:adapter``
uses), reads the reply with the harness's protocol reader and compares it with
the harness's comparator, as the contract does (KIT-VEC-3: codes, paths and
values; messages only where a cited clause quotes them). The reader validates
as ``apconform check --validate-protocol`` does: the reply must meet the
adapter protocol and an answer the operation's published answer schema
(``schemas/operations/``), so a mutant that answers with a misspelt member or a
blank reason fails the vector. No unit test takes part, so a mutant of the
reference implementation counts as killed only when some vector catches it.

Only the operation runs with the mutant active. mutmut switches a mutant on
through ``MUTANT_UNDER_TEST``; the harness's own work (loading the vectors,
reading and judging the reply) runs with it switched off, so a mutant of a
module the harness shares with the reference (the clause registry, the
operation contracts) is judged by unmutated code, and mutmut's map of which
vector reaches which function records only what the operation executes.

A mutant that the contract lets pass but that changes the reply is noted in
``$APCONFORM_MUTATION_NOTES/<mutant>.jsonl`` (one line per vector): whether
every difference from the unmutated reply is a message (informative by
KIT-VEC-3, so the mutant is not counted) or something the vector does not pin.

``bench_mutation.py`` runs this file under mutmut; it is not part of the test
suite (its name does not start with ``test_``).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

_SWITCH = "MUTANT_UNDER_TEST"


@contextmanager
def pristine() -> Iterator[None]:
    """Run the enclosed code with no mutant active (mutmut's trampolines read the variable at
    every call), then switch the mutant (or mutmut's statistics mode) back on."""
    active = os.environ.get(_SWITCH)
    os.environ[_SWITCH] = ""
    try:
        yield
    finally:
        if active is None:
            del os.environ[_SWITCH]
        else:
            os.environ[_SWITCH] = active


with pristine():
    from apconform.conformance.compare import MessageRule, json_equal
    from apconform.conformance.protocol import read_answer
    from apconform.conformance.reference import adapter
    from apconform.conformance.runner import judge
    from apconform.conformance.vectors import LoadedVector, load_vectors

    VECTORS = load_vectors()


def _run(vector: LoadedVector) -> Any:
    return adapter(
        {
            "cmd": "run",
            "seq": 1,
            "operation": vector.vector.operation,
            "input": copy.deepcopy(vector.vector.input),
        }
    )


def _changes(vector: LoadedVector, reply: Any, unmutated: Any) -> tuple[str, list[dict[str, Any]]]:
    """How a reply the contract accepts differs from the unmutated one: "message" when every
    difference is a message (a refusal's, or an answer's message member), else "unpinned"."""
    rule = MessageRule(members=vector.messages.members)  # no quote: every message informative
    if "refusal" in reply and "refusal" in unmutated:
        before, after = unmutated["refusal"], reply["refusal"]
        found = [
            {"path": f"/refusal/{key}", "before": before.get(key), "after": after.get(key)}
            for key in sorted(set(before) | set(after))
            if before.get(key) != after.get(key)
        ]
        kind = "message" if {d["path"] for d in found} == {"/refusal/message"} else "unpinned"
        return kind, found
    if "answer" in reply and "answer" in unmutated:
        differences = json_equal(unmutated["answer"], reply["answer"], None, rule)
        found = [
            {"path": f"/answer{m.path}", "before": m.expected, "after": m.actual}
            for m in differences
        ]
        kind = "message" if all(m.informative for m in differences) else "unpinned"
        return kind, found
    return "unpinned", [{"path": "", "before": unmutated, "after": reply}]


def _note(mutant: str, vector: LoadedVector, kind: str, found: list[dict[str, Any]]) -> None:
    folder = os.environ.get("APCONFORM_MUTATION_NOTES")
    if not folder or not mutant or mutant in ("stats", "fail"):
        return
    line = json.dumps(
        {"vector": vector.id, "kind": kind, "differences": found[:5]},
        ensure_ascii=False,
        default=str,
    )
    with (Path(folder) / f"{mutant}.jsonl").open("a", encoding="utf-8") as out:
        out.write(line[:4000] + "\n")


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_vector(vector: LoadedVector) -> None:
    mutant = os.environ.get(_SWITCH, "")
    reply = _run(vector)  # the only code that runs with the mutant active
    with pristine():
        answer = read_answer(reply, 1, validate=True, operation=vector.vector.operation)
        outcome, mismatches, _ = judge(vector, answer, None)
        assert outcome == "pass", (answer.message, mismatches[:3])
        unmutated = _run(vector)
        if unmutated != reply:
            _note(mutant, vector, *_changes(vector, reply, unmutated))
