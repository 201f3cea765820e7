"""One generation command for every derived artefact, and the drift check CI runs.

Everything generated is produced in memory as ``{relative path: text}``, then
either written (removing stale files in the folders it owns) or compared with
the working tree (``--check``), naming every changed, missing or extra file.
Products are registered in :data:`PRODUCTS`; later parts of the kit (the vector
manifest, the OpenAPI document) add theirs the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apconform.dev.operation_contracts import OperationSpec

__all__ = ["PRODUCTS", "Product", "build_all", "check", "default_jobs", "main_gen", "write"]

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_DIR = Path("schemas")
ROOT_SCHEMA = "apconform.yaml"  # imports every other schema; used for the docs site


@dataclass(frozen=True)
class Product:
    """A generated artefact family: the paths (files or folders) it owns and how to build it.

    A product that ``needs`` others is built after them and receives their
    in-memory output, so one run of ``gen`` is always enough (the vector
    manifest digests the JSON Schemas and the clause registry being generated).
    """

    name: str
    owns: tuple[str, ...]
    build: Callable[[Path], dict[str, str]]
    needs: tuple[str, ...] = ()
    build_from: Callable[[Path, Mapping[str, str]], dict[str, str]] | None = None


_RULES_DEFERRED_DOC = (
    '"""The validation context under which class rules are not enforced: a loader that reports',
    'each breach itself, beside its other findings, asks ``rule_breaches`` after validating."""',
)
"""The docstring of ``apconform.models.RULES_DEFERRED``, as the package states it."""


def _schema_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / SCHEMA_DIR).glob("*.yaml") if p.name != ROOT_SCHEMA)


def _schema_ids(root: Path) -> dict[str, str]:
    """Schema id -> file stem, read from the run's views (run inside ``root``)."""
    ids = {}
    for path in _schema_files(root):
        ids[str(_view(root, (SCHEMA_DIR / path.name).as_posix()).schema.id)] = path.stem
    return ids


_VIEWS: dict[tuple[Path, str], Any] = {}
"""SchemaViews of the run in progress, one per schema file (see :func:`_view`)."""


def _view(root: Path, rel: str) -> Any:
    """The run's one SchemaView of ``rel``: the models and the JSON Schemas read the same views
    (loading a schema and its imports, and inducing its slots, is most of their cost); the
    cache is emptied when the run ends, so an edited schema is always read again."""
    from linkml_runtime.utils.schemaview import SchemaView

    from apconform.dev.schema_sharing import share_induced_slots

    key = (root, rel)
    view = _VIEWS.get(key)
    if view is None:
        view = _VIEWS[key] = share_induced_slots(SchemaView(rel))
    return view


_DEFINITIONS: dict[tuple[Path, str], dict[str, Any]] = {}
"""Patched JSON Schema definitions of the run in progress, one per schema file."""


def _definitions(root: Path, rel: str) -> dict[str, Any]:
    """The run's JSON Schema definitions of ``rel`` (run inside ``root``): the document schemas
    and the operation schemas are cut from the same generator run. A schema whose patterns use
    shorthand classes is refused here, before anything is cut from it."""
    from apconform.dev.constraints import nonportable_patterns
    from apconform.dev.json_schema import document_definitions

    key = (root, rel)
    defs = _DEFINITIONS.get(key)
    if defs is None:
        defs, view = document_definitions(rel, _view(root, rel))
        problems = nonportable_patterns(view)
        if problems:
            raise SystemExit(
                f"{rel}: patterns must not use the shorthand classes \\s \\S \\d \\w \\b "
                "(each regular-expression engine reads them differently); spell the class "
                "out, e.g. [0-9] or the NonBlankText type:\n  " + "\n  ".join(problems)
            )
        _DEFINITIONS[key] = defs
    return defs


def _in_root(root: Path) -> _Chdir:
    return _Chdir(root)


