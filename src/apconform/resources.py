"""Where the kit's data lives: beside the package in a wheel, at the repository root in a checkout.

The schemas, normative text, vectors and examples are top-level folders of the
repository (the design fixes them there); a wheel carries copies under
``apconform/_data``. Every reader asks this module, so nothing else needs to
know which of the two layouts it runs in.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["data_path", "data_root"]

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_root() -> Path:
    """The folder holding schemas/, spec/, vectors/ and examples/."""
    bundled = _PACKAGE / "_data"
    if (bundled / "schemas").is_dir():
        return bundled
    checkout = _PACKAGE.parent.parent
    if (checkout / "schemas").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    raise FileNotFoundError(
        "apconform's data folders were not found beside the package or in a checkout; "
        "reinstall the package"
    )


def data_path(*parts: str) -> Path:
    """A path inside the data root, for example data_path("spec", "clauses.json")."""
    return data_root().joinpath(*parts)
