"""The one CLI convention, applied to every command by the shared layer.

Every command module registers its own arguments; this module then walks the
parser tree once and makes the commands behave alike, so no command can forget:

- a command group run bare prints its own help (exit 2: no action was named);
- every command that prints results takes ``--format`` with ``json``: JSON on
  standard output, messages on standard error. A command that declares no
  ``--format`` of its own gets ``--format text|json``; with ``json`` its text
  report is captured and printed as one JSON object (:func:`run_as_json`), and
  a command that already had a ``--json`` flag keeps it as an alias;
- commands that print a JSON document by nature accept ``--format json`` as
  their only format; servers print no results and take no ``--format``.

Every ``--format`` draws its names from one vocabulary, :data:`FORMATS` (older
words for the same thing stay accepted as deprecated aliases, :data:`FORMAT_ALIASES`),
and the exit statuses are the same everywhere: see :data:`EXIT_STATUSES`. docs/cli.md
has both tables, which a test keeps equal to these.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import redirect_stdout
from typing import Any

__all__ = [
    "DOCUMENT_COMMANDS",
    "EXIT_STATUSES",
    "FORMATS",
    "FORMAT_ALIASES",
    "INPUT_PATHS",
    "PATH_KINDS",
    "SERVERS",
    "add_format",
    "apply_convention",
    "check_input_paths",
    "command_paths",
    "format_names",
    "json_mode",
    "run_as_json",
]

EXIT_STATUSES: tuple[tuple[int, str, str], ...] = (
    (0, "success", "the command did what was asked; every check it ran passed"),
    (
        1,
        "findings",
        "the command ran and found something: a refused document, a failed or regressed "
        "check, a signature or chain that does not verify, lint or coverage faults",
    ),
    (
        2,
        "usage or input error",
        "the command could not run as asked: an unknown option, a missing or unreadable "
        "file, input the bounded loader refuses, an implementation that cannot be started; "
        "nothing was written",
    ),
    (
        3,
        "incomplete",
        "`check`: a partial run (`--only`), or some branch of an active MUST clause never ran "
        "(the run proves nothing about it)",
    ),
    (4, "errored", "`check`: the run was stopped early because the implementation hung"),
    (70, "internal error", "a bug in apconform (rerun with APCONFORM_DEBUG=1 and report it)"),
    (130, "interrupted", "Ctrl-C, or SIGTERM (`kill PID`) for `ap1 run`; a run can be resumed"),
)
"""(status, name, meaning) of every exit status a command may return."""

FORMATS: dict[str, str] = {
    "text": "human-readable text for a terminal (a table where the result is tabular)",
    "json": "JSON on standard output: the command's document, or its text report as one "
    "object; messages go to standard error",
    "markdown": "a Markdown document",
    "html": "one self-contained HTML page",
    "junit": "JUnit XML, the test report CI systems read",
}
"""The one vocabulary of ``--format``: every command's choices are names from it."""

FORMAT_ALIASES: dict[str, str] = {
    "pretty": "text",
    "table": "text",
}
"""Older names a few commands still accept, each the same as its vocabulary name
(deprecated: ``check`` and ``report render`` said ``pretty``, the ``apx`` commands
``table``). A command that accepts an alias says so in its ``--help``."""


def format_names(*names: str) -> list[str]:
    """The choices of a ``--format``: names from :data:`FORMATS`, in the order given."""
    unknown = [name for name in names if name not in FORMATS]
    if unknown:
        raise ValueError(f"--format names outside the vocabulary: {unknown}")
    return list(names)