class _Chdir:
    """LinkML resolves imports and records paths relative to the working directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.previous = Path.cwd()

    def __enter__(self) -> None:
        os.chdir(self.path)

    def __exit__(self, *exc: object) -> None:
        os.chdir(self.previous)


def build_models(root: Path) -> dict[str, str]:
    from apconform.dev.json_schema import document_classes
    from apconform.dev.pydantic_models import generate_module

    out: dict[str, str] = {}
    documents: dict[str, tuple[str, str]] = {}
    with _in_root(root):
        siblings = _schema_ids(root)
        for path in _schema_files(root):
            rel = (SCHEMA_DIR / path.name).as_posix()
            view = _view(root, rel)
            out[f"src/apconform/models/{path.stem}.py"] = generate_module(rel, siblings, view)
            for doc, cls in document_classes(view).items():
                documents[doc] = (path.stem, cls)
    lines = [
        '"""Generated by `apconform-dev gen` from the LinkML schemas. Do not edit by hand.',
        "",
        "DOCUMENTS maps each document type to (module, class) and its JSON Schema file;",
        "RULES_DEFERRED is the validation context that leaves the class rules to the caller.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Mapping",
        "",
        "__all__ = "
        + repr(sorted(["DOCUMENTS", "RULES_DEFERRED", *(p.stem for p in _schema_files(root))])),
        "",
        "DOCUMENTS: dict[str, tuple[str, str]] = {",
        *(f"    {doc!r}: ({mod!r}, {cls!r})," for doc, (mod, cls) in sorted(documents.items())),
        "}",
        "",
        'RULES_DEFERRED: Mapping[str, str] = {"apconform.class-rules": "deferred"}',
        *_RULES_DEFERRED_DOC,
        "",
    ]
    out["src/apconform/models/__init__.py"] = "\n".join(lines)
    support = Path(__file__).parent / "templates" / "pydantic" / "jsontypes.py.txt"
    out["src/apconform/models/_jsontypes.py"] = support.read_text(encoding="utf-8")
    out.update(build_operation_index_module(root))
    return out


def _operation_specs(root: Path) -> dict[str, OperationSpec]:
    from apconform.dev.operation_contracts import operation_specs

    with _in_root(root):
        return operation_specs(_schema_files(root), _schema_ids(root), lambda rel: _view(root, rel))


def build_operation_index_module(root: Path) -> dict[str, str]:
    """src/apconform/models/operation_index.py: each vector operation's contract."""
    from apconform.dev.operation_contracts import build_operation_index

    return build_operation_index(_operation_specs(root))


def build_operation_catalogue(root: Path) -> dict[str, str]:
    """docs/operations/: the operation catalogue, from the contracts and the vectors."""
    from apconform.dev.catalogue_pages import build_catalogue_pages

    return build_catalogue_pages(root)


def build_operation_json_schemas(root: Path) -> dict[str, str]:
    """schemas/operations/: the JSON Schema of every operation's input and answer."""
    from apconform.dev.operation_contracts import build_operation_schemas

    files = {path.stem: (SCHEMA_DIR / path.name).as_posix() for path in _schema_files(root)}
    specs = _operation_specs(root)
    with _in_root(root):
        return build_operation_schemas(specs, files, lambda rel: _definitions(root, rel))


def build_json_schemas(root: Path) -> dict[str, str]:
    from apconform.dev.json_schema import document_classes, document_schemas

    out: dict[str, str] = {}
    with _in_root(root):
        for path in _schema_files(root):
            rel = (SCHEMA_DIR / path.name).as_posix()
            defs = _definitions(root, rel)
            documents = document_classes(_view(root, rel))
            for doc, text in document_schemas(defs, documents).items():
                out[f"schemas/jsonschema/{doc}.schema.json"] = text
    return out


def build_reference_docs(root: Path) -> dict[str, str]:
    from linkml.generators.docgen import DocGenerator

    from apconform.dev.reference_pages import index_view, render_pages, separate_headings
    from apconform.dev.schema_sharing import share_induced_slots

    with _in_root(root):
        generator = DocGenerator(
            (SCHEMA_DIR / ROOT_SCHEMA).as_posix(),
            subfolder_type_separation=True,
            render_imports=True,
            truncate_descriptions=False,
            mergeimports=True,
        )
        index_view(share_induced_slots(generator.schemaview))
        pages = render_pages(generator)
    return {f"docs/reference/{rel}": separate_headings(text) for rel, text in pages.items()}


def build_clauses(root: Path) -> dict[str, str]:
    from apconform.conformance.clauses import extract_clauses

    registry = extract_clauses(root)
    text = json.dumps(registry, indent=2, ensure_ascii=False) + "\n"
    return {"spec/clauses.json": text}


