"""The package map holds: no import cycle between modules, and imports run one way through layers.

Every import counts, wherever it stands (inside a function, or under
``TYPE_CHECKING``): a dependency deferred to run time is still a dependency.
The layers are listed here, lowest first; a module may import its own layer
and the layers below it, never one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Lowest first. A module belongs to the layer of the longest prefix that names it; the root
# package ("apconform") names only itself, so a new package must be given its layer here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("apconform", "apconform.resources", "apconform.core"),
    (
        "apconform.models",
        "apconform.conformance.operations",
        "apconform.conformance.contracts",
        "apconform.conformance.schemas",
    ),
    (
        "apconform.ap1.numbers",
        "apconform.ap1.refusal",
        "apconform.ap1.masking",
        "apconform.ap1.clock",
        "apconform.ap1.rundir",
    ),
    ("apconform.ap1.calculator", "apconform.ap1.inputs", "apconform.apx"),
    ("apconform.ap1.seal", "apconform.ap1.transcript"),
    ("apconform.ap1.run", "apconform.ap1.mock"),
    ("apconform.ap1.scoring",),
    (
        "apconform.ap1.operations",
        "apconform.ap1.importers",
        "apconform.apx.operations",
        "apconform.conformance",
        "apconform.ap1",
        "apconform.ap1.inspect",
    ),
    ("apconform.results", "apconform.ledger"),
    (
        "apconform.cli",
        "apconform.commands",
        "apconform.demo",
        "apconform.ap1.cli",
        "apconform.ap1.adjudication_web",
        "apconform.ap1.demo",
        "apconform.apx.cli",
        "apconform.apx.demo",
        "apconform.conformance.cli",
        "apconform.conformance.demo",
        "apconform.ledger.cli",
        "apconform.ledger.demo",
        "apconform.ledger.recording",
        "apconform.api",
        "apconform.mcp",
        "apconform.dev",
    ),
)


def module_files(src: Path, package: str) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of ``package`` under ``src``."""
    found = {}
    for path in (src / package).rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path], package: str) -> set[str]:
    """The modules of ``package`` that the module ``name`` imports, by a walk of its syntax tree."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                targets.add(submodule if submodule in known else module)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
    return {
        t
        for t in targets
        if t in known and t != name and (t == package or t.startswith(package + "."))
    }


def import_graph(src: Path, package: str) -> dict[str, set[str]]:
    known = module_files(src, package)
    return {name: imports_of(name, path, known, package) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def layer_of(module: str, layers: tuple[tuple[str, ...], ...]) -> int | None:
    best: tuple[int, int] | None = None
    for number, prefixes in enumerate(layers):
        for prefix in prefixes:
            covers = module == prefix or ("." in prefix and module.startswith(prefix + "."))
            if covers and (best is None or len(prefix) > best[1]):
                best = (number, len(prefix))
    return None if best is None else best[0]


def upward_imports(
    graph: dict[str, set[str]], layers: tuple[tuple[str, ...], ...]
) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a module imports a higher layer than its own."""
    found = []
    for name, targets in sorted(graph.items()):
        mine = layer_of(name, layers)
        for target in sorted(targets):
            theirs = layer_of(target, layers)
            if mine is not None and theirs is not None and theirs > mine:
                found.append((name, target))
    return found


def test_no_import_cycle_between_modules() -> None:
    assert cycles(import_graph(SRC, "apconform")) == []


def test_every_module_has_a_layer() -> None:
    graph = import_graph(SRC, "apconform")
    assert [m for m in sorted(graph) if layer_of(m, LAYERS) is None] == []


def test_imports_run_one_way_through_the_layers() -> None:
    assert upward_imports(import_graph(SRC, "apconform"), LAYERS) == []


def test_ap1_top_level_stays_small_and_named_by_concept() -> None:
    ap1 = SRC / "apconform" / "ap1"
    top = sorted(p.name for p in ap1.glob("*.py"))
    assert len(top) <= 10, top
    cut_names = ("_more", "_blocks", "_misc", "_utils", "_helpers", "_extra", "_part")
    every = [p for p in (SRC / "apconform").rglob("*.py") if "models" not in p.parts]
    assert [p.name for p in every if p.stem.endswith(cut_names)] == []
    packages = [p for p in (SRC / "apconform").rglob("__init__.py") if "models" not in p.parts]
    undocumented = [
        str(p.relative_to(SRC))
        for p in packages
        if ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None
    ]
    assert undocumented == []


def test_no_lazy_export_is_shadowed_by_a_submodule() -> None:
    """Importing ``pkg.name`` sets ``pkg.name`` to the module, hiding a lazy export of that name."""
    shadowed = []
    for init in (SRC / "apconform").rglob("__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        exports = [
            key.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
            for key in node.value.keys
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        ]
        for name in exports:
            if (init.parent / f"{name}.py").exists() or (init.parent / name).is_dir():
                shadowed.append(f"{init.parent.relative_to(SRC)}: {name}")
    assert shadowed == []


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_self_test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": '"""A package."""\n',
            "pkg/a.py": "from pkg.b import thing\n",
            "pkg/b.py": "def f():\n    from pkg import c\n",
            "pkg/c.py": "import typing\nif typing.TYPE_CHECKING:\n    from .a import x\n",
            "pkg/d.py": "import pkg.a\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.c"}
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_self_test_an_upward_import_is_found(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/low/__init__.py": "",
            "pkg/low/base.py": "from pkg.high.top import x\n",
            "pkg/high/__init__.py": "",
            "pkg/high/top.py": "from pkg.low.base import y\n",
        },
    )
    layers = (("pkg", "pkg.low"), ("pkg.high",))
    graph = import_graph(tmp_path, "pkg")
    assert upward_imports(graph, layers) == [("pkg.low.base", "pkg.high.top")]
    assert cycles(graph) == [["pkg.high.top", "pkg.low.base"]]


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("apconform.core.canonical", 0),
        ("apconform.ap1.calculator.grammar", 3),
        ("apconform.ap1.scoring.measures.provenance", 6),
        ("apconform.ap1", 7),
        ("apconform.ap1.cli.scoring", 9),
    ],
)
def test_layer_lookup_takes_the_longest_prefix(module: str, layer: int) -> None:
    assert layer_of(module, LAYERS) == layer
