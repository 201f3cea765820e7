"""One ``--format`` vocabulary: every command's choices are names from ``FORMATS``.

The walk is the parser's own (:func:`command_paths`, as in tests/test_cli_path_arguments.py),
so a command added later with a format of its own fails here until the word is in the
vocabulary. An older word a command kept (``pretty``, ``table``) is a deprecated alias:
the command also takes the vocabulary's word, says so in its help, and both give the
same bytes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from apconform.cli.convention import FORMAT_ALIASES, FORMATS, add_format, command_paths
from apconform.cli.dispatch import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def format_options() -> dict[tuple[str, ...], argparse.Action]:
    """The ``--format`` of every command that has one, by command path."""
    found = {}
    for path, sub in command_paths(build_parser()):
        for action in sub._actions:
            if "--format" in action.option_strings:
                found[path] = action
    return found


OPTIONS = format_options()


def test_the_walk_finds_the_formats() -> None:
    assert len(OPTIONS) > 40
    assert {("check",), ("report", "render"), ("apx", "evaluate"), ("ledger", "info")} <= set(
        OPTIONS
    )


@pytest.mark.parametrize("path", sorted(OPTIONS), ids=" ".join)
def test_every_format_choice_is_in_the_vocabulary(path: tuple[str, ...]) -> None:
    choices = list(OPTIONS[path].choices or ())
    assert choices, path
    outside = [c for c in choices if c not in FORMATS and c not in FORMAT_ALIASES]
    assert outside == [], f"{' '.join(path)}: --format {outside} is not in FORMATS"
    help_text = OPTIONS[path].help or ""
    for alias in (c for c in choices if c in FORMAT_ALIASES):
        assert FORMAT_ALIASES[alias] in choices  # the vocabulary's word is taken too
        assert f"{alias}: deprecated, the same as {FORMAT_ALIASES[alias]}" in help_text


def test_the_old_words_are_where_they_were() -> None:
    with_alias = {
        path: [c for c in action.choices or () if c in FORMAT_ALIASES]
        for path, action in OPTIONS.items()
    }
    assert with_alias[("check",)] == ["pretty"]
    assert with_alias[("report", "render")] == ["pretty"]
    apx = [path for path in OPTIONS if path[0] == "apx"]
    assert len(apx) == 9 and all(with_alias[path] == ["table"] for path in apx)
    assert sum(1 for names in with_alias.values() if names) == 11


def test_the_help_names_the_deprecated_alias(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["apx", "evaluate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--format {json,text}" in out
    assert "table: deprecated, the same as text" in out


def test_a_word_outside_the_vocabulary_cannot_be_declared() -> None:
    parser = argparse.ArgumentParser()
    with pytest.raises(ValueError, match="outside the vocabulary"):
        add_format(parser, ("text", "yaml"), help="x")
    with pytest.raises(ValueError, match="not a deprecated alias"):
        add_format(parser, ("json",), legacy={"json": "pretty"}, help="x")


def test_a_planted_format_outside_the_vocabulary_is_found() -> None:
    parser = build_parser()
    planted = next(sub for path, sub in command_paths(parser) if path == ("vectors", "lint"))
    for action in planted._actions:
        if "--format" in action.option_strings:
            action.choices = ["text", "json", "yaml"]
    choices = {
        path: [c for c in action.choices or () if c not in FORMATS and c not in FORMAT_ALIASES]
        for path, sub in command_paths(parser)
        for action in sub._actions
        if "--format" in action.option_strings
    }
    assert choices[("vectors", "lint")] == ["yaml"]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_apx_text_is_the_old_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from apconform.apx.tutorial import tutorial_campaign

    manifest, run = tutorial_campaign()
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"manifest": manifest, "run": run}), encoding="utf-8")
    text = _run(["apx", "evaluate", "--format", "text", str(request)], capsys)
    table = _run(["apx", "evaluate", "--format", "table", str(request)], capsys)
    assert text == table and text[0] == 0
    assert text[1].startswith("run demo-1: ELIGIBLE, synthetic, certified false\n")
    as_json = _run(["apx", "evaluate", str(request)], capsys)
    assert json.loads(as_json[1])["AP"] == 9


def test_check_and_render_text_are_the_old_pretty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    impl = "direct:apconform.conformance.reference:adapter"
    base = ["check", "--impl", impl, "--protocol", "kit", "--only", "kit-jcs-number-exponent"]
    report = tmp_path / "report.jsonl"
    status = main([*base, "--format", "json", "--output", str(report)])
    capsys.readouterr()
    assert status == 3  # a partial run (--only)
    rendered = {
        word: _run(["report", "render", str(report), "--format", word], capsys)
        for word in ("text", "pretty")
    }
    assert rendered["text"] == rendered["pretty"] and rendered["text"][0] == 0
    assert "verdict: INCOMPLETE (a partial run: --only)" in rendered["text"][1]
    for word in ("text", "pretty"):
        out = tmp_path / f"{word}.txt"
        assert main([*base, "--format", word, "--output", str(out)]) == 3
        capsys.readouterr()
    assert (tmp_path / "text.txt").read_bytes() == (tmp_path / "pretty.txt").read_bytes()
    assert (tmp_path / "text.txt").read_text(encoding="utf-8") == rendered["text"][1]
