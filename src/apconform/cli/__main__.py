"""``python -m apconform.cli``: the same as the ``apconform`` console script."""

from apconform.cli.dispatch import main

if __name__ == "__main__":
    raise SystemExit(main())
