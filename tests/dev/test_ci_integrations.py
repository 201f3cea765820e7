"""Where implementers run CI: the GitHub Action, pre-commit hook, container and wheel.

No GitHub runner and no container tool are available here, so each definition
is run as far as a workstation allows: the Action's shell steps run in order
with the environment a runner gives them (inputs, GITHUB_OUTPUT, GITHUB_PATH),
against the example adapter; the Containerfile's instructions (ENV, WORKDIR,
COPY, RUN, then ENTRYPOINT with CMD) run as a script in a scratch root; the
wheel is built and listed. The installs are real (a fresh virtual environment,
pip, the pinned dependencies), so this module takes a few minutes.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "examples" / "adapters"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _action() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8")))


# --- the GitHub Action -------------------------------------------------------------------------


@dataclass
class Runner:
    """Just enough of a GitHub runner to run a composite action's shell steps."""

    workspace: Path
    inputs: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)

    def value(self, expression: str) -> str:
        if expression.startswith("inputs."):
            return self.inputs[expression.removeprefix("inputs.")]
        if expression == "github.action_path":
            return str(ROOT)
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if match:
            return self.outputs.get(match[1], {}).get(match[2], "")
        raise AssertionError(f"the test runner does not know ${{{{ {expression} }}}}")

    def resolve(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m[1]), text)

    def condition(self, text: str) -> bool:
        """The two shapes of `if:` the action uses: always() && / an input compared with ''."""
        text = text.replace("always() && ", "")
        left, right = (part.strip() for part in text.split("!="))
        assert right == "''", text
        return self.value(left) != ""

    def run(self, step: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        temp = self.workspace.parent / "runner-temp"
        temp.mkdir(exist_ok=True)
        files = {
            name: temp / f"{name.lower()}-{step.get('id', 'step')}"
            for name in ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")
        }
        for file in files.values():
            file.write_text("", encoding="utf-8")
        env = {
            "PATH": os.pathsep.join([*self.path, "/usr/local/bin", "/usr/bin", "/bin"]),
            "HOME": str(self.workspace.parent),
            "RUNNER_TEMP": str(temp),
            "GITHUB_WORKSPACE": str(self.workspace),
            **{name: str(file) for name, file in files.items()},
            **{name: self.resolve(str(value)) for name, value in step.get("env", {}).items()},
        }
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        lines = files["GITHUB_OUTPUT"].read_text(encoding="utf-8").splitlines()
        self.outputs[step.get("id", "")] = dict(line.split("=", 1) for line in lines if line)
        self.path = files["GITHUB_PATH"].read_text(encoding="utf-8").split() + self.path
        return done


def _python_on_path(folder: Path) -> str:
    """What setup-python (or a python base image) gives: `python` and `python3` on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("python", "python3"):
        (folder / name).symlink_to(sys._base_executable)
    return str(folder)


def _run_action(
    runner: Runner, python_dir: str
) -> list[tuple[str, subprocess.CompletedProcess[str] | None]]:
    """Every step in order; `uses:` steps are recorded (None), not run.

    setup-python is stood in for as the action runs it (update-environment: false): it
    changes nothing on the job's PATH and gives the path of a Python 3.11 as its output.
    """
    results: list[tuple[str, subprocess.CompletedProcess[str] | None]] = []
    for step in _action()["runs"]["steps"]:
        if "if" in step and not runner.condition(step["if"]):
            continue
        if str(step.get("uses", "")).startswith("actions/setup-python@"):
            assert step["with"]["python-version"] == "${{ inputs.python-version }}"
            assert step["with"]["update-environment"] is False
            runner.outputs[step["id"]] = {"python-path": str(Path(python_dir) / "python3")}
        results.append((step["name"], runner.run(step) if "run" in step else None))
    return results


def _venv_with_this_kit(python: Path, folder: Path) -> Path:
    """A new environment of ``python`` that imports this checkout's kit and its dependencies
    (a .pth file naming them, no install); its site-packages folder."""
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(folder)], check=True)
    purelib = Path(
        subprocess.run(
            [
                str(folder / "bin" / "python"),
                "-c",
                "import sysconfig;print(sysconfig.get_paths()['purelib'])",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    lines = [sysconfig.get_paths()["purelib"], str(ROOT / "src")]
    (purelib / "this-kit.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return purelib


def _job_environment(folder: Path) -> Path:
    """A Python implementer's own environment: their interpreter with their dependencies.

    It can import what their adapter needs (here apconform's reference operations, from
    this checkout, and ``their_dependency``, which exists nowhere else); its bin folder is
    first on the job's PATH, as after their own setup-python and pip install.
    """
    purelib = _venv_with_this_kit(Path(sys.executable), folder)
    (purelib / "their_dependency.py").write_text("READY = True\n", encoding="utf-8")
    return folder / "bin"


def _their_adapter(source: Path, target: Path) -> None:
    """An example adapter that also imports the implementer's own dependency."""
    text = source.read_text(encoding="utf-8").replace(
        "from __future__ import annotations\n",
        "from __future__ import annotations\n\nimport their_dependency  # only in their env\n",
        1,
    )
    assert "import their_dependency" in text
    target.write_text(text, encoding="utf-8")


def _kit_bin(runner: Runner) -> Path:
    return Path(runner.outputs["install"]["apconform"]).parent


def _inputs(**given: str) -> dict[str, str]:
    declared = _action()["inputs"]
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    values.update(given)
    return values


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Runner, list[Any]]]:
    """The action run once, as a workflow would, on the reference's example adapter."""
    base = tmp_path_factory.mktemp("action")
    workspace = base / "workspace"
    workspace.mkdir()
    _their_adapter(ADAPTERS / "reference_exec.py", workspace / "impl.py")
    runner = Runner(workspace, _inputs(impl="exec:python3 impl.py", protocol="kit"))
    runner.path = [str(_job_environment(base / "their-venv"))]
    yield runner, _run_action(runner, _python_on_path(base / "setup-python"))


