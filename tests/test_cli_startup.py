"""Each command imports only what it uses, so the CLI starts like a native tool.

The top-level parser lists every command from a table in ``apconform.cli`` and
imports only the module of the command being run; package ``__init__`` files
export lazily. These tests run real commands in fresh interpreters and look at
which modules they loaded (``sys.modules`` at exit), never at a clock.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from apconform.apx.tutorial import tutorial_campaign
from apconform.cli.dispatch import build_parser, main

HEAVY = ("fastapi", "uvicorn", "mcp", "linkml", "requests", "inspect_ai")
"""Third-party packages a command may import only when it needs them."""
PROTOCOLS = (
    "apconform.ap1",
    "apconform.apx",
    "apconform.conformance",
    "apconform.api",
    "apconform.mcp",
    "apconform.models",
)
VALIDATION = ("pydantic", "jsonschema")

# Runs `apconform ARGS...` exactly as the console script does, then writes sys.modules to a file.
_PROBE = """
import atexit, json, runpy, sys
out = sys.argv[1]
def dump():
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(sorted(sys.modules), handle)
atexit.register(dump)
sys.argv = ["apconform", *sys.argv[2:]]
runpy.run_module("apconform.cli", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("startup")
    manifest, run = tutorial_campaign()
    paths = {
        "request": folder / "request.json",
        "manifest": folder / "manifest.json",
        "tiny": folder / "tiny.json",
    }
    paths["request"].write_text(json.dumps({"manifest": manifest, "run": run}), encoding="utf-8")
    paths["manifest"].write_text(json.dumps(manifest), encoding="utf-8")
    paths["tiny"].write_text('{"b": [1, 2.5], "a": null}', encoding="utf-8")
    return paths


def loaded(tmp_path: Path, *args: str) -> tuple[int, str, set[str]]:
    """Exit status, standard output and the modules loaded by `apconform ARGS...`."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(out), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.is_file(), done.stderr
    return done.returncode, done.stdout, set(json.loads(out.read_text(encoding="utf-8")))


def under(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The modules that are one of ``packages`` or inside one of them."""
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_top_level_help_imports_no_protocol_package(tmp_path: Path) -> None:
    status, out, modules = loaded(tmp_path, "--help")
    assert status == 0
    assert "canonicalize" in out and "openapi" in out
    assert under(modules, HEAVY + PROTOCOLS + VALIDATION) == []


def test_apx_evaluate_imports_the_kernel_and_nothing_else(
    tmp_path: Path, documents: dict[str, Path]
) -> None:
    status, out, modules = loaded(tmp_path, "apx", "evaluate", str(documents["request"]))
    assert status == 0
    assert json.loads(out)["schemaVersion"] == "apx-result/0.1"
    assert "apconform.apx.kernel" in modules
    others = tuple(p for p in PROTOCOLS if p != "apconform.apx")
    assert under(modules, HEAVY + others + VALIDATION) == []


def test_canonicalize_imports_only_the_core(tmp_path: Path, documents: dict[str, Path]) -> None:
    status, out, modules = loaded(tmp_path, "canonicalize", str(documents["tiny"]))
    assert (status, out) == (0, '{"a":null,"b":[1,2.5]}\n')
    assert under(modules, HEAVY + PROTOCOLS + VALIDATION) == []


def test_validate_imports_the_one_model_module_it_needs(
    tmp_path: Path, documents: dict[str, Path]
) -> None:
    status, out, modules = loaded(
        tmp_path, "validate", "--type", "apx-manifest", str(documents["manifest"])
    )
    assert (status, out) == (0, "valid apx-manifest document\n")
    assert {"pydantic", "apconform.models.apx"} <= modules
    others = ("apconform.ap1", "apconform.conformance", "apconform.api", "apconform.mcp")
    assert under(modules, (*HEAVY, *others, "apconform.models.ap1")) == []


_DISPATCH = ["apconform.cli", "apconform.cli.dispatch", "apconform.cli.convention"]
_CONFORMANCE_CLI = [
    *_DISPATCH,
    "apconform.cli.conformance",
    "apconform.cli.recording",
    "apconform.cli.shared",
]
_AP1_CLI = [
    *_DISPATCH,
    "apconform.ap1",
    "apconform.cli.ap1",
    "apconform.cli.ap1.instrument",
    "apconform.cli.recording",
    "apconform.cli.shared",
]


@pytest.mark.parametrize(
    ("command", "modules_of_protocols"),
    [
        ("check", _CONFORMANCE_CLI),
        ("vectors", _CONFORMANCE_CLI),
        ("report", _CONFORMANCE_CLI),
        (
            "ap1",
            [
                *_AP1_CLI,
                "apconform.cli.ap1.scoring",
                "apconform.cli.ap1.adjudication",
                "apconform.cli.ap1.import_reference",
                "apconform.cli.ap1.importing",
                "apconform.cli.ap1.inspect",
                # The defaults the help shows: the plain-HTTP override flag and
                # the failure limit, from small modules with no heavy imports.
                "apconform.ap1.run",
                "apconform.ap1.run.credentials",
                "apconform.ap1.run.outage",
                "apconform.ap1.transcript",
                "apconform.ap1.transcript.deferral",
            ],
        ),
        (
            "apx",
            [*_DISPATCH, "apconform.cli.apx", "apconform.cli.recording", "apconform.cli.shared"],
        ),
        ("serve", [*_DISPATCH, "apconform.cli.api"]),
        ("mcp", [*_DISPATCH, "apconform.cli.mcp"]),
    ],
)
def test_command_help_imports_only_the_command_module(
    tmp_path: Path, command: str, modules_of_protocols: list[str]
) -> None:
    status, out, modules = loaded(tmp_path, command, "--help")
    assert status == 0
    assert out.startswith(f"usage: apconform {command} ")
    assert under(modules, HEAVY + VALIDATION) == []
    assert under(modules, (*PROTOCOLS, "apconform.cli")) == sorted(modules_of_protocols)


def test_the_probe_sees_what_a_command_needs(tmp_path: Path) -> None:
    # `openapi` builds the FastAPI app: the probe must report fastapi, or the tests above prove
    # nothing.
    status, out, modules = loaded(tmp_path, "openapi")
    assert status == 0
    assert json.loads(out)["openapi"].startswith("3.")
    assert {"fastapi", "apconform.api.app"} <= modules


def _listing(parser: argparse.ArgumentParser) -> list[tuple[str, str | None]]:
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(action.dest, action.help) for action in commands._choices_actions]


def test_the_command_table_matches_what_the_modules_register() -> None:
    full, lazy = build_parser(), build_parser(load=())
    assert _listing(lazy) == _listing(full)
    assert lazy.format_help() == full.format_help()
    assert len(_listing(full)) == 16


def _paths(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _paths(sub, (*prefix, name))


def test_every_subcommand_help_is_the_full_one(capsys: pytest.CaptureFixture[str]) -> None:
    paths = list(_paths(build_parser()))
    assert len(paths) == 64
    for path, sub in paths:
        with pytest.raises(SystemExit) as exited:
            main([*path, "--help"])
        assert exited.value.code == 0
        assert capsys.readouterr().out == sub.format_help(), path
