"""docs/kit/mutation.md, rendered from the mutation benchmark's result file.

``tests/benchmarks/bench_mutation.py`` writes ``docs/kit/mutation-result.json``
(per module: mutants, killed, excluded with reasons, survivors); this module
turns it into the page, so the figures a reader sees are the measured ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["RESULT_FILE", "render_mutation_page"]

RESULT_FILE = "docs/kit/mutation-result.json"

_INTRO = """\
# Vector adequacy: mutation testing

Do the golden vectors pin down behaviour, or do they only pass? To find out,
the reference implementation is mutated, one small change at a time (a `<`
turned into `<=`, a constant into another, a call argument dropped, a string
changed), and **the vectors alone** are run against every mutant: each vector
is sent through the direct adapter and its reply judged as `apconform check`
judges it, by the contract ([KIT-VEC-3](../spec/kit/vectors.md#KIT-VEC-3):
codes, paths and values; a message only where a clause the vector cites
quotes it). No unit test takes part.

```bash
.venv/bin/pip install -c requirements/lock.txt -r requirements/mutation.txt
nice -n 19 python tests/benchmarks/bench_mutation.py --hours 8   # resumable: run again to go on
nice -n 19 python tests/benchmarks/bench_mutation.py --protocol apx \
    --module src/apconform/apx/guard.py                          # one module
python tests/benchmarks/bench_mutation.py --report-only          # read the results so far
.venv/bin/apconform-dev gen                                      # render this page from them
```

The tool is [mutmut](https://pypi.org/project/mutmut/) 3.8.1 (pinned in
`requirements/mutation.txt`); the test command is
`tests/benchmarks/mutation_vectors.py`, one test per vector, and mutmut runs,
for each mutant, the vectors whose operation reaches the mutated function. The
benchmark keeps one scratch copy of the repository per protocol (`--work`,
default `/tmp/apconform-mutation`) in which mutmut records every mutant's
result, so a run stops when `--hours` is spent and the next run goes on where
it stopped, module by module; `--retry-survivors` runs the survivors again
after vectors were added. It writes the machine-readable result,
[`docs/kit/mutation-result.json`](mutation-result.json) (per module: its
status, mutants, killed, every exclusion with its reason, every survivor with
its change), and `apconform-dev gen` renders this page from it. It is CPU
heavy and not part of CI or of the test suite.

## What is mutated

Every module of the reference implementation with a function that some
vector's operation executes: coverage is measured around the adapter call
alone, vector by vector, so the list is computed on every run, not kept by
hand. A module's mutants count for its protocol (`ap1/` for AP-1, `apx/` for
APx, the rest, `core/`, `conformance/` and `resources.py`, for the kit). The
generated Pydantic models are not mutated (no one edits them; the schemas they
come from are checked by the generation and parity tests). Only the operation
runs with the mutant switched on: loading the vectors and judging the reply
run with it off, so a module the harness shares with the reference (the
clause registry, the operation contracts) is judged by unmutated code.

## How a mutant counts

A mutant is **killed** when some vector fails or the mutant hangs. A mutant
that is not killed is **excluded** only on its own and for a reason a reader
can check, recorded beside it in the result file:

- *informative*: each reply it changed differs from the unmutated reply only
  in messages (a refusal's message, or an answer member the operation's
  contract marks as a message), which KIT-VEC-3 leaves free; the result names
  the vectors and the paths where the wording changed;
- *unreachable*: no operation can call its function: the benchmark follows
  every reference to a function's name (and, for a special method, to its
  class) from every operation the reference registers and from the
  module-level code of the mutated modules, an over-approximation recomputed
  on every run; a function outside that set cannot run during any operation,
  whatever the input;
- *equivalent* or *unreachable* by a waiver in
  `tests/benchmarks/mutation_waivers.json`, which names the mutant and its
  exact change (a waiver whose mutant changed no longer applies) and says why.

