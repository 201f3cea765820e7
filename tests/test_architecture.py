"""The package map holds: no import cycle between modules, and imports run one way through layers.

Every import counts, wherever it stands (inside a function, or under
``TYPE_CHECKING``), and so does a module loaded by name (``importlib.import_module``,
the dispatcher's command table, a package's lazy ``_EXPORTS``): a dependency deferred
to run time is still a dependency.
The layers are listed here, lowest first; a module may import its own layer
and the layers below it, never one above.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from apconform.core.lazy import exported_names

SRC = Path(__file__).resolve().parents[1] / "src"

# Lowest first. A module belongs to the layer of the longest prefix that names it; the root
# package ("apconform") names only itself, so a new package must be given its layer here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("apconform", "apconform.resources", "apconform.core"),
    (
        "apconform.models",
        "apconform.conformance.operations",
        "apconform.conformance.contracts",
        "apconform.results",
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
    ("apconform.ledger",),
    (
        "apconform.cli",
        "apconform.demo",
        "apconform.demo_context",
        "apconform.ap1.adjudication_web",
        "apconform.ap1.demo",
        "apconform.apx.demo",
        "apconform.conformance.demo",
        "apconform.ledger.demo",
        "apconform.site",
        "apconform.api",
        "apconform.mcp",
        "apconform.dev",
    ),
)


# Loads by name that the checks accept, each for a reason. The operation registry imports the
# packages that register operations into it when it is first asked for one, so a lookup sees
# every operation whichever module was imported first; the packages import the registry to
# register. tests check every pair here is still in the graph.
PLUGIN_LOADS = frozenset(
    {
        ("apconform.conformance.operations", "apconform.ap1.operations"),
        ("apconform.conformance.operations", "apconform.apx.operations"),
        ("apconform.conformance.operations", "apconform.conformance.kit_operations"),
    }
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


_BY_NAME = ("import_module", "lazy_exports")


def _called(node: ast.AST) -> str | None:
    """The name of the function a call calls (``import_module`` for ``importlib.import_module``)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _names(node: ast.AST) -> list[ast.AST]:
    """The string and f-string nodes in ``node``, not looking inside calls of other functions."""
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return [node]
    if isinstance(node, ast.Call) and _called(node) not in _BY_NAME:
        return []
    return [found for child in ast.iter_child_nodes(node) for found in _names(child)]


def importlib_targets(tree: ast.AST, known: dict[str, Path]) -> set[str]:
    """The modules a module imports by name at run time.

    In a module that calls ``importlib.import_module`` (or ``lazy_exports``), a target is a
    string naming a module of the package that is an argument of that call or stands in a
    table the call reads (any assignment: the dispatcher's ``_COMMANDS``, the demo's
    ``_STEPS``, an ``_EXPORTS`` map); strings passed to other functions (a ``python -m``
    command line) are not imports. An f-string such as ``f"apconform.models.{name}"`` targets
    the package its constant prefix names.
    """
    calls = [node for node in ast.walk(tree) if _called(node) in _BY_NAME]
    if not calls:
        return set()
    sources: list[ast.AST] = [*calls]
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            sources.append(node.value)
    found: set[str] = set()
    for source in sources:
        for text in _names(source):
            if isinstance(text, ast.Constant) and isinstance(text.value, str):
                if text.value in known:
                    found.add(text.value)
            elif isinstance(text, ast.JoinedStr) and text.values:
                head = text.values[0]
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    package = head.value.rpartition(".")[0]
                    if package in known:
                        found.add(package)
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
    targets |= importlib_targets(tree, known)
    return {
        t
        for t in targets
        if t in known and t != name and (t == package or t.startswith(package + "."))
    }


def import_graph(src: Path, package: str) -> dict[str, set[str]]:
    known = module_files(src, package)
    return {name: imports_of(name, path, known, package) for name, path in known.items()}


def checked_graph(src: Path) -> dict[str, set[str]]:
    """The graph of ``apconform`` under ``src`` without the accepted plugin loads."""
    graph = import_graph(src, "apconform")
    return {
        name: {t for t in targets if (name, t) not in PLUGIN_LOADS}
        for name, targets in graph.items()
    }


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
    assert cycles(checked_graph(SRC)) == []


