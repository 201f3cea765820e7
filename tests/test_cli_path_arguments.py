"""Every path a command takes goes through the bounded, non-blocking reader.

The arguments are enumerated from the parser itself (every subcommand of
``apconform``), so a new command or option cannot be forgotten: each argument
is classified, and an argument this test cannot classify fails it until it is
named below. The classification (:func:`classify`), in order: an override for
one command (:data:`OVERRIDES`), a converting ``type`` (a number or port, no
path), the destination name (``dest``), the metavar:

- an **input file** (:data:`INPUT_FILES`, or the metavars ``FILE``/``KEYFILE``):
  given a FIFO or ``/dev/zero`` the command is refused with exit 2 and
  ``APC-FILE-NOT-REGULAR`` naming that path, before it reads a byte;
- an **input directory** (:data:`INPUT_DIRS`, or ``DIR``/``RUN_DIR``): a
  FIFO or ``/dev/zero`` is not a directory; refused with exit 2 and a stable code;
- an **output** (:data:`OUTPUTS`: a file or folder the command writes) and a
  **ledger** (``--ledger``, an SQLite file or a URL): refused with exit 2 and a
  stable code, never written through, never waited on. These get a twin of
  ``/dev/zero`` made in the test's folder, never the real one: run as root, a
  command that replaced its output would replace the device node;
- everything else is named in :data:`NOT_PATHS`.

Each case runs ``apconform`` in a forked child with a memory limit, stopped
after :data:`GUARD` seconds: a command that blocks on the FIFO or reads
``/dev/zero`` fails the test (as "hung" or by exit status), it never blocks
it. The verdict never depends on timing, only on the status and the message.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from ap1.published_runs import PublishedRun, write_published_run

from apconform.cli.convention import command_paths
from apconform.cli.dispatch import build_parser, main
from apconform.resources import data_path

POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")

GUARD = 60.0
"""Seconds a child may take before it counts as hung (a refusal takes well under one)."""

INPUT_FILES = frozenset(
    {
        "file",
        "path",
        "log",
        "sheet",
        "report",
        "before",
        "after",
        "config",
        "fixture",
        "questions",
        "derivations",
        "ap1_text",
        "reference_config",
        "reference_seal",
        "head",
        "signature",
        "transcript",
        "seal",
        "key",
        "sign",
        "sign_key",
        "sign_with",
        "ledger_key",
        "trust_file",
        "xfail",
        "scorer_1",
        "scorer_2",
        "settled",
    }
)
"""Destinations of arguments that name a file the command reads."""

INPUT_DIRS = frozenset({"run_dir", "inputs", "output_folder", "vectors", "resume"})
"""Destinations of arguments that name a folder the command reads."""

OUTPUTS = frozenset({"output", "output_dir", "badge", "plot"})
"""Destinations of arguments that name a file or folder the command writes."""

LEDGERS = frozenset({"ledger"})
"""Destinations of arguments that name a ledger (an SQLite file or a database URL)."""

NOT_PATHS = frozenset(
    {
        "format",
        "type",
        "field",
        "trusted_key",
        "endpoint",
        "model",
        "concurrency",
        "rate_limit",
        "stop_after_failures",
        "max_unmeasured_share",
        "jobs",
        "scorer",
        "scorer_1_name",
        "scorer_2_name",
        "completed",
        "port",
        "latency_ms",
        "seed",
        "stall_seconds",
        "impl",
        "protocol",
        "only",
        "timeout",
        "stop_after_timeouts",
        "env",
        "operation",
        "clause",
        "id",
        "iterations",
        "host",
        "workers",
        "threads",
        "max_in_flight",
        "max_uploading",
        "body_timeout",
        "request_timeout",
        "log_level",
        "kind",
        "implementation",
        "version",
        "verdict",
        "limit",
        "entry",
        "anchor",
        "since",
        "supersedes",
        "reason",
        "simulations",
        "budget",
    }
)
"""Destinations of arguments that take no path (names, numbers, URLs, digests, choices)."""

OVERRIDES: dict[tuple[tuple[str, ...], str], str] = {
    (("key", "generate"), "path"): "output",  # where the new key is written
    (("ledger", "diff"), "before"): "none",  # entry numbers or digests
    (("ledger", "diff"), "after"): "none",
    (("vectors", "diff"), "old"): "input-file",  # a vector folder or a manifest file
    (("vectors", "diff"), "new"): "input-file",
}
"""Arguments whose destination name means something else in one command."""

_FILE_METAVARS = frozenset({"FILE", "KEYFILE"})
_DIR_METAVARS = frozenset({"DIR", "RUN_DIR"})


def classify(command: tuple[str, ...], action: argparse.Action) -> str:
    """input-file, input-dir, output, ledger or none; an unknown argument fails the test.

    In order: an override for this command, a converting ``type`` (numbers, ports: no
    path), the destination name, the metavar.
    """
    dest, metavar = action.dest, action.metavar
    if (command, dest) in OVERRIDES:
        return OVERRIDES[command, dest]
    if action.type is not None:
        return "none"
    if dest in LEDGERS:
        return "ledger"
    if dest in OUTPUTS:
        return "output"
    if dest in INPUT_DIRS or metavar in _DIR_METAVARS:
        return "input-dir"
    if dest in INPUT_FILES or metavar in _FILE_METAVARS:
        return "input-file"
    if dest in NOT_PATHS:
        return "none"
    raise AssertionError(
        f"argument {dest!r} ({'/'.join(action.option_strings) or 'positional'}) is not "
        "classified: add its destination to one of the sets of tests/test_cli_path_arguments.py"
    )


def path_arguments() -> Iterator[tuple[tuple[str, ...], argparse.Action, str]]:
    """(command, argument, class) of every argument that takes a path, from the parser."""
    for command, sub in command_paths(build_parser()):
        for action in sub._actions:
            if action.nargs == 0 or isinstance(action, argparse._SubParsersAction):
                continue
            kind = classify(command, action)
            if kind != "none":
                yield command, action, kind


# --- the world the baseline command lines point at -----------------------------------------


@dataclass(frozen=True)
class World:
    """Valid inputs for every command, so each case reaches the argument it replaces."""

    root: Path
    demo: Path
    key: Path
    reference: PublishedRun

    @property
    def run(self) -> Path:
        return self.demo / "ap1-run"

    def __getitem__(self, name: str) -> str:
        return str(self.demo / name)

    def at(self, name: str) -> str:
        return str(self.root / name)

    def out(self, name: str) -> str:
        return str(self.root / "out" / name)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    from apconform.conformance.reports.formats import sign_report
    from apconform.core.files import load_path
    from apconform.core.signing import load_signing_key

    root = tmp_path_factory.mktemp("paths")
    demo = root / "demo"
    key = root / "key.json"
    (root / "out").mkdir()
    reference = write_published_run(root / "reference", "run_a_mini")
    w = World(root, demo, key, reference)
    for argv in (
        ["demo", "--output-dir", str(demo)],
        ["key", "generate", str(key)],
        [*_reference(w)[:-1], w.at("imported")],
        ["ap1", "seal", *_folder(w), "--output-dir", w.at("sealed")],
    ):
        status, _, err = run_cli(argv, guard=600.0)
        assert status == 0, (argv, err)
    vector = load_path(
        data_path("vectors", "apx", "promotion", "apx-promote-five-pairs-exact.json")
    )
    (root / "promote.json").write_text(json.dumps(vector["input"]), encoding="utf-8")
    for name, vector_path, member in (
        ("draft.json", ("ext-preregistration", "apx-ext-prereg-freeze.json"), "preregistration"),
        ("prereg.json", ("ext-preregistration", "apx-ext-prereg-check.json"), "preregistration"),
        ("power.json", ("ext-power", "apx-ext-power-plan.json"), None),
        ("population.json", ("ext-population", "apx-ext-population-seed-20261130.json"), None),
    ):
        given = load_path(data_path("vectors", "apx", *vector_path))["input"]
        document = given[member] if member else given
        (root / name).write_text(json.dumps(document), encoding="utf-8")
    shutil.copytree(data_path("vectors"), root / "vectors")
    report = root / "report.jsonl"
    shutil.copyfile(demo / "conformance" / "report.jsonl", report)
    sign_report(report, "json", load_signing_key(key))
    return w


def _ap1_inputs(w: World) -> list[str]:
    inputs = w.run / "inputs"
    return [
        *("--config", str(inputs / "config.json"), "--fixture", str(inputs / "fixture.json")),
        *("--questions", str(inputs / "questions.json")),
        *("--derivations", str(inputs / "derivations.json")),
        *("--ap1-text", str(inputs / "ap1-text.md")),
    ]


def _folder(w: World) -> list[str]:
    inputs = w.run / "inputs"
    return ["--inputs", str(inputs), "--ap1-text", str(inputs / "ap1-text.md")]


def _reference(w: World, *extra: str) -> list[str]:
    ref = w.reference
    return [
        *("ap1", "import", "reference", str(ref.folder)),
        *("--fixture", str(ref.fixture), "--questions", str(ref.questions)),
        *("--derivations", str(ref.derivations)),
        *(extra or ("--no-ap1-text",)),
        *("--output-dir", w.out("imported")),
    ]


def _pair(w: World) -> list[str]:
    config = w["apx/run.json"]
    return ["--no-ap1-text", "--reference-config", config, "--reference-seal", config]


def _check(w: World) -> list[str]:
    return [
        *("check", "--impl", "direct:apconform.conformance.reference:adapter"),
        *("--vectors", str(data_path("vectors")), "--only", "kit-hash-empty-string-unquoted"),
        *("--sign-key", str(w.key)),
        *("--format", "json", "--output", w.out("check.jsonl")),
        *("--badge", w.out("badges"), "--ledger", w.out("c.db"), "--ledger-key", str(w.key)),
    ]


BASELINES: dict[tuple[str, ...], Callable[[World], list[str]]] = {
    ("demo",): lambda w: ["demo", "--output-dir", w.out("demo")],
    ("validate",): lambda w: ["validate", w["apx/run.json"], "--type", "apx-run"],
    ("canonicalize",): lambda w: ["canonicalize", w["apx/run.json"]],
    ("hash",): lambda w: ["hash", w["apx/run.json"]],
    ("key", "generate"): lambda w: ["key", "generate", w.out("k.json")],
    ("key", "public"): lambda w: ["key", "public", str(w.key)],
    ("sign",): lambda w: ["sign", w["apx/run.json"], "--key", str(w.key)],
    ("verify",): lambda w: ["verify", w["signed-sample.json"], "--trust-file", str(w.key)],
    ("apx", "validate"): lambda w: ["apx", "validate", w["apx/run.json"]],
    ("apx", "freeze"): lambda w: ["apx", "freeze", w["apx/manifest.json"]],
    ("apx", "evaluate"): lambda w: [
        *("apx", "evaluate", w["apx/request.json"], "--sign", str(w.key)),
        *("--ledger", w.out("a.db"), "--ledger-key", str(w.key)),
    ],
    ("apx", "promote"): lambda w: ["apx", "promote", w.at("promote.json"), "--sign", str(w.key)],
    ("apx", "demo"): lambda w: ["apx", "demo", "--output-dir", w.out("apx")],
    ("apx", "preregister"): lambda w: [
        "apx",
        "preregister",
        w.at("draft.json"),
        "--sign",
        str(w.key),
    ],
    ("apx", "check-preregistration"): lambda w: [
        *("apx", "check-preregistration", w.at("prereg.json"), "--trust-file", str(w.key)),
    ],
    ("apx", "power"): lambda w: [
        *("apx", "power", w.at("power.json"), "--sign", str(w.key)),
        *("--plot", w.out("power.svg")),
    ],
    ("apx", "population"): lambda w: [
        *("apx", "population", w.at("population.json"), "--sign", str(w.key)),
    ],
    ("ap1", "seal"): lambda w: [
        *("ap1", "seal", *_ap1_inputs(w)),
        *("--sign-key", str(w.key), "--output-dir", w.out("sealed")),
    ],
    ("ap1", "run"): lambda w: [
        *("ap1", "run", *_ap1_inputs(w)),
        *("--sign-key", str(w.key), "--sign-with", str(w.key), "--output-dir", w.out("ran")),
    ],
    ("ap1", "serve-mock"): lambda w: [
        *("ap1", "serve-mock", *_ap1_inputs(w)),
        *("--port", "0"),
    ],
    ("ap1", "verify-seal"): lambda w: [
        *("ap1", "verify-seal", str(w.run), "--trust-file", str(w.key)),
    ],
    ("ap1", "verify-transcript"): lambda w: [
        *("ap1", "verify-transcript", str(w.run / "transcript.jsonl")),
        *("--head", str(w.run / "transcript.head.json"), "--trust-file", str(w.key)),
    ],
    ("ap1", "score"): lambda w: [
        *("ap1", "score", str(w.run), "--output-dir", w.out("score")),
        *("--sign-with", str(w.key), "--ledger", w.out("s.db"), "--ledger-key", str(w.key)),
    ],
    ("ap1", "rescore"): lambda w: [
        *("ap1", "rescore", "--output-dir", w.out("rescore")),
        *("--transcript", str(w.run / "transcript.jsonl"), "--inputs", str(w.run / "inputs")),
        *("--seal", str(w.run / "seal.json")),
    ],
    ("ap1", "adjudicate", "import"): lambda w: [
        *("ap1", "adjudicate", "import", str(w.run), "--scorer-1", str(w.key)),
        *("--scorer-2", str(w.key), "--settled", str(w.key)),
    ],
    ("ap1", "adjudicate", "serve"): lambda w: [
        *("ap1", "adjudicate", "serve", str(w.run), "--port", "0", "--sign-with", str(w.key)),
    ],
    ("ap1", "adjudicate", "status"): lambda w: ["ap1", "adjudicate", "status", str(w.run)],
    ("ap1", "adjudicate", "export"): lambda w: [
        *("ap1", "adjudicate", "export", str(w.run), "--output-dir", w.out("sheets")),
    ],
    ("ap1", "adjudicate", "load"): lambda w: [
        *("ap1", "adjudicate", "load", str(w.run), str(w.key), "--scorer", "x"),
        *("--sign-with", str(w.key)),
    ],
    ("ap1", "import", "reference"): _reference,
    ("ap1", "import", "inspect"): lambda w: [
        *("ap1", "import", "inspect", w["apx/run.json"], "--run-dir", w.at("sealed")),
    ],
    ("ap1", "compare-reference"): lambda w: [
        *("ap1", "compare-reference", w.at("imported"), "--output-dir", w.out("cmp")),
    ],
    ("check",): _check,
    ("vectors", "verify"): lambda w: [
        *("vectors", "verify", "--vectors", w.at("vectors"), "--trust-file", str(w.key)),
    ],
    ("vectors", "lint"): lambda w: ["vectors", "lint", "--vectors", w.at("vectors")],
    ("vectors", "diff"): lambda w: ["vectors", "diff", w.at("vectors"), w.at("vectors")],
    ("vectors", "list"): lambda w: ["vectors", "list", "--vectors", w.at("vectors")],
    ("vectors", "show"): lambda w: [
        *("vectors", "show", "kit-hash-empty-string-unquoted", "--vectors", w.at("vectors")),
    ],
    ("vectors", "coverage"): lambda w: ["vectors", "coverage", "--vectors", w.at("vectors")],
    ("vectors", "manifest"): lambda w: [
        *("vectors", "manifest", "--vectors", w.at("vectors"), "--key", str(w.key)),
    ],
    ("report", "verify"): lambda w: [
        *("report", "verify", w.at("report.jsonl"), "--signature", w.at("report.jsonl.sig.json")),
        *("--trust-file", str(w.key)),
    ],
    ("report", "render"): lambda w: [
        *("report", "render", w["conformance/report.jsonl"], "--format", "markdown"),
        *("--output", w.out("r.md")),
    ],
    ("report", "diff"): lambda w: [
        *("report", "diff", w["conformance/report.jsonl"], w["conformance/report.jsonl"]),
    ],
    ("serve",): lambda w: [
        *("serve", "--port", "59317", "--ledger", w.out("serve.db"), "--open-submission"),
    ],
    ("openapi",): lambda w: ["openapi", "--output", w.out("openapi.json")],
    ("ledger", "list"): lambda w: ["ledger", "list", "--ledger", w["ledger.db"]],
    ("ledger", "info"): lambda w: ["ledger", "info", "--ledger", w["ledger.db"]],
    ("ledger", "show"): lambda w: ["ledger", "show", "--ledger", w["ledger.db"], "1"],
    ("ledger", "verify"): lambda w: ["ledger", "verify", "--ledger", w["ledger.db"]],
    ("ledger", "diff"): lambda w: ["ledger", "diff", "--ledger", w["ledger.db"], "1", "2"],
    ("ledger", "export"): lambda w: [
        *("ledger", "export", "--ledger", w["ledger.db"], "--output", w.out("export.jsonl")),
    ],
    ("ledger", "import"): lambda w: [
        *("ledger", "import", w.at("export.jsonl"), "--ledger", w.out("i.db")),
    ],
    ("ledger", "record"): lambda w: [
        *("ledger", "record", w["conformance/report.jsonl"], "--ledger", w.out("r.db")),
        *("--key", str(w.key)),
    ],
    ("ledger", "submission"): lambda w: [
        *("ledger", "submission", w["conformance/report.jsonl"], "--key", str(w.key)),
    ],
    ("ledger", "site"): lambda w: ["ledger", "site", w.out("site"), "--ledger", w["ledger.db"]],
}
"""A command line per command that takes a path; each path argument is replaced in turn."""

SPECIAL: dict[tuple[tuple[str, ...], str], Callable[[World], list[str]]] = {
    (("apx", "population"), "preregistration"): lambda w: [
        *("apx", "population", w.at("population.json"), "--preregistration", w.at("prereg.json")),
    ],
    (("ap1", "run"), "resume"): lambda w: ["ap1", "run", "--resume", str(w.run)],
    (("ap1", "run"), "inputs"): lambda w: ["ap1", "run", *_folder(w)],
    (("ap1", "seal"), "inputs"): lambda w: [
        *("ap1", "seal", *_folder(w), "--output-dir", w.out("sealed")),
    ],
    (("ap1", "serve-mock"), "inputs"): lambda w: ["ap1", "serve-mock", *_folder(w), "--port", "0"],
    (("ap1", "rescore"), "run_dir"): lambda w: ["ap1", "rescore", str(w.run)],
    (("ap1", "import", "reference"), "ap1_text"): lambda w: _reference(
        w, "--ap1-text", w["ap1-run/inputs/ap1-text.md"]
    ),
    (("ap1", "import", "reference"), "reference_config"): lambda w: _reference(w, *_pair(w)),
    (("ap1", "import", "reference"), "reference_seal"): lambda w: _reference(w, *_pair(w)),
}
"""Command lines for arguments that exclude others of their command's baseline."""