def test_the_action_is_a_composite_action_whose_scripts_read_inputs_from_env() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["impl"]["required"] is True
    steps = action["runs"]["steps"]
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1
    assert uploads[0]["with"]["path"] == "${{ inputs.report-dir }}"
    assert uploads[0]["if"].startswith("always()")
    for step in steps:
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"], step["name"]  # no expression inside a script


def test_third_party_actions_are_pinned_by_commit() -> None:
    """A tag can be moved; a commit SHA cannot. Each pin names its release beside it."""
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    pins = re.findall(r"uses: ([\w.-]+/[\w.-]+)@(\S+)(.*)", text)
    assert [name for name, _, _ in pins] == ["actions/setup-python", "actions/upload-artifact"]
    for name, ref, comment in pins:
        assert re.fullmatch(r"[0-9a-f]{40}", ref), (name, ref)
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", comment), (name, comment)


def test_the_action_installs_the_kit_and_checks_the_example_adapter(
    installed: tuple[Runner, list[Any]],
) -> None:
    runner, results = installed
    names = [name for name, _ in results]
    assert names == [
        "Set up Python",
        "Install apconform",
        "Run apconform check",
        "Upload the reports",
        "Fail on findings",
    ]
    for name, done in results:
        if done is not None:
            assert done.returncode == 0, (name, done.stdout[-2000:], done.stderr[-2000:])
    install = results[1][1]
    assert install is not None and install.stdout.startswith("apconform ")
    # the kit is not on the job's PATH: `python3 impl.py` ran the job's own interpreter, the
    # one with their_dependency, and later steps keep theirs too
    assert runner.path == [str(runner.workspace.parent / "their-venv" / "bin")]
    kit = Path(runner.outputs["install"]["apconform"])
    assert kit.is_file() and kit.parent.parent.name == "apconform-venv"
    assert runner.outputs["check"] == {"exit-code": "0"}
    reports = runner.workspace / "apconform-reports"
    assert sorted(p.name for p in reports.iterdir()) == ["report.html", "report.json", "report.xml"]
    suite = ElementTree.parse(reports / "report.xml").getroot()
    cases = suite.iter("testcase")
    assert sum(1 for _ in cases) > 50
    assert suite.find(".//failure") is None
    report = [json.loads(line) for line in (reports / "report.json").read_text().splitlines()]
    assert report[0]["record"] == "header" and report[0]["target"] == "exec:python3 impl.py"


