"""What several commands share: reading a JSON document, printing one, naming trusted keys.

Kept apart from the dispatcher so that no command module imports the module
that loads it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["print_json", "read_document", "trust_arguments"]


def read_document(source: str) -> Any:
    """Load a JSON document from a path or from stdin ("-") through the bounded loader."""
    from apconform.core.files import load_path, load_stream

    if source == "-":
        return load_stream(sys.stdin.buffer, source="<stdin>")
    return load_path(Path(source))


def trust_arguments(parser: Any) -> None:
    """--trusted-key (repeatable) and --trust-file: the keys a verification accepts."""
    parser.add_argument(
        "--trusted-key",
        action="append",
        metavar="HEX",
        help="public key (64 hex) to trust; repeat for several. Named keys replace the "
        "default, which is the kit's published TEST key alone",
    )
    parser.add_argument(
        "--trust-file",
        metavar="FILE",
        help="a file of public keys to trust, one per line (# comments allowed)",
    )


def print_json(value: Any, *, stream: Any = None) -> None:
    """Write a JSON document as readable, deterministic text."""
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n")
