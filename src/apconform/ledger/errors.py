"""The ledger's stable error codes; verification findings use the APC-LEDGER-CHAIN-* family."""

from __future__ import annotations

from apconform.core.errors import define_code

__all__ = [
    "CHAIN_CODES",
    "LEDGER_ANCHOR",
    "LEDGER_BOUND",
    "LEDGER_BYTES",
    "LEDGER_CREATED",
    "LEDGER_DIGEST",
    "LEDGER_DOCUMENT",
    "LEDGER_DUPLICATE",
    "LEDGER_FACTS",
    "LEDGER_FORM",
    "LEDGER_GAP",
    "LEDGER_IMPORT",
    "LEDGER_IMPORT_FACTS",
    "LEDGER_IMPORT_FORK",
    "LEDGER_INDEX",
    "LEDGER_LINK",
    "LEDGER_LOCATION",
    "LEDGER_MISSING",
    "LEDGER_ORDER",
    "LEDGER_REASON",
    "LEDGER_REF",
    "LEDGER_REPLAY",
    "LEDGER_SCHEMA",
    "LEDGER_SIGNATURE",
    "LEDGER_SITE_BROKEN",
    "LEDGER_SITE_TARGET",
    "LEDGER_STALE",
    "LEDGER_SUPERSEDES_SIGNER",
    "LEDGER_SUPERSEDES_UNKNOWN",
    "LEDGER_TRUST",
    "LEDGER_UNAVAILABLE",
    "LEDGER_UNKNOWN_ENTRY",
    "LEDGER_UNSIGNED",
]

LEDGER_LOCATION = define_code(
    "APC-LEDGER-LOCATION",
    "The ledger location is neither a file path nor a supported database URL",
    "Give a file path (an SQLite ledger, e.g. ledger.db) or a PostgreSQL URL "
    "(postgresql+psycopg://user@host/dbname), with --ledger or APCONFORM_LEDGER.",
)
LEDGER_MISSING = define_code(
    "APC-LEDGER-MISSING",
    "There is no ledger at the given location",
    "Check the path, or record a result first (apconform check ... --ledger PATH) to create it.",
)
LEDGER_UNAVAILABLE = define_code(
    "APC-LEDGER-UNAVAILABLE",
    "The ledger's database cannot be reached or opened",
    "Check that the database server runs and accepts the URL's user (put the password in "
    "PGPASSWORD or ~/.pgpass rather than in the URL), or that the file is readable and writable.",
    http_status=503,
)
LEDGER_SCHEMA = define_code(
    "APC-LEDGER-SCHEMA",
    "The database holds tables this version of apconform does not know",
    "Use the apconform release that wrote the ledger (or a newer one), or give another database.",
)
LEDGER_DIGEST = define_code(
    "APC-LEDGER-DIGEST",
    "The document's canonical SHA-256 is not the claim's documentSha256",
    "Build the claim from the document you submit (apconform ledger submission FILE).",
    exit_status=1,
    http_status=422,
)
LEDGER_UNSIGNED = define_code(
    "APC-LEDGER-UNSIGNED",
    "The claim carries no signature, and this ledger accepts only signed results",
    "Sign the claim (apconform ledger submission FILE --key KEYFILE), or ask the operator "
    "to allow unsigned results.",
    exit_status=1,
    http_status=422,
)
LEDGER_REASON = define_code(
    "APC-LEDGER-REASON",
    "A correction must say what it supersedes and why",
    "Give supersedes and reason together (--supersedes ENTRY --reason TEXT), or neither.",
    http_status=422,
)
LEDGER_SUPERSEDES_UNKNOWN = define_code(
    "APC-LEDGER-SUPERSEDES-UNKNOWN",
    "The claim supersedes an entry this ledger does not hold",
    "Name the superseded entry by its digest (apconform ledger list shows them).",
    exit_status=1,
    http_status=409,
)
LEDGER_SUPERSEDES_SIGNER = define_code(
    "APC-LEDGER-SUPERSEDES-SIGNER",
    "A signed entry can be superseded only by a claim signed with the same key",
    "Sign the correction with the key that signed the entry it corrects.",
    exit_status=1,
    http_status=409,
)
LEDGER_REF = define_code(
    "APC-LEDGER-REF",
    "An entry reference is neither a sequence number nor a digest prefix of 8+ hex characters",
    "Name an entry by its number (12) or by its digest or a unique prefix of it (8 or more "
    "hex characters).",
)
LEDGER_UNKNOWN_ENTRY = define_code(
    "APC-LEDGER-UNKNOWN-ENTRY",
    "No entry of the ledger matches the reference",
    "List the entries with apconform ledger list.",
    http_status=404,
)
LEDGER_IMPORT = define_code(
    "APC-LEDGER-IMPORT",
    "The export to import is not an intact run of ledger records",
    "Import the file exactly as apconform ledger export wrote it; nothing was imported.",
    exit_status=1,
)
LEDGER_IMPORT_FORK = define_code(
    "APC-LEDGER-IMPORT-FORK",
    "The export does not continue this ledger's chain",
    "Import into an empty ledger or one the export continues; to append the results anew "
    "(keeping their documents, signatures and origin), import with --rechain.",
    exit_status=1,
)
LEDGER_IMPORT_FACTS = define_code(
    "APC-LEDGER-IMPORT-FACTS",
    "An entry of the export states facts its document does not say",
    "The export was altered: an entry's index (implementation, version, verdict, clauses, "
    "subject) must be what its document says. Get a faithful export from the ledger's "
    "operator; nothing was imported.",
    exit_status=1,
)
LEDGER_CREATED = define_code(
    "APC-LEDGER-CREATED",
    "The claim's creation time is missing, unreadable or in the future",
    "Make the claim afresh (apconform ledger submission FILE --key KEYFILE dates it now) on "
    "a machine whose clock is right; a ledger accepts a claim dated at most 5 minutes ahead "
    "of its own clock.",
    http_status=422,
)
LEDGER_DUPLICATE = define_code(
    "APC-LEDGER-DUPLICATE",
    "The ledger already holds this document, under another claim",
    "A result is recorded once: the entry the message names already records it. To correct "
    "a result, record the corrected document with --supersedes and --reason.",
    http_status=409,
)
LEDGER_STALE = define_code(
    "APC-LEDGER-STALE",
    "The result is older than the latest result of its subject, which it would replace",
    "An older result cannot become the latest: record it as a correction of the newer entry "
    "(--supersedes ENTRY --reason TEXT), signed by the key that signed that entry.",
    http_status=409,
)
LEDGER_BOUND = define_code(
    "APC-LEDGER-BOUND",
    "The subject is bound to the key that last signed its results; this claim is signed "
    "by another key, or not at all",
    "Sign with the key that signed the subject's results. To move the subject to a new key, "
    "ask the server's operator to trust that key (--trusted-key) for one submission.",
    http_status=409,
)
LEDGER_TRUST = define_code(
    "APC-LEDGER-TRUST",
    "A ledger server needs a trust decision",
    "Name the keys whose results the server accepts (--trusted-key HEX, repeatable, or "
    "--trust-file FILE), or accept results signed by any key with --open-submission "
    "(--allow-unsigned also needs --open-submission).",
)
LEDGER_SITE_BROKEN = define_code(
    "APC-LEDGER-SITE-BROKEN",
    "The ledger does not verify, so no site was written",
    "Run apconform ledger verify to see every finding and restore the ledger from a backup; "
    "to publish it anyway, with a banner naming the broken entry on every page, add "
    "--publish-broken.",
    exit_status=1,
)
LEDGER_SITE_TARGET = define_code(
    "APC-LEDGER-SITE-TARGET",
    "The site's output folder exists and holds something other than a results site",
    "Give a new or empty folder, or the folder of an earlier results site (it is replaced).",
)

