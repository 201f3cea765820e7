"""A partial run is never green, counts name what they leave out, and a dead adapter says why.

A reviewer reads a verdict at a glance: in the console, the exit status, the badges and the
JUnit file. `check --only` proves only the cases it chose, so none of them may say "pass";
"102/102 MUST" must say that 11 untestable clauses are not in it; an implementation that
cannot start exits 2 with the end of its standard error and the program that ran.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from apconform.cli import main
from apconform.conformance.clauses import load_clause_registry

from .conftest import DIRECT


def _untestable(protocol: str) -> int:
    registry = load_clause_registry().registry
    return sum(
        1
        for c in registry.clauses
        if c.protocol == protocol and c.level == "MUST" and c.status == "active" and c.untestable
    )


def test_a_partial_run_is_incomplete_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit, report, badges = tmp_path / "junit.xml", tmp_path / "report.jsonl", tmp_path / "badges"
    args = ["check", "--impl", DIRECT, "--protocol", "kit", "--only", "KIT-HASH-1"]
    args += ["--format", "junit", "--output", str(junit), "--format", "json"]
    args += ["--output", str(report), "--badge", str(badges)]
    assert main(args) == 3
    err = capsys.readouterr().err
    # only files were asked for: the console still shows the verdict
    assert err.endswith("verdict: INCOMPLETE (a partial run: --only) (exit status 3)\n")
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    footer = records[-1]
    cases = records[1:-1]
    assert cases and all(case["outcome"] == "pass" for case in cases)
    assert footer["verdict"] == "incomplete" and footer["exitStatus"] == 3
    assert footer["protocols"][0]["verdict"] == "incomplete"
    summary = footer["protocols"][0]
    left = summary["mustClauses"] - summary["mustClausesExecuted"]
    assert footer["problems"][0].startswith(
        f"partial run: --only chose {len(cases)} case(s), which leave {left} of "
        f"{summary['mustClauses']} testable MUST clauses unexercised"
    )
    badge = json.loads((badges / "kit.json").read_text(encoding="utf-8"))
    assert badge == {
        "schemaVersion": 1,
        "label": "apconform kit",
        "message": f"partial run: {len(cases)}/{len(cases)} passed",
        "color": "orange",
    }
    suites = ElementTree.parse(junit).getroot()
    failures = suites.findall(".//failure")
    assert int(suites.get("failures", "0")) == 1 and len(failures) == 1
    assert failures[0].get("type") == "incomplete"
    assert "a partial run (--only)" in str(failures[0].get("message"))


def test_counts_say_how_many_untestable_clauses_they_leave_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--impl", DIRECT, "--protocol", "kit"]) == 0
    out = capsys.readouterr().out
    untestable = _untestable("kit")
    assert untestable > 0
    assert f"testable MUST clauses executed ({untestable} untestable, not counted): PASS" in out
    assert out.endswith("verdict: PASS (exit status 0)\n")


def test_an_adapter_that_cannot_start_exits_2_with_its_stderr_and_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "adapter.py"
    script.write_text(
        "import sys\nprint('loading the library', file=sys.stderr)\n"
        "import a_module_the_kit_venv_lacks\n",
        encoding="utf-8",
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mypython").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert main(["check", "--impl", f"exec:mypython {script}", "--protocol", "kit"]) == 2
    err = capsys.readouterr().err
    assert "error APC-ADAPTER-START: " in err
    assert "the implementation exited with status 1" in err
    assert "  | loading the library\n" in err
    assert "  | ModuleNotFoundError: No module named 'a_module_the_kit_venv_lacks'\n" in err
    assert f"hint: The command ran mypython (found on PATH as {bin_dir / 'mypython'})" in err
    assert "exec:.venv/bin/python adapter.py" in err
    assert "Traceback (most recent call last)" not in err.split("|")[0]  # no kit traceback
