"""`apconform-dev`: the maintainers' command (generation and its drift check)."""

from __future__ import annotations

import sys

__all__ = ["main"]

_USAGE = """usage: apconform-dev gen [--check] [--root DIR] [PRODUCT ...]

  gen            regenerate models, JSON Schema, reference docs, clauses.json
                 and every other registered product from the sources
  gen --check    change nothing; list every generated file that differs from
                 what the sources produce (exit 1 if any)
  --root DIR     work on another checkout (default: this one)
  PRODUCT        limit to some products (models, json-schema, reference-docs,
                 clauses, ...)
"""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args[0] != "gen":
        print(_USAGE, file=sys.stderr if args and args[0] not in ("-h", "--help") else sys.stdout)
        return 0 if args and args[0] in ("-h", "--help") else 2
    try:
        from apconform.dev.gen import main_gen
    except ImportError as exc:  # pragma: no cover - depends on the environment
        print(
            f"apconform-dev needs the dev extra (LinkML): pip install -e '.[dev]' ({exc})",
            file=sys.stderr,
        )
        return 2
    return main_gen(args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