def baseline(command: tuple[str, ...], dest: str, w: World) -> list[str]:
    return SPECIAL.get((command, dest), BASELINES[command])(w)


# --- running one command in a guarded child --------------------------------------------------


def run_cli(argv: list[str], *, guard: float = GUARD) -> tuple[int | None, str, str]:
    """Run ``apconform argv`` in a forked child; (status or None if it hung, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            status = 70
            try:
                os.setpgid(0, 0)
                # 2 GiB beyond what the child inherited: a long pytest session has already
                # mapped more than that, and a fixed cap would fail every allocation
                with open("/proc/self/statm", encoding="ascii") as statm:
                    mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
                limit = mapped + (2 << 30)
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdin = open(0, closefd=False)  # noqa: SIM115
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                status = main(argv)
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status)
        deadline = time.monotonic() + guard
        finished = None
        while finished is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                finished = os.waitstatus_to_exitcode(code)
            elif time.monotonic() > deadline:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            else:
                time.sleep(0.02)
        out.seek(0)
        err.seek(0)
        return finished, out.read().decode(errors="replace"), err.read().decode(errors="replace")


def _replace(
    argv: list[str], action: argparse.Action, command: tuple[str, ...], value: str
) -> list[str]:
    """``argv`` with ``action``'s value replaced by ``value`` (added if the baseline lacks it)."""
    line = list(argv)
    if action.option_strings:
        for flag in action.option_strings:
            if flag in line:
                line[line.index(flag) + 1] = value
                return line
        return [*line, action.option_strings[-1], value]
    positionals = [a.dest for a in _parser_of(command)._actions if not a.option_strings]
    position = len(command) + positionals.index(action.dest)
    line[position] = value
    return line


