"""One CLI convention everywhere, checked over every command and subcommand.

The walk below visits every command the parser knows (the same walk as
tests/test_cli_startup.py), so a command added later is held to the convention
without anyone remembering to add it here; docs/cli.md's tables are compared
with the parser and with the convention's own table.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from apconform import __version__
from apconform.cli.convention import (
    DOCUMENT_COMMANDS,
    EXIT_STATUSES,
    FORMAT_ALIASES,
    FORMATS,
    INPUT_PATHS,
    SERVERS,
    command_paths,
)
from apconform.cli.dispatch import build_parser, main
from apconform.core.errors import registered_codes

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
PATHS = dict(command_paths(build_parser()))
GROUPS = sorted(
    path
    for path, sub in PATHS.items()
    if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
)
LEAVES = sorted(path for path in PATHS if path not in GROUPS)


def _format(sub: argparse.ArgumentParser) -> argparse.Action | None:
    return next((a for a in sub._actions if "--format" in a.option_strings), None)


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` in docs/cli.md, as cells."""
    section = DOCS.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # without the header and the rule


def test_the_walk_sees_every_command() -> None:
    assert len(PATHS) == 64
    assert len(GROUPS) == 8 and len(LEAVES) == 56


def test_the_exit_table_in_the_docs_is_the_conventions() -> None:
    rows = _table("## Exit statuses")
    assert [(int(s), name, meaning) for s, name, meaning in rows] == list(EXIT_STATUSES)


def test_the_format_tables_in_the_docs_are_the_conventions() -> None:
    assert [(name, meaning) for name, meaning in _table("## Formats")] == list(FORMATS.items())
    aliases = DOCS.split("## Formats", 1)[1].split("| Old name |", 1)[1].split("\n\n")[0]
    rows = [line.strip("|").split("|") for line in aliases.splitlines()[2:]]
    assert {old.strip(): same.strip() for old, same, _ in rows} == FORMAT_ALIASES


def test_every_error_code_exits_with_a_status_of_the_table() -> None:
    import pkgutil

    import apconform

    for info in pkgutil.walk_packages(apconform.__path__, "apconform."):
        if not info.name.startswith(("apconform.dev", "apconform.models", "apconform.ap1.inspect")):
            __import__(info.name)
    statuses = {code.code: code.exit_status for code in registered_codes()}
    assert len(statuses) > 100
    assert {status for status in statuses.values()} <= {1, 2}, statuses


def test_the_command_table_in_the_docs_lists_every_command_with_its_formats() -> None:
    documented = {}
    for command, formats, *_ in _table("## Every command"):
        documented[command.strip("`")] = formats
    dev = documented.pop("apconform-dev gen")
    assert dev == "text, json"
    assert sorted(documented) == sorted(" ".join(path) for path in LEAVES)
    for path in LEAVES:
        action = _format(PATHS[path])
        names = [c for c in action.choices or () if c not in FORMAT_ALIASES] if action else []
        expected = "none" if action is None else ", ".join(names)
        assert documented[" ".join(path)].split(":")[0] == expected, path


@pytest.mark.parametrize("path", LEAVES, ids=" ".join)
def test_every_command_that_prints_results_takes_format_json(path: tuple[str, ...]) -> None:
    action = _format(PATHS[path])
    if path in SERVERS:
        assert action is None
        return
    assert action is not None and "json" in (action.choices or ())
    if path in DOCUMENT_COMMANDS:
        assert action.choices == ["json"]


