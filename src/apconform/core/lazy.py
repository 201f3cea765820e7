"""Lazy re-exports: a package names its public API without importing what lies behind it.

A command that needs one function of a package should not pay for importing
the whole package (the models, the HTTP stack, the scorer). A package's
``__init__`` maps each public name to the module that defines it; the module
is imported the first time the name is read, and the value is then kept on the
package like an ordinary attribute.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that imports ``exports[name]`` on first use."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