def _parser_of(command: tuple[str, ...]) -> argparse.ArgumentParser:
    return dict(command_paths(build_parser()))[command]


CASES = sorted(
    ((command, action.dest, kind) for command, action, kind in path_arguments()),
    key=lambda case: (case[0], case[1]),
)


def test_every_argument_is_classified_and_every_path_command_has_a_baseline() -> None:
    commands = {command for command, _, _ in CASES}
    assert commands == set(BASELINES), "add a baseline command line for a new path-taking command"
    assert len(CASES) >= 100  # the enumeration is not vacuous: 122 on 2026-12-05
    assert ("ledger", "record") in commands and ("report", "diff") in commands


STABLE_CODE = re.compile(r"error [A-Z][A-Z0-9]*(-[A-Z0-9.]+)+[ :]")
"""The first line of a refusal: ``error CODE: message`` (or ``error CODE at PATH: ...``)."""


def hostile_targets(tmp: Path, kind: str, suffix: str = "") -> dict[str, tuple[str, str]]:
    """A fresh FIFO, and /dev/zero (for what the command writes: a twin of it in ``tmp``).

    A command that writes through a path it was given must never get the real
    /dev/zero: run as root, a regression that replaces its target would replace
    the device node. Without the right to make a device node the twin is left out.
    """
    fifo = tmp / f"pipe{suffix}"
    os.mkfifo(fifo)
    targets = {"fifo": (str(fifo), "is a named pipe (FIFO), not a regular file")}
    device = "/dev/zero"
    if kind in ("output", "ledger"):
        device = str(tmp / "zero")
        try:
            os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 5))
        except PermissionError:
            return targets
    targets["zero"] = (device, "is a device, not a regular file")
    return targets