@pytest.mark.parametrize("path", GROUPS, ids=" ".join)
def test_a_bare_group_prints_its_own_help(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(list(path)) == 2
    captured = capsys.readouterr()
    assert captured.out == PATHS[path].format_help()
    assert captured.out.startswith(f"usage: apconform {' '.join(path)} ")
    assert captured.err == ""


@pytest.mark.parametrize("path", LEAVES, ids=" ".join)
def test_a_usage_error_in_json_mode_is_json_on_stdout_and_a_message_on_stderr(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    if path in SERVERS:
        assert main([*path, "--no-such-option"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith("error APC-USAGE")
        return
    assert main([*path, "--format", "json", "--no-such-option"]) == 2
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["command"] == " ".join(path)
    assert document["exitStatus"] == 2
    assert document["error"]["code"] == "APC-USAGE"
    assert (
        document["error"]["hint"]
        == f"Run `apconform {' '.join(path)} --help` to see the arguments."
    )
    assert captured.err.startswith("error APC-USAGE")


_REQUIRED = {
    ("ap1", "adjudicate", "import"): ["--scorer-1", "a.csv", "--scorer-2", "b.csv"],
    ("ap1", "adjudicate", "export"): ["--output-dir", "out"],
    ("ap1", "adjudicate", "load"): ["--scorer", "Ada"],
    ("ap1", "import", "reference"): [
        *("--fixture", "f.json", "--questions", "q.json", "--derivations", "d.json"),
        *("--no-ap1-text", "--output-dir", "out"),
    ],
    ("ap1", "import", "inspect"): ["--run-dir", "run"],
    ("report", "render"): ["--format", "html"],
}


@pytest.mark.parametrize("path", sorted(INPUT_PATHS), ids=" ".join)
def test_a_missing_input_path_is_an_input_error(
    path: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nonexistent")
    positionals = [missing] * len(INPUT_PATHS[path])
    assert main([*path, *positionals, *_REQUIRED.get(path, [])]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error APC-FILE-NOT-FOUND: {missing}: no such file")
    assert not (tmp_path / "out").exists()


def test_verify_seal_of_a_missing_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ap1", "verify-seal", "/nonexistent", "--format", "json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"] == {
        "code": "APC-FILE-NOT-FOUND",
        "message": "/nonexistent: no such file or directory",
        "hint": "Check the run directory you named "
        "(relative paths start at the current directory).",
    }
    assert "does NOT verify" not in captured.out + captured.err


def test_check_with_an_exec_command_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--impl", "exec:./nope", "--protocol", "kit"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error APC-ADAPTER-TARGET: exec:./nope: './nope' is not an executable file or a "
        "command on PATH\n"
    )
    not_executable = tmp_path / "impl"
    not_executable.write_text("#!/bin/sh\n", encoding="utf-8")
    assert main(["check", "--impl", "exec:./impl", "--protocol", "kit"]) == 2


def test_validate_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vector = ROOT / "vectors" / "kit" / "canonical" / "kit-jcs-number-exponent.json"
    assert main(["validate", "--type", "vector", "--format", "json", str(vector)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"valid": True, "type": "vector", "violations": []}
    assert captured.err == ""
    broken = tmp_path / "broken.json"
    broken.write_text('{"schemaVersion": "apconform-vector/1"}', encoding="utf-8")
    assert main(["validate", "--type", "vector", "--format", "json", str(broken)]) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["valid"] is False
    assert {
        "code": "APC-SCHEMA-VIOLATION",
        "path": "$.id",
        "message": "this required field is missing",
    } in document["violations"]
    assert captured.err.startswith("refused: ")


def test_hash_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = tmp_path / "d.json"
    document.write_text('{"b": 1, "a": [true]}', encoding="utf-8")
    assert main(["hash", str(document)]) == 0
    digest = capsys.readouterr().out.strip()
    assert main(["hash", "--format", "json", str(document)]) == 0
    assert json.loads(capsys.readouterr().out) == {"sha256": digest, "method": "rfc8785"}


def test_a_text_command_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "verify"]) == 0
    text = capsys.readouterr().out
    assert main(["vectors", "verify", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == {
        "command": "vectors verify",
        "exitStatus": 0,
        "text": text.splitlines(),
    }
    assert "files match the manifest signed by" in document["text"][0]


def test_lint_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "lint", "--protocol", "kit", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["findings"] == [] and document["vectors"] > 50


def test_the_json_alias_of_the_verify_commands(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["ap1", "verify-seal", "run", "--format", "json"]).json is True
    assert parser.parse_args(["ap1", "verify-seal", "run", "--json"]).json is True
    assert parser.parse_args(["ap1", "verify-transcript", "t", "--format", "text"]).json is False


def test_the_demo_help_names_the_folder_it_writes_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from apconform.demo import default_output_dir

    help_text = " ".join(PATHS[("demo",)].format_help().split())
    assert "a new temporary folder, apconform-demo-XXXX under the system's temporary" in help_text
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = default_output_dir()
    assert folder.parent == tmp_path and folder.name.startswith("apconform-demo-")
    assert folder.is_dir() and list(folder.iterdir()) == []


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=False, timeout=120
    )


def test_both_entry_points_have_help_and_version() -> None:
    for module, name in (("apconform.cli", "apconform"), ("apconform.dev.cli", "apconform-dev")):
        version = _run("-m", module, "--version")
        assert (version.returncode, version.stdout) == (0, f"{name} {__version__}\n")
        helped = _run("-m", module, "--help")
        assert helped.returncode == 0 and helped.stdout.startswith(f"usage: {name} ")
        bare = _run("-m", module)
        assert bare.returncode == 2 and bare.stdout.startswith(f"usage: {name} ")
    gen_help = _run("-m", "apconform.dev.cli", "gen", "--help")
    assert gen_help.returncode == 0
    assert gen_help.stdout.startswith("usage: apconform-dev gen [-h] [--check]")
    unknown = _run("-m", "apconform.dev.cli", "gen", "--bogus")
    assert unknown.returncode == 2 and unknown.stderr.startswith("error APC-USAGE: unrecognized")


def test_apconform_dev_without_linkml_names_the_extra() -> None:
    blocked = (
        "import sys; sys.modules['linkml'] = None; "
        "from apconform.dev.cli import main; raise SystemExit(main(sys.argv[1:]))"
    )
    done = _run("-c", blocked, "gen", "--check")
    assert done.returncode == 2
    assert done.stderr == (
        "error: apconform-dev needs LinkML, which the dev extra installs: "
        "pip install 'apconform[dev]' (in a checkout: pip install -e '.[dev]')\n"
    )
    assert "Traceback" not in done.stderr
    helped = _run("-c", blocked, "gen", "--help")
    assert helped.returncode == 0


def test_gen_check_in_json() -> None:
    done = _run("-m", "apconform.dev.cli", "gen", "--check", "--format", "json", "clauses")
    document = json.loads(done.stdout)
    assert document == {
        "command": "gen",
        "exitStatus": 0,
        "text": ["generated files are up to date"],
    }
    assert re.fullmatch(r"", done.stderr)