def test_every_module_has_a_layer() -> None:
    graph = import_graph(SRC, "apconform")
    assert [m for m in sorted(graph) if layer_of(m, LAYERS) is None] == []


def test_imports_run_one_way_through_the_layers() -> None:
    assert upward_imports(checked_graph(SRC), LAYERS) == []


def test_every_accepted_plugin_load_is_still_made() -> None:
    graph = import_graph(SRC, "apconform")
    assert sorted(p for p in PLUGIN_LOADS if p[1] not in graph[p[0]]) == []


def test_loads_by_name_are_in_the_graph() -> None:
    graph = import_graph(SRC, "apconform")
    assert {"apconform.cli.kit", "apconform.cli.ap1.instrument", "apconform.cli.ledger"} <= (
        graph["apconform.cli.dispatch"]
    )
    assert "apconform.cli.kit_demo" in graph["apconform.demo"]
    assert "apconform.models" in graph["apconform.api.openapi"]  # f"apconform.models.{module}"
    assert "apconform.api.app" in graph["apconform.api"]  # a lazy export
    assert "apconform.dev.cli" not in graph["apconform.dev.gen"]  # a `python -m` argument


def test_no_command_module_imports_the_dispatcher() -> None:
    graph = import_graph(SRC, "apconform")
    importers = sorted(
        name for name, targets in graph.items() if "apconform.cli.dispatch" in targets
    )
    assert importers == ["apconform.cli", "apconform.cli.__main__"]


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
        for name in exported_names(init.read_text(encoding="utf-8")):
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
        ("apconform.cli.ap1.scoring", 9),
    ],
)
def test_layer_lookup_takes_the_longest_prefix(module: str, layer: int) -> None:
    assert layer_of(module, LAYERS) == layer


_PLANTS = {
    "function-level import": (
        "apconform/core/canonical.py",
        "\n\ndef _planted() -> None:\n    from apconform.cli.dispatch import main\n",
        ("apconform.core.canonical", "apconform.cli.dispatch"),
    ),
    "importlib.import_module": (
        "apconform/results/kinds.py",
        "\n\ndef _planted() -> object:\n    import importlib\n\n"
        '    return importlib.import_module("apconform.ledger.store")\n',
        ("apconform.results.kinds", "apconform.ledger.store"),
    ),
    "a table of module names": (
        "apconform/core/lazy.py",
        '\n\n_TABLE = {"apconform.api.app": "create_app"}\n\n\n'
        "def _planted(name: str) -> object:\n"
        "    return importlib.import_module(name)\n",
        ("apconform.core.lazy", "apconform.api.app"),
    ),
}


@pytest.fixture(scope="module")
def src_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the real ``src``, to plant imports in."""
    root = tmp_path_factory.mktemp("src")
    shutil.copytree(
        SRC / "apconform",
        root / "apconform",
        ignore=lambda folder, names: [n for n in names if n == "__pycache__" or n.endswith(".pyc")],
    )
    return root


@pytest.mark.parametrize("kind", sorted(_PLANTS))
def test_self_test_an_upward_import_planted_in_a_copy_of_src_is_found(
    kind: str, src_copy: Path, tmp_path: Path
) -> None:
    rel, code, pair = _PLANTS[kind]
    copy = tmp_path / "src"
    shutil.copytree(src_copy, copy)
    assert upward_imports(checked_graph(copy), LAYERS) == []
    with (copy / rel).open("a", encoding="utf-8") as handle:
        handle.write(code)
    assert upward_imports(checked_graph(copy), LAYERS) == [pair]


def test_self_test_a_command_module_importing_the_dispatcher_is_a_cycle(
    src_copy: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "src"
    shutil.copytree(src_copy, copy)
    assert cycles(checked_graph(copy)) == []
    with (copy / "apconform/cli/mcp.py").open("a", encoding="utf-8") as handle:
        handle.write("\n\ndef _planted() -> None:\n    from apconform.cli.dispatch import main\n")
    assert cycles(checked_graph(copy)) == [["apconform.cli.dispatch", "apconform.cli.mcp"]]