def build_spec_pages(root: Path) -> dict[str, str]:
    """The normative text inside the docs site, plus an index of every clause."""
    from apconform.conformance.clauses import extract_clauses

    out: dict[str, str] = {}
    for path in sorted((root / "spec").rglob("*.md")):
        rel = path.relative_to(root / "spec").as_posix()
        out[f"docs/spec/{rel}"] = path.read_text(encoding="utf-8")
    registry = extract_clauses(root)
    lines = [
        "# Specification text",
        "",
        "The normative text of each protocol, in the kit's own words, split into",
        "clauses with stable ids. This index is generated from `spec/clauses.json`.",
        "",
    ]
    titles = {"apx": "APx 0.1", "ap1": "AP-1", "kit": "The kit's own rules"}
    for protocol, title in titles.items():
        clauses = [c for c in registry["clauses"] if c["protocol"] == protocol]
        lines += [f"## {title}", ""]
        if not clauses:
            lines += ["No clauses yet.", ""]
            continue
        lines += ["| Clause | Level | Section | Status |", "|---|---|---|---|"]
        for c in clauses:
            page = c["file"].removeprefix("spec/")
            link = f"[{c['id']}]({page}#{c['anchor']})"
            lines.append(f"| {link} | {c['level']} | {c['section']} | {c['status']} |")
        lines.append("")
    out["docs/spec/index.md"] = "\n".join(lines)
    return out


def code_modules() -> list[str]:
    """The modules that register error codes: those whose source calls ``define_code``.

    A code exists only once ``define_code`` has run, and every module that registers one
    names the function (directly, or in a helper of its own such as the APx kernel's), so
    importing these fills the registry as importing every module does, for about half the
    cost: most of the package (the Inspect AI scorer, the run engine's HTTP client) defines
    none. ``tests/dev/test_generation.py`` checks the two registries are the same.
    """
    import apconform

    package = Path(apconform.__file__).parent
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).with_suffix("").parts
        if parts[0] in ("dev", "models") or "define_code" not in path.read_text("utf-8"):
            continue
        names.append(".".join(("apconform", *parts)).removesuffix(".__init__"))
    return names


