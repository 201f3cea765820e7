"""CONTRIBUTING.md stays true: every path it names exists, every nox session it names is
defined in noxfile.py, and it lists every file family `apconform-dev gen` writes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "CONTRIBUTING.md"
NOXFILE = ROOT / "noxfile.py"
PACKAGE = ROOT / "src" / "apconform"

_SUFFIXES = (".py", ".md", ".json", ".toml", ".txt", ".yaml", ".yml")


def named_paths(page: str) -> set[str]:
    """Every word in a code span or code block that looks like a path in the checkout.

    Placeholders (``<id>``, ``…``), globs, options, URLs, absolute paths (system
    programs) and ``.venv/`` (made by the set-up) are not paths of the checkout.
    """
    spans = re.findall(r"```[a-z]*\n(.*?)```", page, flags=re.S)
    spans += re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", page, flags=re.S))
    found = set()
    for span in spans:
        for word in span.split():
            word = word.strip("'\"(),;:")
            if not ("/" in word or word.endswith(_SUFFIXES)):
                continue
            if any(mark in word for mark in "<>…*[]{}=") or "://" in word:
                continue
            if word.startswith(("-", "/", ".venv/")):
                continue
            found.add(word)
    return found


def missing_paths(page: str, root: Path, package: Path) -> list[str]:
    """Named paths found neither from the checkout's root nor from ``src/apconform``."""
    return sorted(
        p for p in named_paths(page) if not (root / p).exists() and not (package / p).exists()
    )


def defined_sessions(source: str) -> set[str]:
    """The functions of a noxfile decorated with ``nox.session``."""
    sessions = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(target) == "nox.session":
                    sessions.add(node.name)
    return sessions


def named_sessions(page: str) -> set[str]:
    """Sessions after ``nox -s`` in the page and the first column of its session table."""
    named = set()
    for run in re.findall(r"nox -s ((?:[a-z][a-z_-]* ?)+)", page):
        named.update(run.split())
    section = page.split("| Session |", 1)[1].split("\n\n", 1)[0]
    named.update(re.findall(r"^\| `([a-z_-]+)` \|", section, flags=re.M))
    return named


def test_every_path_the_page_names_exists() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert len(named_paths(page)) >= 40
    assert missing_paths(page, ROOT, PACKAGE) == []


def test_every_session_the_page_names_is_defined() -> None:
    page = PAGE.read_text(encoding="utf-8")
    named = named_sessions(page)
    assert {"lint", "types", "fast", "tests", "docs"} <= named
    assert named == defined_sessions(NOXFILE.read_text(encoding="utf-8"))


def test_the_fast_session_runs_the_fast_marker() -> None:
    tree = ast.parse(NOXFILE.read_text(encoding="utf-8"))
    fast = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "FAST_TESTS"
    )
    assert ast.literal_eval(fast) == ("-m", "fast")


def test_the_tests_session_and_the_docs_run_readme_s_test_command() -> None:
    """README's test command (what .ci/run runs), the nox ``tests`` session and the set-up
    page give the whole suite the same pytest options."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    command = readme[readme.index("<!-- test-command -->") + 2]
    options = tuple(command.rsplit("&& .venv/bin/python -m pytest", 1)[1].split())
    tree = ast.parse(NOXFILE.read_text(encoding="utf-8"))
    whole = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "WHOLE_SUITE"
    )
    assert options == ast.literal_eval(whole) == ("-n", "auto", "--dist", "loadfile")
    assert command in (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")


def test_every_generated_family_is_listed() -> None:
    from apconform.dev.gen import PRODUCTS

    page = PAGE.read_text(encoding="utf-8")
    owned = [path for product in PRODUCTS for path in product.owns]
    assert len(owned) > 15
    assert [p for p in owned if f"`{p}`" not in page and f"`{p}/`" not in page] == []


def test_self_test_a_stale_page_is_reported(tmp_path: Path) -> None:
    (tmp_path / "src" / "apconform" / "cli").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cli.md").write_text("x", encoding="utf-8")
    (tmp_path / "noxfile.py").write_text(
        "import nox\n\n@nox.session(venv_backend='none')\ndef lint(session): ...\n\n"
        "@nox.session\ndef docs(session): ...\n\ndef helper(): ...\n",
        encoding="utf-8",
    )
    page = (
        "Run `nox -s lint fast`; see `docs/cli.md`, `cli/`, `docs/gone.md` and\n"
        "`vectors/<protocol>/<id>.json`.\n\n```bash\n.venv/bin/pip install -c "
        "requirements/lock.txt -e '.[dev]'\n```\n\n| Session | What |\n|---|---|\n"
        "| `docs` | the site |\n"
    )
    assert missing_paths(page, tmp_path, tmp_path / "src" / "apconform") == [
        "docs/gone.md",
        "requirements/lock.txt",
    ]
    assert named_sessions(page) == {"lint", "fast", "docs"}
    assert defined_sessions((tmp_path / "noxfile.py").read_text(encoding="utf-8")) == {
        "lint",
        "docs",
    }