class _FormatChoice(argparse.Action):
    """``--format NAME``: a vocabulary name or a deprecated alias, stored as the word the
    command's code reads (one value, or one per use with ``append``)."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str,
        *,
        stored: Mapping[str, str],
        append: bool = False,
        **kwargs: Any,
    ) -> None:
        self._stored = dict(stored)
        self._append = append
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        value = self._stored.get(values, values)
        if self._append:
            value = [*(getattr(namespace, self.dest, None) or []), value]
        setattr(namespace, self.dest, value)


def add_format(
    parser: argparse.ArgumentParser,
    names: tuple[str, ...],
    *,
    help: str,
    default: str | None = None,
    required: bool = False,
    append: bool = False,
    legacy: Mapping[str, str] | None = None,
) -> argparse.Action:
    """Add ``--format`` with ``names`` from :data:`FORMATS`.

    ``legacy`` maps a vocabulary name to the older word the command's code still reads
    (``{"text": "pretty"}``): that word, an alias of :data:`FORMAT_ALIASES`, stays
    accepted, both are stored as it, and the help says it is deprecated.
    """
    choices = format_names(*names)
    stored: dict[str, str] = {}
    notes = []
    for name, old in (legacy or {}).items():
        if FORMAT_ALIASES.get(old) != name or name not in choices:
            raise ValueError(f"{old!r} is not a deprecated alias of {name!r}")
        stored[name] = stored[old] = old
        choices.append(old)
        notes.append(f"{old}: deprecated, the same as {name}")
    return parser.add_argument(
        "--format",
        action=_FormatChoice,
        stored=stored,
        append=append,
        choices=choices,
        default=default,
        required=required,
        metavar="{" + ",".join(names) + "}",
        help="; ".join([help, *notes]),
    )


SERVERS: dict[tuple[str, ...], str] = {
    ("serve",): "serves HTTP until stopped; it prints log lines, not results",
    ("mcp",): "speaks MCP on standard output; nothing else may be printed there",
    ("ap1", "serve-mock"): "serves the built-in endpoint until stopped",
    ("ap1", "adjudicate", "serve"): "serves the adjudication application until stopped",
}
"""Commands that serve rather than print results, and so take no ``--format``."""

DOCUMENT_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("canonicalize",),
    ("sign",),
    ("key", "generate"),
    ("openapi",),
    ("ledger", "export"),
    ("ledger", "submission"),
)
"""Commands whose output is a JSON document already: ``--format json`` is their only format."""


INPUT_PATHS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("ap1", "verify-seal"): ("run_dir",),
    ("ap1", "verify-transcript"): ("path",),
    ("ap1", "score"): ("run_dir",),
    ("ap1", "rescore"): ("run_dir",),
    ("ap1", "adjudicate", "import"): ("run_dir",),
    ("ap1", "adjudicate", "serve"): ("run_dir",),
    ("ap1", "adjudicate", "status"): ("run_dir",),
    ("ap1", "adjudicate", "export"): ("run_dir",),
    ("ap1", "adjudicate", "load"): ("run_dir", "sheet"),
    ("ap1", "compare-reference"): ("run_dir",),
    ("ap1", "import", "reference"): ("output_folder",),
    ("ap1", "import", "inspect"): ("log",),
    ("report", "verify"): ("report",),
    ("report", "render"): ("report",),
    ("report", "diff"): ("before", "after"),
}
"""Positional arguments that name an existing file or directory to read (by command).

