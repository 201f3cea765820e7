"""Every package names its public API once, and the list holds exactly what exists.

A package that exports lazily lists its names as the imports of its
``if TYPE_CHECKING:`` block (``from module import name as name``), read by
``apconform.core.lazy``; any other package lists them in ``__all__``. Reading
every listed name must give the object its home module defines, and the
package must show no other public name (submodules aside).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

from apconform.core.lazy import exported_names

SRC = Path(__file__).resolve().parents[1] / "src"
# What every lazy package imports to build its surface; not part of any package's API.
PLUMBING = frozenset({"annotations", "TYPE_CHECKING", "lazy_exports"})


def packages(src: Path, root: str) -> list[str]:
    """Every package under ``src/root`` except the generated models."""
    found = []
    for init in sorted((src / root).rglob("__init__.py")):
        parts = init.relative_to(src).parent.parts
        if "models" not in parts:
            found.append(".".join(parts))
    return found


def listed(init: Path) -> tuple[list[str], list[str]]:
    """The package's list of public names, and what is wrong with the way it is written."""
    text = init.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assigned: dict[str, ast.expr | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            assigned.update((t.id, node.value) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            assigned[node.target.id] = node.value
    lazy = "__getattr__" in assigned
    problems = [f"a second list {name}" for name in ("_EXPORTS", "_HOMES") if name in assigned]
    if not lazy:
        value = assigned.get("__all__")
        return (list(ast.literal_eval(value)) if value is not None else []), problems
    if "__all__" in assigned:
        problems.append("__all__ beside the TYPE_CHECKING list")
    exports = exported_names(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module not in ("__future__", "typing"):
            for alias in node.names:
                if alias.name in exports and alias.asname != alias.name:
                    problems.append(f"{alias.name} is not written `{alias.name} as {alias.name}`")
    return sorted(exports), problems


def surface_problems(src: Path, package: str) -> list[str]:
    """Everything that departs from "one list, naming exactly what exists"."""
    init = src.joinpath(*package.split("."), "__init__.py")
    names, problems = listed(init)
    module = importlib.import_module(package)
    exports = exported_names(init.read_text(encoding="utf-8"))
    for name in names:
        try:
            value = getattr(module, name)
        except AttributeError:
            problems.append(f"{package}.{name} is listed but does not exist")
            continue
        if name in exports:
            home, attribute = exports[name]
            if value is not getattr(importlib.import_module(home), attribute):
                problems.append(f"{package}.{name} is not {home}.{attribute}")
    if sorted(getattr(module, "__all__", [])) != sorted(names):
        problems.append(f"{package}.__all__ is not the list")
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    extra = sorted(public - set(names) - PLUMBING)
    if extra:
        problems.append(f"{package} shows names it does not list: {extra}")
    return problems


@pytest.mark.parametrize("package", packages(SRC, "apconform"))
def test_the_list_names_what_exists_and_nothing_else(package: str) -> None:
    assert surface_problems(SRC, package) == []


def test_every_package_is_checked() -> None:
    assert len(packages(SRC, "apconform")) >= 30


_PLANTED = {
    "planted/__init__.py": '"""A package with a bad list."""\n\n'
    "from __future__ import annotations\n\n"
    "from typing import TYPE_CHECKING\n\n"
    "from apconform.core.lazy import lazy_exports\n\n"
    "if TYPE_CHECKING:\n"
    "    from planted.things import real as real\n"
    "    from planted.things import ghost as ghost\n"
    "    from planted.things import loose\n\n"
    "from planted.things import extra\n\n"
    '_EXPORTS = {"real": "planted.things"}\n'
    "__getattr__ = lazy_exports(__name__)\n",
    "planted/things.py": "real = 1\nloose = 2\nextra = 3\n",
}


def test_self_test_a_bad_list_is_reported(tmp_path: Path) -> None:
    for rel, text in _PLANTED.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
        "from pathlib import Path; import test_package_surfaces as t;"
        "print('\\n'.join(t.surface_problems(Path(sys.argv[1]), 'planted')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path), str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.splitlines() == [
        "a second list _EXPORTS",
        "loose is not written `loose as loose`",
        "planted.ghost is listed but does not exist",
        "planted shows names it does not list: ['extra']",
    ]
