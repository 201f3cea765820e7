"""The four sealed-input names are spelled in one place: ``SealedInputs`` (issue 28).

A face that needs the sealed documents builds a ``SealedInputs`` (from a run directory, a
folder, a mapping or an ``InputPaths``) or loops over ``SEALED_NAMES``; it never lists the
names again. This test reads every module under ``src/`` and finds each place that lists
all four names as text:

- one tuple, list, set or dict display whose items (or keys) are the four names, bare or
  as a pointer (``"/config"``, ``"$.config"``);
- one call whose arguments name all four (``load(config=doc["config"], fixture=...)``).

Only the run directory's file layout (``rundir.INPUT_FILES``, below the layer of
``SealedInputs``) may list them, and it must list exactly ``SEALED_NAMES`` and the AP-1 text.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
NAMES = frozenset({"config", "fixture", "questions", "derivations"})
_NAME = re.compile(r"^(?:/|\$\.)?(config|fixture|questions|derivations)$")
LAYOUT = Path("apconform/ap1/rundir.py")
"""The run directory's file layout: the one other module that lists the names."""


def _named(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        found = _NAME.match(node.value)
        return found.group(1) if found else None
    return None


def _in_arguments(call: ast.Call) -> set[str]:
    """Every name a call's arguments hold as text, however deep (``doc["config"]``, ...)."""
    found: set[str] = set()
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        for node in ast.walk(argument):
            name = _named(node)
            if name is not None:
                found.add(name)
    return found


def spellings(source: str, filename: str = "<source>") -> list[int]:
    """The lines where ``source`` lists all four sealed-input names together."""
    lines = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = {_named(item) for item in node.elts}
        elif isinstance(node, ast.Dict):
            items = {_named(key) for key in node.keys}
        elif isinstance(node, ast.Call):
            items = set(_in_arguments(node))
        else:
            continue
        if items >= NAMES:
            lines.append(node.lineno)
    return sorted(set(lines))


def places(src: Path) -> list[str]:
    """``path:line`` of every listing of the four names under ``src`` (generated models aside)."""
    return sorted(
        f"{path.relative_to(src).as_posix()}:{line}"
        for path in sorted(src.rglob("*.py"))
        if not path.is_relative_to(src / "apconform" / "models")  # generated from the schemas
        for line in spellings(path.read_text(encoding="utf-8"), str(path))
    )


def outside_layout(src: Path) -> list[str]:
    found = places(src)
    layout = [spot for spot in found if spot.rpartition(":")[0] == LAYOUT.as_posix()]
    assert len(layout) == 1, layout  # INPUT_FILES, once
    return [spot for spot in found if spot not in layout]


def test_the_names_are_listed_only_in_the_run_directory_layout() -> None:
    assert outside_layout(SRC) == []


def test_sealed_inputs_owns_the_names_and_the_layout_agrees() -> None:
    from dataclasses import fields

    from apconform.ap1.inputs.sealed import SEALED_NAMES, SealedInputs
    from apconform.ap1.rundir import INPUT_FILES

    assert SEALED_NAMES == ("config", "fixture", "questions", "derivations")
    assert [f.name for f in fields(SealedInputs)] == [*SEALED_NAMES, "ap1_text"]
    assert list(INPUT_FILES) == [*SEALED_NAMES, "ap1Text"]
    assert {name: INPUT_FILES[name] for name in SEALED_NAMES} == {
        name: f"inputs/{name}.json" for name in SEALED_NAMES
    }


def test_a_planted_copy_is_found() -> None:
    planted = [
        'for name in ("config", "fixture", "questions", "derivations"):\n    pass\n',
        'NAMES = ["derivations", "questions", "fixture", "config", "ap1Text"]\n',
        'NAMES = {"config", "fixture", "questions", "derivations"}\n',
        'KINDS = {"/config": 1, "/fixture": 2, "/questions": 3, "/derivations": 4}\n',
        'members = ("seal", *x, "config", "fixture", "questions", "derivations")\n',
        'load(\n    config=d["config"],\n    fixture=d["fixture"],\n'
        '    questions=m(v, "questions"),\n    derivations=d["derivations"],\n)\n',
    ]
    for source in planted:
        assert spellings(source) == [1], source
    # three of the four, or the names inside one sentence, are not a listing of them
    assert spellings('COMPARED = ("fixture", "questions", "derivations")\n') == []
    assert spellings('"""config, fixture, questions, derivations"""\n') == []
    assert spellings("x = {name: f'ap1-{name}' for name in SEALED_NAMES}\n") == []


def test_a_planted_copy_in_src_fails_the_check(tmp_path: Path) -> None:
    (tmp_path / LAYOUT).parent.mkdir(parents=True)
    (tmp_path / LAYOUT).write_text((SRC / LAYOUT).read_text(encoding="utf-8"), encoding="utf-8")
    assert outside_layout(tmp_path) == []
    face = tmp_path / "apconform" / "api" / "routes" / "new_face.py"
    face.parent.mkdir(parents=True)
    face.write_text('"""A face."""\n\nNAMES = ("config", "fixture", "questions", "derivations")\n')
    assert outside_layout(tmp_path) == ["apconform/api/routes/new_face.py:3"]