A path that does not exist is a usage or input error (exit 2) before the
command runs, not a finding about a document that was never there. Commands
reading JSON through the bounded loader refuse a missing file themselves.
"""


PATH_KINDS: dict[str, str] = {
    "run_dir": "directory",
    "inputs": "directory",
    "output_folder": "directory",
    "vectors": "directory",
    "resume": "directory",
    "output": "output",
    "output_dir": "output",
    "badge": "output",
    "plot": "output",
}
"""Arguments (by destination name, in every command) that name a folder to read or a path
to write, checked before the command runs: a FIFO, a device or a socket there is refused
(exit 2) instead of hanging a write or being replaced by one (``refuse_special``). Files a
command reads are opened by the bounded reader itself (``core/files.py``)."""

_WRITTEN: dict[tuple[str, ...], tuple[str, ...]] = {("key", "generate"): ("path",)}
"""Positional paths a command writes, checked like the outputs above."""


_NAMED = {
    "before": "earlier report (the first path)",
    "after": "later report (the second path)",
    "run_dir": "run directory",
    "output_folder": "reference run's output folder",
    "log": "Inspect log",
}
"""How a hint names each positional path (its argument name is not a phrase)."""


def check_input_paths(args: argparse.Namespace) -> None:
    """Refuse (exit 2) a named path that is a device, FIFO or socket where a folder or an
    output is expected (see :data:`PATH_KINDS`), a ledger path that is not a regular file,
    and a named input path that does not exist (APC-FILE-NOT-FOUND)."""
    import os

    from apconform.core.errors import ApconformError
    from apconform.core.files import FILE_NOT_FOUND, refuse_special

    command = getattr(args, "_command", ())
    checks = [*PATH_KINDS.items(), *((dest, "output") for dest in _WRITTEN.get(command, ()))]
    for dest, expect in checks:
        value = getattr(args, dest, None)
        for named in value if isinstance(value, list) else [value]:
            if isinstance(named, str) and named != "-":
                refuse_special(named, expect=expect)
    ledger = getattr(args, "ledger", None)
    if isinstance(ledger, str) and "://" not in ledger:
        refuse_special(ledger, expect="file")
    for dest in INPUT_PATHS.get(command, ()):
        value = getattr(args, dest, None)
        for named in value if isinstance(value, list) else [value]:
            if named is not None and named != "-" and not os.path.lexists(named):
                raise ApconformError(
                    FILE_NOT_FOUND,
                    f"{named}: no such file or directory",
                    hint=f"Check the {_NAMED.get(dest, dest.replace('_', ' '))} you named "
                    "(relative paths start at the current directory).",
                )


def command_paths(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command and subcommand under ``parser``, depth first, with its path of names."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from command_paths(sub, (*prefix, name))


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[Any] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    for action in parser._actions:
        if flag in action.option_strings:
            return action
    return None


def _print_own_help(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def handler(_args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return handler


class _FormatAlias(argparse.Action):
    """``--format text|json`` for a command whose JSON switch is an older ``--json`` flag."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        namespace.format = values
        namespace.json = values == "json"


def apply_convention(parser: argparse.ArgumentParser, loaded: tuple[str, ...] | None) -> None:
    """Make every fully registered command under ``parser`` follow the convention.

    ``loaded`` names the top-level commands whose parsers were registered in full
    (None: all); the others are one-line placeholders and are left alone.
    """
    for path, sub in command_paths(parser):
        if loaded is not None and path[0] not in loaded:
            continue
        sub.set_defaults(_command=path)
        group = _subcommands(sub)
        if group is not None:
            group.required = False  # a bare group prints its help instead of a usage error
            sub.set_defaults(handler=_print_own_help(sub))
            continue
        if path in SERVERS or _option(sub, "--format") is not None:
            continue
        if path in DOCUMENT_COMMANDS:
            sub.add_argument(
                "--format",
                choices=format_names("json"),
                default="json",
                help="json (the only format)",
            )
        elif _option(sub, "--json") is not None:
            sub.add_argument(
                "--format",
                choices=format_names("text", "json"),
                default="text",
                action=_FormatAlias,
                help="text (default) or json (the same as --json)",
            )
        else:
            sub.add_argument(
                "--format",
                choices=format_names("text", "json"),
                default="text",
                help="text (default) or json: one object with the command, its exit status "
                "and its text report as lines",
            )
            sub.set_defaults(_text_as_json=True)


def json_mode(args: argparse.Namespace) -> bool:
    """Whether the command prints JSON on standard output (so errors go there as JSON too)."""
    fmt = getattr(args, "format", None)
    if isinstance(fmt, list):  # `check` and `report render` take one --format per output
        return fmt == ["json"] and not getattr(args, "output", None)
    return fmt == "json" and not (isinstance(getattr(args, "output", None), str))


def run_as_json(
    path: tuple[str, ...], handler: Callable[[argparse.Namespace], int], args: argparse.Namespace
) -> int:
    """Run a text-only command and print its report as one JSON object on standard output."""
    captured = io.StringIO()
    with redirect_stdout(captured):
        status = int(handler(args))
    document = {
        "command": " ".join(path),
        "exitStatus": status,
        "text": captured.getvalue().splitlines(),
    }
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return status