def test_the_action_fails_the_job_on_findings_and_still_uploads(
    installed: tuple[Runner, list[Any]], tmp_path: Path
) -> None:
    runner, _ = installed
    vector = json.loads(
        (ROOT / "vectors/kit/canonical/kit-jcs-number-exponent.json").read_text("utf-8")
    )
    sys.path.insert(0, str(ADAPTERS))
    try:
        from faulty_impl import case_key
    finally:
        sys.path.remove(str(ADAPTERS))
    fault = f"wrong-value={case_key(vector['operation'], vector['input'])}"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    _their_adapter(ADAPTERS / "faulty_impl.py", workspace / "impl.py")
    failing = Runner(workspace, _inputs(impl=f"exec:python3 impl.py {fault}", protocol="kit"))
    failing.path = runner.path  # the job's own environment
    failing.outputs["install"] = runner.outputs["install"]  # the kit the first run installed
    steps = {s["name"]: s for s in _action()["runs"]["steps"]}
    check = failing.run(steps["Run apconform check"])
    assert check.returncode == 0, check.stderr  # the step records; the last step fails the job
    assert failing.outputs["check"] == {"exit-code": "1"}
    assert "kit-jcs-number-exponent" in check.stdout
    failures = ElementTree.parse(workspace / "apconform-reports/report.xml").findall(".//failure")
    assert len(failures) == 1
    assert failing.condition(steps["Upload the reports"]["if"])  # uploaded all the same
    final = failing.run(steps["Fail on findings"])
    assert final.returncode == 1
    assert "::error title=apconform check::exit status 1" in final.stdout