def attempt(
    command: tuple[str, ...], dest: str, kind: str, w: World, tmp: Path
) -> Iterator[tuple[str, list[str], int | None, str, str]]:
    """Run the command once per hostile target; (what, argv, status, stdout, stderr)."""
    action = next(a for a in _parser_of(command)._actions if a.dest == dest)
    line = baseline(command, dest, w)
    replaced = _replace(line, action, command, "\0")
    suffix = (
        Path(line[replaced.index("\0")]).suffix
        if "\0" not in line and len(line) == len(replaced)
        else ""
    )
    for name, (target, _) in hostile_targets(tmp, kind, suffix).items():
        argv = _replace(line, action, command, target)
        yield (name, argv, *run_cli(argv))


@POSIX
@pytest.mark.parametrize(("command", "dest", "kind"), CASES, ids=lambda v: str(v))
def test_a_fifo_or_dev_zero_is_refused_at_once(
    command: tuple[str, ...], dest: str, kind: str, world: World, tmp_path: Path
) -> None:
    for name, argv, status, out, err in attempt(command, dest, kind, world, tmp_path):
        assert status is not None, f"hung on {name}: apconform {' '.join(argv)}"
        assert status == 2, (name, argv, status, err[-2000:])
        assert "internal error" not in err and "Traceback" not in err, err
        # the refusal: the first line that names an error (a check prints progress before)
        first = next((line for line in err.splitlines() if line.startswith("error ")), out)
        assert STABLE_CODE.match(first), (argv, err[-2000:])
        target = next(a for a in argv if "/pipe" in a or a.endswith("zero"))
        assert target in err, (argv, err[-2000:])
        if kind == "input-file":
            assert first.startswith("error APC-FILE-NOT-REGULAR"), (argv, err[-2000:])
            assert "not a regular file" in first, (argv, err[-2000:])


