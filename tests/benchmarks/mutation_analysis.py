"""What mutation testing needs to know about the reference, measured rather than listed by hand.

- :func:`reached_modules`: the modules whose functions some vector's operation executes
  (a profile hook around the adapter call alone, not the harness's own work). These are
  the modules mutated: every module a vector can reach.
- :func:`static_reach`: the functions any operation could call, as an over-approximation: a
  function is reachable when its name (or, for a special method, its class's name) is
  referenced by a reachable function, starting from every operation the reference registers
  and from the module-level code of the mutated modules. A function outside this set cannot
  run during any operation, whatever its input; its mutants are excluded as unreachable, and
  the set is recomputed on every run, so the reason stays true as the code changes.
- :func:`mutant_changes`: each mutant's change, as the lines mutmut removed and added, so a
  waiver names the exact change it covers and goes stale when the mutant does.
"""

from __future__ import annotations

import ast
import copy
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from inspect import CO_OPTIMIZED
from pathlib import Path
from types import FrameType

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "apconform"
GENERATED = ("src/apconform/models/",)
"""Generated code (the Pydantic models): never mutated, since no one edits it by hand; the
schemas it comes from are checked by the parity and generation tests."""


def protocol_of(module: str) -> str:
    """The protocol a module's mutants count for: its package, the kit for the shared core."""
    parts = module.split("/")
    if "ap1" in parts[:3]:
        return "ap1"
    if "apx" in parts[:3]:
        return "apx"
    return "kit"


def reached_modules() -> list[str]:
    """Every module (repository path) with a function some vector's operation executes.

    A profile hook records the file of every Python function called during the adapter
    call alone (not the harness's loading and judging), in every thread. It replaces a
    coverage measurement, which needs a package the test suite does not install."""
    import sys
    import threading

    from apconform.conformance.reference import adapter
    from apconform.conformance.vectors import load_vectors

    called: set[str] = set()

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        # A function's body: not a module or class body run by a lazy import, nor a lambda
        # or comprehension (mutmut mutates named functions and methods)
        code = frame.f_code
        if event == "call" and code.co_flags & CO_OPTIMIZED and not code.co_name.startswith("<"):
            called.add(code.co_filename)

    for vector in load_vectors():
        message = {
            "cmd": "run",
            "seq": 1,
            "operation": vector.vector.operation,
            "input": copy.deepcopy(vector.vector.input),
        }
        threading.setprofile(profile)  # type: ignore[arg-type]
        sys.setprofile(profile)  # type: ignore[arg-type]
        try:
            adapter(message)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
    found = set()
    for filename in called:
        path = Path(filename).resolve()
        if not path.is_relative_to(PACKAGE.resolve()):
            continue
        rel = path.relative_to(SRC.parent.resolve()).as_posix()
        if not rel.startswith(GENERATED):
            found.add(rel)
    return sorted(found)