def test_the_wheel_ships_the_clause_suite_and_it_runs_from_the_install(
    installed: tuple[Runner, list[Any]], tmp_path: Path
) -> None:
    runner, _ = installed
    python = _kit_bin(runner) / "python"
    found = subprocess.run(
        [
            str(python),
            "-c",
            "from apconform.resources import data_path;print(data_path('conformance'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert "site-packages" in found and Path(found, "conftest.py").is_file()
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "-c",
            str(ROOT / "requirements/lock.txt"),
            "pytest",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    adapter = f"exec:{python} {ADAPTERS / 'reference_exec.py'}"
    done = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            found,
            "--impl",
            adapter,
            "--protocol",
            "kit",
            "-q",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"\d+ passed", done.stdout)


def test_apconform_dev_in_an_install_without_the_dev_extra_names_the_extra(
    installed: tuple[Runner, list[Any]],
) -> None:
    runner, _ = installed
    done = subprocess.run(
        [str(_kit_bin(runner) / "apconform-dev"), "gen", "--check"],
        cwd=runner.workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: apconform-dev needs LinkML, which the dev extra installs")
    assert "Traceback" not in done.stderr


def test_the_wheel_carries_the_suite_and_the_project_urls(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("apconform-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata_name,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode("utf-8")
    for clause_file in (ROOT / "conformance").rglob("*.py"):
        rel = clause_file.relative_to(ROOT).as_posix()
        assert f"apconform/_data/{rel}" in names
    assert "apconform/_data/conformance/clauses/test_kit.py" in names
    urls = dict(
        line.removeprefix("Project-URL: ").split(", ", 1)
        for line in metadata.splitlines()
        if line.startswith("Project-URL: ")
    )
    assert sorted(urls) == ["Changelog", "Documentation", "Homepage", "Issues", "Source"]
    assert all(url.startswith("https://") for url in urls.values())


# --- the pre-commit hook -----------------------------------------------------------------------


def test_the_pre_commit_hook_validates_the_files_pre_commit_passes(tmp_path: Path) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "apconform-validate" and hook["language"] == "python"
    assert hook["types"] == ["json"]
    good = ROOT / "vectors/kit/canonical/kit-jcs-number-exponent.json"
    broken = tmp_path / "broken.json"
    broken.write_text('{"schemaVersion": "apconform-vector/1"}', encoding="utf-8")
    executable = Path(sys.executable).parent / shlex.split(hook["entry"])[0]
    command = [str(executable), *shlex.split(hook["entry"])[1:], "--type", "vector"]
    # pre-commit appends the staged files to entry + args.
    ok = subprocess.run([*command, str(good), str(good)], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.count("valid vector document") == 2
    bad = subprocess.run([*command, str(good), str(broken)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert f"{broken}: refused:" in bad.stderr


# --- the container -----------------------------------------------------------------------------


def _instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for line in joined.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            keyword, _, rest = line.strip().partition(" ")
            out.append((keyword, rest.strip()))
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_containerfile_builds_and_runs_as_a_script(tmp_path: Path) -> None:
    """Each instruction as the builder runs it, in a scratch root instead of /.

    Absolute paths map under the scratch root; the one RUN that creates the
    image's user (useradd, which would change this machine) is the one skipped.
    """
    root = tmp_path / "root"

    def mapped(path: str) -> Path:
        return root / path.lstrip("/")

    base_image = _python_on_path(tmp_path / "base-image-bin")  # python:3.11-slim's python
    env: dict[str, str] = {"PATH": f"{base_image}:/usr/bin:/bin", "HOME": str(tmp_path)}
    workdir = mapped("/")
    entrypoint: list[str] = []
    cmd: list[str] = []
    skipped = []
    for keyword, rest in _instructions():
        if keyword == "FROM":
            assert rest.startswith("docker.io/library/python:3.11")
        elif keyword == "ENV":
            for name, value in (pair.split("=", 1) for pair in shlex.split(rest)):
                value = value.replace("$PATH", env["PATH"])
                env[name] = value.replace("/opt/", f"{root}/opt/")
        elif keyword == "WORKDIR":
            workdir = mapped(rest)
            workdir.mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            *sources, target = shlex.split(rest)
            if target.endswith("/"):
                for source in sources:
                    (workdir / target).mkdir(parents=True, exist_ok=True)
                    shutil.copy(ROOT / source, workdir / target)
            elif (ROOT / sources[0]).is_dir():
                shutil.copytree(ROOT / sources[0], workdir / target)
            else:
                (workdir / target).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / sources[0], workdir / target)
        elif keyword == "RUN":
            if "useradd" in rest:
                skipped.append(rest)
                rest = rest.split("&&", 1)[1].replace("/build", str(mapped("/build")))
            done = subprocess.run(
                ["sh", "-c", rest],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            assert done.returncode == 0, (rest, done.stdout[-2000:], done.stderr[-2000:])
        elif keyword == "ENTRYPOINT":
            entrypoint = json.loads(rest)
        elif keyword == "CMD":
            cmd = json.loads(rest)
    assert len(skipped) == 1 and not mapped("/build").exists()
    assert entrypoint == ["apconform"]
    assert cmd == ["serve", "--host", "0.0.0.0", "--port", "8080"]
    assert env["PATH"].startswith(f"{root}/opt/apconform/bin")

    # `podman run apconform check ...` with the implementer's folder mounted on /work.
    shutil.copy(ADAPTERS / "reference_exec.py", workdir / "impl.py")
    check = subprocess.run(
        [
            *entrypoint,
            "check",
            "--impl",
            "exec:python impl.py",
            "--protocol",
            "kit",
            "--format",
            "junit",
            "--output",
            "report.xml",
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert check.returncode == 0, check.stderr[-2000:]
    assert ElementTree.parse(workdir / "report.xml").getroot().find(".//failure") is None

    # `podman run -p 8080:8080 apconform`: the default command, on a free loopback port here.
    port = _free_port()
    served = [*cmd[:-3], "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(
        [*entrypoint, *served],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/v1/health")
                response = connection.getresponse()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        assert response.status == 200
        assert json.loads(response.read()) == {"status": "ok"}
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_container_check_runs_as_the_host_user_and_writes_readable_reports(
    tmp_path: Path,
) -> None:
    """`--user "$(id -u):$(id -g)"` as documented: the kit as a uid with no passwd entry.

    No container tool here, so the check runs as uid and gid 4321 (which no account has)
    with the image's HOME, in a folder that uid owns, as a bind mount of the user's folder
    would be; the reports it writes must be that uid's and readable by every host user.
    """
    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    docs = (ROOT / "docs/kit/continuous-integration.md").read_text(encoding="utf-8")
    documented = '--user "$(id -u):$(id -g)" -v "$PWD:/work" apconform'
    assert documented in text and documented in docs and "--userns=keep-id" in docs
    home = next(
        value
        for keyword, rest in _instructions()
        if keyword == "ENV"
        for name, value in (pair.split("=", 1) for pair in shlex.split(rest))
        if name == "HOME"
    )
    assert home == "/tmp"
    system_python = Path("/usr/bin/python3")
    if os.geteuid() != 0 or not system_python.exists():
        pytest.skip("running as another uid needs root and a system Python")
    scratch = Path(tempfile.mkdtemp(prefix="apconform-uid-"))
    try:
        scratch.chmod(0o755)
        venv = scratch / "venv"  # a Python every uid can run, with this checkout's kit
        _venv_with_this_kit(system_python, venv)
        work = scratch / "work"
        work.mkdir()
        os.chown(work, 4321, 4321)
        done = subprocess.run(
            [str(venv / "bin/python"), "-m", "apconform.cli", "check", "--impl",
             "direct:apconform.conformance.reference:adapter", "--protocol", "kit",
             "--format", "junit", "--output", "report.xml"],
            cwd=work,
            env={"PATH": "/usr/bin:/bin", "HOME": home},
            user=4321,
            group=4321,
            extra_groups=[],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )  # fmt: skip
        if "Permission denied" in done.stderr and str(ROOT) in done.stderr:
            pytest.skip(f"uid 4321 cannot read this checkout ({ROOT})")
        assert done.returncode == 0, done.stderr[-2000:]
        report = (work / "report.xml").stat()
        assert (report.st_uid, report.st_gid) == (4321, 4321)
        assert report.st_mode & 0o044 == 0o044  # group and others may read it
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_the_docs_pin_the_kit_to_what_exists() -> None:
    """No doc tells a user to pin a tag the repository does not have (`v0.1.0` had none)."""
    tags = subprocess.run(
        ["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    pinned = []
    for page in (ROOT / "docs/kit/continuous-integration.md", ROOT / "action.yml"):
        text = page.read_text(encoding="utf-8")
        pinned += re.findall(r"apconform/apconform@(v[\w.]+)", text)
        pinned += re.findall(r"rev: (v[\w.]+)", text)
        pinned += re.findall(r"apconform==([\w.]+)", text)
    assert [ref for ref in pinned if ref not in tags] == []
    guide = (ROOT / "docs/kit/continuous-integration.md").read_text(encoding="utf-8")
    assert "uses: apconform/apconform@SHA" in guide and "rev: SHA" in guide
    assert "git ls-remote https://github.com/apconform/apconform" in guide