@POSIX
@pytest.mark.parametrize("member", ["smoke_run.jsonl", "report.md"])
def test_a_fifo_inside_the_reference_output_folder_is_refused(
    member: str, world: World, tmp_path: Path
) -> None:
    """The files the import finds in the folder it is given go through the same reader."""
    folder = tmp_path / "run"
    shutil.copytree(world.reference.folder, folder)
    (folder / member).unlink()
    os.mkfifo(folder / member)
    argv = _reference(world)
    argv[argv.index(str(world.reference.folder))] = str(folder)
    status, _, err = run_cli(argv)
    assert status is not None, f"hung: apconform {' '.join(argv)}"
    assert status == 2, err
    assert err.startswith(
        f"error APC-FILE-NOT-REGULAR: {folder / member}: is a named pipe (FIFO), not a regular file"
    ), err


@POSIX
def test_self_test_a_planted_unbounded_read_is_caught(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above fails when a command reads its path without the bounded reader: a
    ``canonicalize`` that opens the file itself hangs on the FIFO and, on /dev/zero, reads
    until its memory runs out instead of refusing with exit 2."""
    import apconform.cli.kit as kit

    def unbounded(path: str) -> object:
        with open(path, "rb") as handle:
            return json.loads(handle.read())

    monkeypatch.setattr(kit, "read_document", unbounded)
    command = ("canonicalize",)
    line = baseline(command, "file", world)
    action = next(a for a in _parser_of(command)._actions if a.dest == "file")
    verdicts = {}
    for name, (target, _) in hostile_targets(tmp_path, "input-file").items():
        status, _, err = run_cli(_replace(line, action, command, target), guard=5.0)
        verdicts[name] = status == 2 and "APC-FILE-NOT-REGULAR" in err
    assert verdicts == {"fifo": False, "zero": False}