A waiver of kind *accepted* explains a survivor without excluding it. The
**strict score** is killed / (mutants - excluded): every survivor that is
neither informative, unreachable nor equivalent counts against it. It is given
for a module only when every one of its mutants ran, and for a protocol only
when every module's did. Until then the module's status says *not run yet* or
*partly run*, and the score of the mutants that ran is shown apart ("of what
ran"): it says nothing about the mutants still waiting, so it is no claim about
the protocol.

## Limits of the measurement

- Only the operation runs with the mutant switched on, and the modules are
  imported before it is. A function that runs while its module is imported
  (an error table built by a helper, a decorator registering an operation)
  or that fills a cache on first use runs with the unmutated code, so its
  mutants survive whatever the vectors do. They are not excluded: they count
  against the score, and a survivor whose function its module's top-level code
  calls is marked so in the result.
- mutmut 3.8.1 does not mutate a function with a decorator (other than a lone
  `staticmethod` or `classmethod`): the operation entry points (`@operation`),
  properties, cached functions. Those functions are listed per module in the
  result file (`notMutated`) and counted in the tables below; they are in no
  score.
- A survivor is not a proven gap: it may be equivalent (no input can tell it
  from the original) or observable only through a face the vectors do not
  cover (an exit status, an HTTP status). Until a waiver says why, it counts
  as not killed.
- The set of mutated modules is measured on the vectors of the version named
  below; a test (`tests/harness/test_kit_docs.py`) measures it again and fails
  when the result file no longer lists exactly the modules the vectors reach.
"""


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value}%"


def _kinds(kinds: dict[str, int]) -> str:
    return ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items())) or "0"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " / ")


def _seconds(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value / 3600:.1f} h" if value >= 3600 else f"{round(value / 60)} min"


def _wall_rate(module: dict[str, Any]) -> str:
    wall = module.get("wall")
    if wall and wall["mutants"]:
        return f"{wall['seconds'] / wall['mutants']:.2f}"
    return "n/a"


def render_mutation_page(result: dict[str, Any]) -> str:
    """The page: the method, the scores per protocol and module, the waivers and survivors."""
    lines = [_INTRO, "## Scores", ""]
    lines += [
        f"Measured with {result['tool']} on the vectors of vector set "
        f"{result['vectorSetVersion']}, last run {result['measuredAt']}.",
        "",
        "| Protocol | Modules | Module status | Mutants | Run | Killed | Excluded | "
        "Not killed | Not yet run | Strict score | Of what ran | Time left (est.) | "
        "Functions not mutated |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for protocol, figures in result["protocols"].items():
        not_killed = figures["run"] - figures["killed"] - figures["excluded"]
        lines.append(
            f"| {protocol} | {figures['modules']} | {_kinds(figures['modulesByStatus'])} | "
            f"{figures['mutants']:,} | {figures['run']:,} | {figures['killed']:,} | "
            f"{figures['excluded']:,} | {not_killed:,} | {figures['pending']:,} | "
            f"**{_pct(figures['strictScore'])}** | {_pct(figures['scoreOfRun'])} | "
            f"{_seconds(figures['estimatedSecondsLeft'])} | {figures['functionsNotMutated']} |"
        )
    lines += [
        "",
        "The time left is the mutants not yet run times the seconds per mutant: "
        + "; ".join(
            f"{protocol} {figures['secondsPerMutant']} s, from {figures['estimateFrom']}"
            for protocol, figures in result["protocols"].items()
        )
        + " (wall time includes mutmut's start and clean run per batch, on the machine and "
        "load of the run; the vectors' own time leaves them out).",
    ]
    lines += [
        "",
        "## Per module",
        "",
        "| Module | Status | Mutants | Run | Killed | Excluded | Survivors unexplained | "
        "Accepted | Strict score | Of what ran | Wall s per mutant | Functions not mutated |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for module in result["modules"]:
        lines.append(
            f"| `{module['module'].removeprefix('src/apconform/')}` | {module['status']} | "
            f"{module['mutants']} | {module['run']} | {module['killed'] + module['timeout']} | "
            f"{_kinds(module['excludedByKind'])} | {len(module['unexplained'])} | "
            f"{len(module['acceptedSurvivors'])} | {_pct(module['strictScore'])} | "
            f"{_pct(module['scoreOfRun'])} | {_wall_rate(module)} | {len(module['notMutated'])} |"
        )
    waived = [
        (module["module"], entry)
        for module in result["modules"]
        for entry in module["exclusions"] + module["acceptedSurvivors"]
        if entry.get("by") == "waiver"
    ]
    lines += ["", "## Waivers", ""]
    if waived:
        lines += ["| Mutant | Change | Kind | Why |", "|---|---|---|---|"]
        lines += [
            f"| `{entry['mutant']}` | `{_cell(entry['change'])}` | {entry['kind']} | "
            f"{_cell(entry['reason'])} |"
            for _, entry in waived
        ]
    else:
        lines.append("None.")
    survivors = [(m["module"], e) for m in result["modules"] for e in m["unexplained"]]
    lines += [
        "",
        "## Survivors not yet explained",
        "",
        f"{len(survivors)} mutants survived and are neither excluded nor waived; each is a "
        "missing vector or a waiver still to write.",
    ]
    if survivors:
        lines += ["", "| Mutant | Change | Status |", "|---|---|---|"]
        lines += [
            f"| `{entry['mutant']}` | `{_cell(entry['change'])}` | {entry['status']}"
            f"{'; ' + entry['note'] if entry.get('note') else ''} |"
            for _, entry in survivors[:400]
        ]
        if len(survivors) > 400:
            lines.append(f"| and {len(survivors) - 400} more in the result file | | |")
    return "\n".join(lines) + "\n"


def build(root: Path) -> dict[str, str]:
    """The page from the committed result file."""
    result = json.loads((root / RESULT_FILE).read_text(encoding="utf-8"))
    return {"docs/kit/mutation.md": render_mutation_page(result)}