def build_error_codes(root: Path) -> dict[str, str]:
    """The table of every stable error code, from the registry the code raises from."""
    import importlib

    from apconform.core.errors import registered_codes

    for name in code_modules():
        importlib.import_module(name)
    lines = [
        "# Error codes",
        "",
        "Every refusal the kit makes carries one of these stable codes. The table is",
        "generated from the code itself (`apconform-dev gen`), so it lists exactly the",
        "codes the kit can raise. *Exit* is the command-line exit status; *HTTP* is the",
        "status the API answers with.",
        "",
        "| Code | Meaning | What to do | Exit | HTTP |",
        "|---|---|---|---|---|",
    ]

    def cell(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")

    for code in registered_codes():
        hint, title = cell(code.hint), cell(code.title)
        lines.append(
            f"| `{code.code}` | {title} | {hint} | {code.exit_status} | {code.http_status} |"
        )
    return {"docs/kit/error-codes.md": "\n".join(lines) + "\n"}


def build_mutation_page(root: Path) -> dict[str, str]:
    """docs/kit/mutation.md from the mutation benchmark's result file."""
    from apconform.dev.mutation_page import build

    return build(root)


def build_vector_releases(root: Path, built: Mapping[str, str]) -> dict[str, str]:
    """vectors/RELEASES.json and the changelog: the history, with a new entry when
    vectors/VERSION moved; refused when expectations changed and the version did not."""
    from apconform.conformance.releases import (
        history_text,
        next_history,
        read_version,
        render_changelog,
        set_state,
    )
    from apconform.core.errors import ApconformError
    from apconform.core.files import load_path
    from apconform.core.validation import validate_document
    from apconform.models.conformance import VectorReleases

    vectors = root / "vectors"
    try:
        declared = read_version(vectors)
        if declared is None:
            raise SystemExit("vectors/VERSION is missing: write the vector set's version there")
        history = None
        if (vectors / "RELEASES.json").is_file():
            history = load_path(vectors / "RELEASES.json")
            validate_document(VectorReleases, history, what="vectors/RELEASES.json")
        state = set_state(vectors, json.loads(built["spec/clauses.json"]))
        updated = next_history(history, declared, state)
    except ApconformError as error:
        raise SystemExit(f"{error.code}: {error.message}") from None
    changelog = render_changelog(updated)
    return {
        "vectors/RELEASES.json": history_text(updated),
        "vectors/CHANGELOG.md": changelog,
        "docs/kit/vector-changelog.md": changelog,
    }


def build_vector_manifest(root: Path, built: Mapping[str, str]) -> dict[str, str]:
    """vectors/MANIFEST.json, signed with the published test key (deterministic Ed25519)."""
    from apconform.conformance.manifest import build_manifest, load_vector_test_key
    from apconform.core.canonical import sha256_hex

    schemas = {
        rel: sha256_hex(json.loads(text))
        for rel, text in built.items()
        if rel.startswith("schemas/jsonschema/")
    }
    registry = json.loads(built["spec/clauses.json"])
    manifest = build_manifest(
        root / "vectors",
        clause_registry_digest=sha256_hex(registry),
        schema_digests=schemas,
        key=load_vector_test_key(),
        clause_registry=registry,
        texts={
            rel.removeprefix("vectors/"): text
            for rel, text in built.items()
            if rel in ("vectors/RELEASES.json", "vectors/CHANGELOG.md")
        },
    )
    return {"vectors/MANIFEST.json": json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"}


def build_conformance_suite(root: Path, built: Mapping[str, str]) -> dict[str, str]:
    """conformance/clauses/test_<protocol>.py: one clause-quoting test per clause."""
    from apconform.conformance.suite import build_suite

    return build_suite(json.loads(built["spec/clauses.json"]))


def _no_direct_build(root: Path) -> dict[str, str]:
    raise AssertionError("built from other products")


def build_population_coverage(root: Path) -> dict[str, str]:
    """docs/apx/population-coverage.md, from the coverage study's output file."""
    from apconform.dev.coverage_page import build_coverage_page

    return build_coverage_page(root)


def build_explainer_copy(root: Path) -> dict[str, str]:
    """The APx explainer page inside the docs site: the very files ``apconform serve`` serves."""
    source = root / "src" / "apconform" / "api" / "explainer"
    target = "docs/assets/apx-explainer"
    out = {f"{target}/index.html": (source / "index.html").read_text(encoding="utf-8")}
    for name in ("explainer.js", "explainer.css"):
        out[f"{target}/explainer/{name}"] = (source / name).read_text(encoding="utf-8")
    return out


def build_openapi(root: Path) -> dict[str, str]:
    """The HTTP API's OpenAPI document and its Markdown rendering for the docs site."""
    from apconform.api.app import ledger_openapi_text, openapi_text
    from apconform.api.example_store import recording
    from apconform.api.openapi_docs import openapi_markdown

    with recording() as examples:  # computed here once, read by every API worker
        text, ledger = openapi_text(), ledger_openapi_text()
    return {
        "schemas/openapi.json": text,
        "src/apconform/api/openapi_examples.json": examples(),
        "docs/api/reference.md": openapi_markdown(json.loads(text)),
        "schemas/openapi-ledger.json": ledger,
        "docs/api/ledger-reference.md": openapi_markdown(
            json.loads(ledger),
            heading="Ledger routes reference",
            source="schemas/openapi-ledger.json",
        ),
    }


PRODUCTS: list[Product] = [
    Product("models", ("src/apconform/models",), build_models),
    Product("json-schema", ("schemas/jsonschema",), build_json_schemas),
    Product("reference-docs", ("docs/reference",), build_reference_docs),
    Product("clauses", ("spec/clauses.json",), build_clauses),
    Product("spec-pages", ("docs/spec",), build_spec_pages),
    Product("error-codes", ("docs/kit/error-codes.md",), build_error_codes),
    Product(
        "vector-releases",
        ("vectors/RELEASES.json", "vectors/CHANGELOG.md", "docs/kit/vector-changelog.md"),
        _no_direct_build,
        needs=("clauses",),
        build_from=build_vector_releases,
    ),
    Product(
        "vector-manifest",
        ("vectors/MANIFEST.json",),
        _no_direct_build,
        needs=("json-schema", "clauses", "vector-releases"),
        build_from=build_vector_manifest,
    ),
    Product(
        "conformance-suite",
        ("conformance/clauses",),
        _no_direct_build,
        needs=("clauses",),
        build_from=build_conformance_suite,
    ),
    Product(
        "openapi",
        (
            "schemas/openapi.json",
            "src/apconform/api/openapi_examples.json",
            "docs/api/reference.md",
            "schemas/openapi-ledger.json",
            "docs/api/ledger-reference.md",
        ),
        build_openapi,
    ),
    Product("operation-schemas", ("schemas/operations",), build_operation_json_schemas),
    Product("operation-catalogue", ("docs/operations",), build_operation_catalogue),
    Product("population-coverage", ("docs/apx/population-coverage.md",), build_population_coverage),
    Product("explainer-docs", ("docs/assets/apx-explainer",), build_explainer_copy),
    Product("mutation-page", ("docs/kit/mutation.md",), build_mutation_page),
]


_PROCESSES = (
    ("models", "json-schema", "operation-schemas", "openapi"),
    (
        "reference-docs",
        "operation-catalogue",
        "error-codes",
        "clauses",
        "spec-pages",
        "mutation-page",
    ),
)
"""How the products that need no other are split over two processes (in this order).

The first group shares the run's SchemaViews and JSON Schema definitions; the
second group's catalogue and error codes share the package's imports. The groups
take about the same CPU time (docs/performance-history.md, "The maintainer loop")."""


def _build_products(root: Path, names: tuple[str, ...]) -> dict[str, dict[str, str]] | str:
    """Build directly built products; a refusal (SystemExit) comes back as its message."""
    from apconform.dev.schema_sharing import loading_once

    by_name = {p.name: p for p in PRODUCTS}
    try:
        with loading_once():
            return {name: by_name[name].build(root) for name in names}
    except SystemExit as exc:
        return str(exc.code)
    finally:
        _VIEWS.clear()
        _DEFINITIONS.clear()


def _build_direct(root: Path, names: list[str], jobs: int) -> dict[str, dict[str, str]]:
    """The outputs of the products that need no other product, in ``jobs`` processes.

    They read only the sources, so they can be built side by side; forked workers inherit
    everything imported so far. The results are the same as one process's.
    """
    groups = [tuple(n for n in group if n in names) for group in _PROCESSES]
    grouped = {n for group in groups for n in group}
    groups = [g for g in groups if g] + [(n,) for n in names if n not in grouped]
    import multiprocessing

    if jobs < 2 or len(groups) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        parts = [_build_products(root, group) for group in groups]
    else:
        from concurrent.futures import ProcessPoolExecutor

        # Both groups run LinkML generators; imported once here, before the fork, the
        # package (every generator, SQLAlchemy among them: about 0.6 CPU-seconds) serves
        # both workers instead of being imported by each.
        import linkml.generators  # noqa: F401

        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(min(jobs, len(groups)), mp_context=context) as pool:
            parts = list(pool.map(_build_products, [root] * len(groups), groups))
    outputs: dict[str, dict[str, str]] = {}
    for part in parts:
        if isinstance(part, str):
            raise SystemExit(part)
        outputs.update(part)
    return outputs


def default_jobs() -> int:
    """Processes a generation run uses: two on a multi-core machine, else one."""
    return 2 if (os.cpu_count() or 1) > 1 else 1


def build_all(
    root: Path = ROOT, *, only: set[str] | None = None, jobs: int | None = None
) -> dict[str, str]:
    """Every product's files, in memory; refuses paths that differ only in letter case.

    ``jobs`` processes build the products that need no other (None: :func:`default_jobs`).
    """
    files: dict[str, str] = {}
    scratch: dict[str, str] = {}  # products built only because another one needs them
    wanted = {p.name for p in PRODUCTS if only is None or p.name in only}
    needed = {need for p in PRODUCTS if p.name in wanted for need in p.needs}
    direct = [p.name for p in PRODUCTS if p.name in wanted | needed and p.build_from is None]
    built = _build_direct(root, direct, default_jobs() if jobs is None else jobs)
    for product in PRODUCTS:
        if product.name not in wanted | needed:
            continue
        if product.build_from is not None:
            output = product.build_from(root, {**scratch, **files})
        else:
            output = built[product.name]
        (files if product.name in wanted else scratch).update(output)
    folded: dict[str, str] = {}
    for rel in sorted(files):
        other = folded.setdefault(rel.casefold(), rel)
        if other != rel:
            raise SystemExit(
                f"generated paths {other} and {rel} differ only in case and would collide "
                "on macOS and Windows checkouts; rename the schema element"
            )
    return files


def _owned_files(root: Path, only: set[str] | None) -> set[str]:
    found: set[str] = set()
    for product in PRODUCTS:
        if only is not None and product.name not in only:
            continue
        for owned in product.owns:
            target = root / owned
            if target.is_file():
                found.add(owned)
            elif target.is_dir():
                for path in target.rglob("*"):
                    if path.is_file() and "__pycache__" not in path.parts:
                        found.add(path.relative_to(root).as_posix())
    return found


def check(
    root: Path = ROOT, *, only: set[str] | None = None, built: dict[str, str] | None = None
) -> list[str]:
    """Differences between the tree and a fresh generation (or ``built``), one line per file."""
    expected = built if built is not None else build_all(root, only=only)
    present = _owned_files(root, only)
    problems = []
    for rel, text in sorted(expected.items()):
        path = root / rel
        if not path.is_file():
            problems.append(f"missing: {rel}")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"changed: {rel}")
    problems.extend(f"extra: {rel}" for rel in sorted(present - set(expected)))
    return problems


def write(root: Path = ROOT, *, only: set[str] | None = None) -> list[str]:
    """Write every product, remove stale files it owns; return the paths that changed."""
    expected = build_all(root, only=only)
    changed = []
    for rel in sorted(_owned_files(root, only) - set(expected)):
        (root / rel).unlink()
        changed.append(f"removed: {rel}")
    for rel, text in sorted(expected.items()):
        path = root / rel
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        changed.append(f"wrote: {rel}")
    return changed


def main_gen(args: list[str]) -> int:
    """`apconform-dev gen [--check] [--root DIR] [PRODUCT ...]`."""
    root = ROOT
    rest: list[str] = []
    iterator = iter(args)
    for arg in iterator:
        if arg == "--root":
            root = Path(next(iterator, "")).resolve()
        else:
            rest.append(arg)
    check_only = "--check" in rest
    unknown_flags = [a for a in rest if a.startswith("--") and a != "--check"]
    if unknown_flags:
        print(f"unknown option(s): {' '.join(unknown_flags)}", file=sys.stderr)
        return 2
    only = {a for a in rest if not a.startswith("--")} or None
    known = {p.name for p in PRODUCTS}
    if only and not only <= known:
        print(
            f"unknown product(s): {', '.join(sorted(only - known))}; "
            f"known: {', '.join(sorted(known))}",
            file=sys.stderr,
        )
        return 2
    if check_only:
        problems = check(root, only=only)
        for line in problems:
            print(line)
        if problems:
            print(
                f"{len(problems)} generated file(s) differ from the sources; "
                "run `apconform-dev gen` and commit the result.",
                file=sys.stderr,
            )
            return 1
        print("generated files are up to date")
        return 0
    # The models come first: the other products import the package, which
    # imports the models, so they are built by a fresh process once the models
    # on disk are current.
    first = {"models"} if only is None or "models" in only else set()
    changed = write(root, only=first) if first else []
    for line in changed:
        print(line)
    remaining = set(only or known) - first
    if not remaining:
        return 0
    if changed:
        print("models changed; regenerating the other products in a fresh process")
        again = subprocess.run(
            [
                sys.executable,
                "-m",
                "apconform.dev.cli",
                "gen",
                "--root",
                str(root),
                *sorted(remaining),
            ],
            check=False,
            stdout=subprocess.PIPE,
            text=True,
        )
        sys.stdout.write(again.stdout)  # through sys.stdout, so `--format json` captures it
        return again.returncode
    changed = write(root, only=remaining)
    for line in changed:
        print(line)
    if "openapi" in remaining and any(_read_by_openapi(line) for line in changed):
        print("data the OpenAPI examples read changed; regenerating them in a fresh process")
        again = subprocess.run(
            [sys.executable, "-m", "apconform.dev.cli", "gen", "--root", str(root), "openapi"],
            check=False,
            stdout=subprocess.PIPE,
            text=True,
        )
        sys.stdout.write(again.stdout)
        return again.returncode
    return 0


_OPENAPI_READS = ("spec/clauses.json", "vectors/MANIFEST.json", "schemas/jsonschema/")
"""Products the OpenAPI document's examples read from disk (the version report's digests, the
clause registry, the example reports' manifest): when one of them changes, the document built
beside it in the same run read the old files, so it is built again once they are written."""


def _read_by_openapi(line: str) -> bool:
    return line.partition(": ")[2].startswith(_OPENAPI_READS)
