"""Recording a result in a ledger: the one use case every face that records calls.

- :func:`record_result` records a result the caller holds (``apconform ledger
  record FILE``, and ``--ledger`` on ``check``, ``ap1 score`` and ``apx evaluate``):
  it opens the ledger (created if new), resolves the entries a correction
  supersedes, checks the result and builds its claim (signed with the key, if
  one is given), and appends it.
- :func:`submit_result` records a submission from outside (the API's submit
  route): the claim is checked against the server's trust decision, appended
  under the server's admission rule, and answered with the entry's summary.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from apconform.core.errors import ApconformError
from apconform.core.signing import Ed25519Key
from apconform.ledger.admission import Admission
from apconform.ledger.claim import accept_submission, prepare
from apconform.ledger.entry import StoredEntry
from apconform.ledger.errors import LEDGER_DUPLICATE
from apconform.ledger.store import EntryFilter, Ledger
from apconform.results import ResultKind

__all__ = ["Recorded", "record_result", "submit_result"]


@dataclass(frozen=True)
class Recorded:
    """What recording one result did."""

    where: str
    """The ledger, as it is displayed (a path, or a URL without its password)."""
    entry: StoredEntry | None
    """The entry that holds the result; None when it was already held under another claim
    and the caller chose to keep it once (:attr:`duplicate` says why)."""
    signer: str | None
    """The key id that signed the claim, if one did."""
    duplicate: str | None = None
    """The refusal's message when the same result was already recorded (kept once)."""


def record_result(
    location: str,
    kind: ResultKind,
    document: object,
    *,
    key: Ed25519Key | None = None,
    supersedes: Sequence[str | int] = (),
    reason: str | None = None,
    keep_once: bool = False,
) -> Recorded:
    """Record ``document`` (a result of ``kind``) in the ledger at ``location``.

    ``supersedes`` names entries (numbers or digest prefixes) this result corrects,
    with ``reason``. With ``keep_once`` a result the ledger already holds under
    another claim (APC-LEDGER-DUPLICATE) is not an error: the answer says so.
    """
    with Ledger.open(location, create=True) as ledger:
        digests = [ledger.entry(ref).digest for ref in supersedes]
        submission = prepare(kind, document, key=key, supersedes=digests, reason=reason)
        where = ledger.location.display()
        try:
            stored = ledger.append(submission)
        except ApconformError as error:
            if not keep_once or error.error_code is not LEDGER_DUPLICATE:
                raise
            return Recorded(where, None, submission.signer, duplicate=error.message)
    return Recorded(where, stored, submission.signer)


def submit_result(
    open_ledger: Callable[[], Ledger],
    value: object,
    *,
    trusted_keys: Collection[str] | None,
    require_signature: bool,
    admission: Admission | None,
) -> dict[str, Any]:
    """Record a ``LedgerSubmission`` from outside; answer the entry's ``LedgerEntrySummary``.

    ``trusted_keys`` None accepts a claim signed by any key (open submission);
    the claim must say when it was made. The ledger is opened (``open_ledger``) only
    once the submission is accepted.
    """
    submission = accept_submission(
        value,
        trusted_keys=trusted_keys,
        require_signature=require_signature,
        require_created=True,
    )
    ledger = open_ledger()
    stored = ledger.append(submission, admission=admission)
    summaries = ledger.summaries(EntryFilter(), limit=1, after=stored.seq - 1)
    return dict(summaries[0])