# Verification findings (LedgerFinding.code); never raised, listed by verify_ledger.
LEDGER_GAP = define_code(
    "APC-LEDGER-CHAIN-GAP",
    "An entry is missing from the chain",
    "Restore the ledger from a backup or an export; entries are never deleted.",
    exit_status=1,
)
LEDGER_ORDER = define_code(
    "APC-LEDGER-CHAIN-ORDER",
    "An entry is stored at another position than the one it records",
    "Restore the ledger from a backup or an export; entries are never reordered.",
    exit_status=1,
)
LEDGER_BYTES = define_code(
    "APC-LEDGER-CHAIN-BYTES",
    "An entry's bytes do not hash to its recorded digest",
    "The entry was altered after it was appended: restore it from a backup or an export.",
    exit_status=1,
)
LEDGER_LINK = define_code(
    "APC-LEDGER-CHAIN-LINK",
    "An entry does not name the digest of the entry before it",
    "An entry before it was altered, removed or reordered: restore the ledger from a backup.",
    exit_status=1,
)
LEDGER_FORM = define_code(
    "APC-LEDGER-CHAIN-FORM",
    "An entry's bytes are not a valid, canonical ledger entry",
    "The entry was altered after it was appended: restore it from a backup or an export.",
    exit_status=1,
)
LEDGER_DOCUMENT = define_code(
    "APC-LEDGER-CHAIN-DOCUMENT",
    "An entry's document is missing or does not hash to the claim's digest",
    "The stored document was altered or removed: restore it from a backup or an export.",
    exit_status=1,
)
LEDGER_SIGNATURE = define_code(
    "APC-LEDGER-CHAIN-SIGNATURE",
    "An entry's signature does not verify, or comes from a key that is not trusted",
    "Do not rely on the entry; check which keys you trust (--trusted-key).",
    exit_status=1,
)
LEDGER_INDEX = define_code(
    "APC-LEDGER-CHAIN-INDEX",
    "An entry's indexed columns disagree with the entry",
    "The query columns were edited behind the ledger's back: restore them from a backup.",
    exit_status=1,
)
LEDGER_FACTS = define_code(
    "APC-LEDGER-CHAIN-FACTS",
    "An entry's index is not what its document says",
    "The entry was rewritten and the chain re-hashed around it: do not rely on this copy; "
    "restore the ledger from a backup or a trusted export.",
    exit_status=1,
)
LEDGER_REPLAY = define_code(
    "APC-LEDGER-CHAIN-STALE",
    "An entry made an older result the latest of its subject without superseding the newer one",
    "An old submission was replayed or the entries were rearranged: do not rely on which "
    "result this copy shows as the latest; restore the ledger from a backup.",
    exit_status=1,
)
LEDGER_ANCHOR = define_code(
    "APC-LEDGER-CHAIN-ANCHOR",
    "A digest you expected in the chain is not there",
    "Entries after or at that point were removed or rewritten: restore the ledger from a backup.",
    exit_status=1,
)

CHAIN_CODES = (
    LEDGER_GAP,
    LEDGER_ORDER,
    LEDGER_BYTES,
    LEDGER_LINK,
    LEDGER_FORM,
    LEDGER_DOCUMENT,
    LEDGER_SIGNATURE,
    LEDGER_INDEX,
    LEDGER_FACTS,
    LEDGER_REPLAY,
    LEDGER_ANCHOR,
)
