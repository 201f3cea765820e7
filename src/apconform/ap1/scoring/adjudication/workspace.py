"""A run's adjudication as two blind scorers and a reconciler work on it through the web store.

The workspace holds the run's key (the rows and their dimensions), the two
scorers' stores and the reconciliation store. A scorer claims one of the two
stores by name and from then on only that name writes to it. While either
scorer has rows left, nobody sees both scorers' marks; once both have marked
every row, reconciliation can be opened: that closes the scorers' stores (a
scorer who has seen the other's marks no longer marks independently) and shows
the disagreements side by side for someone to settle.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.ap1.rundir import load_in
from apconform.ap1.scoring.adjudication.marks import (
    ITEM_UNKNOWN,
    Completeness,
    checked_settlement,
    completeness,
)
from apconform.ap1.scoring.adjudication.merge import (
    ScorerMarks,
    check_settlement,
    disputed_fields,
    merge_marks,
)
from apconform.ap1.scoring.adjudication.sheets import scorer_row_order
from apconform.ap1.scoring.adjudication.store import (
    RECONCILIATION,
    SCORER_REFUSED,
    MarkStore,
    scorer_store,
)
from apconform.ap1.scoring.rows import Disagreement
from apconform.core.errors import ApconformError, define_code
from apconform.core.signing import Ed25519Key

__all__ = [
    "CLOSED",
    "KEY_FILE",
    "NOT_READY",
    "RUN_NOT_READY",
    "SLOTS",
    "AdjudicationWorkspace",
]

KEY_FILE = "report/adjudication/key.json"
SLOTS = (1, 2)
RUN_NOT_READY = define_code(
    "AP1-ADJ-RUN",
    "The run has no adjudication rows to work on",
    "Score the run first (apconform ap1 score RUN_DIR): it writes the sheets and their key.",
    exit_status=2,
    http_status=409,
)
NOT_READY = define_code(
    "AP1-ADJ-NOT-READY",
    "Reconciliation opens once both scorers have marked every row",
    "Wait until both scorers are done (the start page shows how far each is), or merge the "
    "marks as they are with `apconform ap1 adjudicate import RUN_DIR --accept-unmarked`.",
    exit_status=1,
    http_status=409,
)
CLOSED = define_code(
    "AP1-ADJ-CLOSED",
    "The scorers' marks are closed: reconciliation has shown them side by side",
    "Marks made after seeing the other scorer's are not independent; settle the disagreement "
    "in reconciliation instead.",
    exit_status=1,
    http_status=409,
)


@dataclass
class AdjudicationWorkspace:
    """The key, the two scorers' stores and the reconciliation store of one run."""

    run_dir: Path
    key: dict[str, Any]
    rows: dict[str, str]
    """Row id -> dimension, in key order."""
    stores: dict[int, MarkStore]
    reconciliation: MarkStore
    signing_key: Ed25519Key | None = None

    @classmethod
    def open(cls, run_dir: Path, *, signing_key: Ed25519Key | None = None) -> AdjudicationWorkspace:
        """Read the key and every store of the run (each store checked record by record)."""
        if not os.path.lexists(run_dir / KEY_FILE):
            raise ApconformError(
                RUN_NOT_READY,
                f"{run_dir / KEY_FILE} is missing: score the run first "
                "(apconform ap1 score RUN_DIR)",
            )
        key = load_in(run_dir, KEY_FILE)
        if not isinstance(key, dict) or not isinstance(key.get("rows"), list):
            raise ApconformError(RUN_NOT_READY, f"{run_dir / KEY_FILE} is not an adjudication key")
        rows = {str(r["rowId"]): str(r["dimension"]) for r in key["rows"]}
        seal = str(key["sealHash"])
        stores = {slot: MarkStore.load(run_dir, scorer_store(slot), seal, rows) for slot in SLOTS}
        reconciliation = MarkStore.load(run_dir, RECONCILIATION, seal, rows)
        return cls(run_dir, key, rows, stores, reconciliation, signing_key)

    def refresh(self) -> None:
        """See what other processes wrote to the stores since they were read (each re-checked)."""
        for store in (*self.stores.values(), self.reconciliation):
            store.refresh()

    # -- scorers -----------------------------------------------------------------------------

    def order(self, slot: int) -> list[str]:
        """Scorer ``slot``'s rows in the order of that scorer's sheet."""
        return scorer_row_order(list(self.rows), slot)

    def slot_of(self, name: str) -> int | None:
        return next((s for s, store in self.stores.items() if store.name == name), None)

    def claim(self, name: str) -> int:
        """The slot of scorer ``name``: the store already named so, else the first unopened one."""
        name = name.strip()
        if not name or len(name) > 200 or any(c < " " for c in name):
            raise ApconformError(
                SCORER_REFUSED, "a scorer's name is one line of 1 to 200 characters"
            )
        found = self.slot_of(name)
        if found is not None:
            self.stores[found].open_for(name, self.signing_key)
            return found
        free = next((s for s, store in self.stores.items() if not store.exists), None)
        if free is None:
            taken = " and ".join(repr(store.name) for store in self.stores.values())
            raise ApconformError(
                SCORER_REFUSED, f"the run's two scorers are {taken}; {name!r} is neither"
            )
        self.stores[free].open_for(name, self.signing_key)
        return free

    def scorer(self, slot: int, name: str) -> MarkStore:
        """Scorer ``slot``'s store, checked to be ``name``'s."""
        store = self.stores.get(slot)
        if store is None:
            raise ApconformError(SCORER_REFUSED, f"there is no scorer {slot}; scorers are 1 and 2")
        if not store.exists or store.name != name:
            owner = repr(store.name) if store.exists else "nobody yet"
            raise ApconformError(
                SCORER_REFUSED, f"scorer {slot}'s store belongs to {owner}, not {name!r}"
            )
        return store

    def progress(self, slot: int) -> Completeness:
        store = self.stores[slot]
        return completeness(((r, self.rows[r]) for r in self.order(slot)), store.entries)

    def put_mark(
        self, slot: int, name: str, row_id: str, raw: Mapping[str, object]
    ) -> tuple[dict[str, str], bool]:
        store = self.scorer(slot, name)
        if self.reconciliation.exists:
            raise ApconformError(
                CLOSED, f"reconciliation was opened {self.reconciliation.opened_at}"
            )
        return store.put(row_id, raw, name=name, key=self.signing_key)

    def both_done(self) -> bool:
        return all(self.stores[s].exists and self.progress(s).complete for s in SLOTS)

    # -- reconciliation ----------------------------------------------------------------------

    def open_reconciliation(self) -> None:
        """Close the scorers' stores and open the reconciliation store (once both are done)."""
        if not self.reconciliation.exists:
            if not self.both_done():
                waiting = "; ".join(
                    self.progress(s).sentence(f"scorer {s}")
                    if self.stores[s].exists
                    else f"scorer {s}: not started"
                    for s in SLOTS
                )
                raise ApconformError(NOT_READY, waiting)
            self.reconciliation.open_for(None, self.signing_key)

    def _opened(self) -> None:
        if not self.reconciliation.exists:
            raise ApconformError(NOT_READY, "reconciliation has not been opened")

    def marks(self, slot: int) -> ScorerMarks:
        store = self.stores[slot]
        return ScorerMarks(store.name or f"scorer {slot}", dict(store.entries))

    def disagreements(self) -> list[Disagreement]:
        """Every row the two scorers marked differently, in key order, with any settlement."""
        self._opened()
        out: list[Disagreement] = []
        for row_id, dimension in self.rows.items():
            a, b = self.stores[1].mark(row_id), self.stores[2].mark(row_id)
            disputed = disputed_fields(dimension, a, b)
            if disputed:
                out.append(
                    {
                        "rowId": row_id,
                        "dimension": dimension,
                        "disputed": list(disputed),
                        "scorer1": dict(a),
                        "scorer2": dict(b),
                        "settled": self.reconciliation.entries.get(row_id),
                    }
                )
        return out

    def settle(self, row_id: str, raw: Mapping[str, object]) -> dict[str, str]:
        """Record the settled marks of a row in dispute (checked as the merge will check them)."""
        self._opened()
        if row_id not in self.rows:
            raise ApconformError(ITEM_UNKNOWN, f"{row_id!r} is not a row of this run")
        dimension = self.rows[row_id]
        entry = checked_settlement(row_id, dimension, raw)
        disputed = disputed_fields(
            dimension, self.stores[1].mark(row_id), self.stores[2].mark(row_id)
        )
        check_settlement({"rowId": row_id}, disputed, entry)
        entry, _ = self.reconciliation.put(row_id, entry, name=None, key=self.signing_key)
        return entry

    def preview(self, *, completed: str | None = None) -> dict[str, Any]:
        """The merged document the stores give now (nothing written), as a plain dict."""
        self._opened()
        merged = merge_marks(
            self.key,
            self.marks(1),
            self.marks(2),
            self.reconciliation.entries,
            completed=completed,
        )
        return dict(merged)