@dataclass(frozen=True)
class Function:
    """A function or method as mutmut names it (``x_name`` or ``xǁClassǁname``)."""

    module: str  # dotted module name
    mangled: str
    name: str
    owner: str | None  # the class, for a method
    node: ast.AST


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _functions(path: Path) -> tuple[list[Function], list[ast.stmt]]:
    """A file's top-level functions and methods, and its module-level statements."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _module_name(path)
    found: list[Function] = []
    rest: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(Function(module, f"x_{node.name}", node.name, None, node))
            rest.extend(node.decorator_list)  # type: ignore[arg-type]
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    mangled = f"xǁ{node.name}ǁ{item.name}"
                    found.append(Function(module, mangled, item.name, node.name, item))
                    rest.extend(item.decorator_list)  # type: ignore[arg-type]
                else:
                    rest.append(item)
            rest.extend(node.bases)  # type: ignore[arg-type]
            rest.extend(node.decorator_list)  # type: ignore[arg-type]
        else:
            rest.append(node)
    return found, rest


def _names(nodes: Iterable[ast.AST]) -> set[str]:
    found: set[str] = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                found.add(node.args[1].value)  # getattr(obj, "name")
    return found


def _exported(node: ast.stmt) -> bool:
    """``__all__ = [...]``: names a module exports, which call nothing."""
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
    )


def _operation_roots() -> set[tuple[str, str]]:
    """(module, function name) of every registered operation and of the reference adapter."""
    import inspect

    from apconform.conformance.operations import get_operation, operation_names

    roots = {
        ("apconform.conformance.reference", "adapter"),
        ("apconform.conformance.reference", "run_case"),
    }
    for name in operation_names():
        function = inspect.unwrap(get_operation(name))
        roots.add((function.__module__, function.__name__))
    return roots


def static_reach(mutated: Iterable[str]) -> set[str]:
    """The dotted ``module.mangled`` names of every function any operation might call."""
    functions: list[Function] = []
    module_level: dict[str, list[ast.stmt]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found, rest = _functions(path)
        functions.extend(found)
        module_level[_module_name(path)] = rest
    by_name: dict[str, list[Function]] = {}
    by_class: dict[str, list[Function]] = {}
    for function in functions:
        by_name.setdefault(function.name, []).append(function)
        if function.owner is not None and function.name.startswith("__"):
            by_class.setdefault(function.owner, []).append(function)
    roots = _operation_roots()
    pending = [f for f in functions if (f.module, f.name) in roots and f.owner is None]
    pending += [f for f in functions if f.module.startswith("apconform.models")]
    seed = _names(
        stmt
        for rel in mutated
        for stmt in module_level.get(_module_name(SRC.parent / rel), [])
        if not _exported(stmt)
    )
    reached: set[int] = set()
    names_seen: set[str] = set()

    def follow(names: set[str]) -> None:
        for name in names - names_seen:
            names_seen.add(name)
            pending.extend(by_name.get(name, []))
            pending.extend(by_class.get(name, []))

    follow(seed)
    while pending:
        function = pending.pop()
        if id(function) in reached:
            continue
        reached.add(id(function))
        follow(_names([function.node]))
    return {f"{f.module}.{f.mangled}" for f in functions if id(f) in reached}


def import_time_functions() -> set[str]:
    """The dotted ``module.mangled`` names of functions that their own module's top-level
    code calls by name: they run while the module is imported, before mutmut switches a
    mutant on, so their mutants can survive whatever the vectors do. Not an exclusion: a
    note on a survivor."""
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        functions, rest = _functions(path)
        called = {
            node.func.id
            for stmt in rest
            for node in ast.walk(stmt)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        found |= {
            f"{f.module}.{f.mangled}" for f in functions if f.owner is None and f.name in called
        }
    return found


def unmutated_functions(module: str) -> list[dict[str, object]]:
    """The functions of a module (repository path) that mutmut 3.8.1 does not mutate: those
    with a decorator other than a lone ``staticmethod`` or ``classmethod`` (it leaves them
    alone, since their decorators run at definition). They are reported, not scored."""
    found, _ = _functions(SRC.parent / module)
    skipped = []
    for function in found:
        node = function.node
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        decorators = [ast.unparse(d) for d in node.decorator_list]
        if not decorators or decorators in (["staticmethod"], ["classmethod"]):
            continue
        name = f"{function.owner}.{function.name}" if function.owner else function.name
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        skipped.append({"function": name, "decorators": decorators, "lines": lines})
    return skipped


_MUTANT = re.compile(r"^(?P<function>.+)__mutmut_(?P<number>\d+)$")


def function_of(mutant: str) -> str:
    """``apconform.core.x.x_f__mutmut_3`` -> ``apconform.core.x.x_f``."""
    match = _MUTANT.match(mutant)
    assert match is not None, mutant
    return match.group("function")


def mutant_changes(mutated_file: Path) -> dict[str, str]:
    """Each mutant in a mutmut-generated file, as its changed lines ("- old" / "+ new")."""
    tree = ast.parse(mutated_file.read_text(encoding="utf-8"))
    lines = mutated_file.read_text(encoding="utf-8").splitlines()
    bodies: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "__mutmut_" in node.name:
            # from the def line (a mutant may change a default argument), the name left out
            text = [
                line.replace("# type: ignore # mutmut generated", "").rstrip()
                for line in lines[node.lineno - 1 : node.end_lineno]
            ]
            text[0] = text[0].replace(f"def {node.name}(", "def (", 1)
            bodies[node.name] = text
    changes = {}
    for name, body in bodies.items():
        match = re.match(r"^(?P<base>.+)__mutmut_(?P<n>\d+)$", name)
        if match is None:
            continue
        original = bodies.get(f"{match.group('base')}__mutmut_orig")
        if original is None:
            continue
        diff = [
            line
            for line in difflib.unified_diff(original, body, lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        ]
        changes[name] = "\n".join(f"{line[0]} {line[1:].strip()}" for line in diff)
    return changes
