"""Lazy re-exports: a package names its public API once, without importing what lies behind it.

A command that needs one function of a package should not pay for importing
the whole package (the models, the HTTP stack, the scorer). A package's
``__init__`` lists its public names once, as the imports of its
``if TYPE_CHECKING:`` block, each written ``from module import name as name``
(so type checkers see the names and their types, and take them as re-exported);
``__getattr__ = lazy_exports(__name__)`` reads that block the first time a name
is asked for, imports the module that defines the name, and keeps the value on
the package like an ordinary attribute. ``__all__`` is the same list.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["exported_names", "lazy_exports"]


def exported_names(source: str) -> dict[str, tuple[str, str]]:
    """Public name -> (module, attribute), from the ``if TYPE_CHECKING:`` block of ``source``."""
    import ast

    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.If):
            continue
        if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                for alias in statement.names:
                    found[alias.asname or alias.name] = (statement.module, alias.name)
    return found


def lazy_exports(package: str) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that imports each listed name on first use."""
    table: dict[str, tuple[str, str]] = {}

    def __getattr__(name: str) -> object:
        if not table:
            init = sys.modules[package].__file__
            if init is not None:
                table.update(exported_names(Path(init).read_text(encoding="utf-8")))
        if name == "__all__":
            return sorted(table)
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home[0]), home[1])
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
