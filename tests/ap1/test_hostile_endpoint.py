"""The API key never reaches a file or a terminal, in any encoding an echoing endpoint can use.

Finding 2 of the trust review: an endpoint that echoed the Authorization value
back made the key land unmasked in tool-call ids and, JSON-escaped, in response
bodies. Here the built-in endpoint's hostile persona (mock-echo-key) echoes it
every way it can; the whole run directory, the report and the command output
are searched for the key in every form listed in AP1-EP-8: zero hits.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from apconform.ap1.inputs.files import example_paths, load_inputs
from apconform.ap1.masking import MASK, mask_text
from apconform.ap1.mock import MockEndpoint

KEY = "sk-test-SECRET-MARKER_0123.abc"
ENV = "APC_HOSTILE_TEST_KEY"


def _character(char: str) -> str:
    """A character as it may appear: itself, \\uXXXX (any case, escaped again) or %XX."""
    code = ord(char)
    return (
        f"(?:{re.escape(char)}|\\\\+u(?i:{code:04x})|%(?:25)*(?i:{code:02x}))"
        if code < 128
        else re.escape(char)
    )


FORMS = re.compile("".join(_character(c) for c in KEY))
NEEDLES = {KEY.encode("utf-8").hex(), KEY.encode("utf-8").hex().upper()}
for text in (KEY, f"Bearer {KEY}"):
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        NEEDLES.add(encode(text.encode("utf-8")).decode("ascii").rstrip("="))


def _hits(text: str) -> list[str]:
    found = [match.group(0) for match in FORMS.finditer(text)]
    return found + [needle for needle in NEEDLES if needle in text]


def test_the_detector_finds_every_form_the_persona_uses() -> None:
    from apconform.ap1.mock.echo import echo_error, fill_placeholder

    raw = fill_placeholder(b"PLACE ECHO-PLACEHOLDER-7f3a", f"Bearer {KEY}").decode("utf-8")
    assert len(_hits(raw)) >= 4
    assert len(_hits(echo_error(f"Bearer {KEY}").decode("utf-8"))) >= 3
    assert _hits(base64.b64encode(f"Bearer {KEY}".encode()).decode())
    assert _hits(mask_text(raw, [KEY])) == []


def test_a_key_echoed_back_in_every_encoding_is_stored_nowhere(tmp_path: Path) -> None:
    paths = example_paths()
    config = json.loads(paths.config.read_text(encoding="utf-8"))
    with MockEndpoint(load_inputs(paths), seed=3) as mock:
        config["endpoint"].update(url=mock.url, model="mock-echo-key", apiKeyEnv=ENV)
        config["repeats"] = "1"
        (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
        run_dir = tmp_path / "run"
        env = {**os.environ, ENV: KEY}
        command = [sys.executable, "-m", "apconform.cli", "ap1"]
        inputs = ["--config", str(tmp_path / "config.json"), "--fixture", str(paths.fixture)]
        inputs += ["--questions", str(paths.questions), "--derivations", str(paths.derivations)]
        inputs += ["--ap1-text", str(paths.ap1_text), "--output-dir", str(run_dir)]
        outputs = [
            subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=300)
            for args in (
                ["run", *inputs],
                ["verify-transcript", str(run_dir)],
                ["score", str(run_dir)],
                ["rescore", str(run_dir)],
            )
        ]
        served = dict(mock.served)
    assert [o.returncode for o in outputs] == [0, 0, 0, 0], [o.stderr for o in outputs]
    assert served.get("echo-key", 0) >= 200  # the persona answered (and echoed) every round
    assert "EXECUTED 100, VOID 4" in outputs[0].stdout
    transcript = (run_dir / "transcript.jsonl").read_text(encoding="utf-8")
    ids = {
        call["id"]
        for line in transcript.splitlines()
        for call in json.loads(line).get("execution", {}).get("toolCalls", [])
    }
    assert ids and all(i.endswith(f"_Bearer {MASK}") for i in ids)  # echoed, then masked
    leaks = {
        str(path.relative_to(tmp_path)): _hits(path.read_bytes().decode("utf-8", "replace"))
        for path in sorted(tmp_path.rglob("*"))
        if path.is_file()
    }
    for number, output in enumerate(outputs):
        leaks[f"command {number} stdout"] = _hits(output.stdout)
        leaks[f"command {number} stderr"] = _hits(output.stderr)
    assert {name: found for name, found in leaks.items() if found} == {}
    assert len(leaks) > 15  # the run directory, the report and the sheets were all searched
