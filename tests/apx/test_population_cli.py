"""`apconform apx preregister | check-preregistration | power | population`: beyond APx 0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from population_support import ASSUMPTIONS, COMPONENTS, SMALL, draft, power_request

from apconform.apx.population import campaign_documents, simulate
from apconform.cli import main
from apconform.core.signing import generate_key_file


def _write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_preregister_signs_and_check_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_key_file(tmp_path / "key")
    assert (
        main(
            [
                "apx",
                "preregister",
                "--sign",
                str(tmp_path / "key"),
                str(_write(tmp_path, "d.json", draft())),
            ]
        )
        == 0
    )
    frozen = json.loads(capsys.readouterr().out)
    assert frozen["signature"]["publicKey"] == key.public_key_hex
    path = _write(tmp_path, "prereg.json", frozen)
    # Without naming the signer, only the published TEST key is trusted: refused, exit 2.
    assert main(["apx", "check-preregistration", str(path)]) == 2
    assert "APC-SIG-UNTRUSTED" in capsys.readouterr().err
    assert (
        main(["apx", "check-preregistration", "--trusted-key", key.public_key_hex, str(path)]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is True and report["hash"] == frozen["hash"]
    assert report["signature"].startswith("signature valid")
    changed = dict(frozen, minimumEffect=3)
    assert main(["apx", "check-preregistration", str(_write(tmp_path, "c.json", changed))]) == 2
    err = capsys.readouterr().err
    assert "APX-EXT-PRE-HASH" in err and "Traceback" not in err


def test_power_prints_a_table_and_writes_the_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = power_request(
        target={"kind": "power", "value": 0.5, "vary": "pairs", "upTo": 12},
        assumptions={"improvement": 1.0, "parentAcceptance": 0.6, "candidateAcceptance": 0.7},
    )
    plot = tmp_path / "power.svg"
    args = ["apx", "power", "--format", "table", "--plot", str(plot), "--seed", "3"]
    assert main([*args, str(_write(tmp_path, "p.json", request))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Beyond APx 0.1: power and precision")
    assert "seed 3" in out and "answer: pairs = " in out
    assert plot.read_text(encoding="utf-8").startswith("<svg")


def test_power_beyond_its_budget_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = power_request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 100})
    assert main(["apx", "power", "--budget", "1000", str(_write(tmp_path, "p.json", request))]) == 2
    err = capsys.readouterr().err
    assert "APX-EXT-POW-BUDGET" in err and "the budget is 1,000" in err
    assert capsys.readouterr().out == ""


def test_power_refused_by_its_schema_exits_1_with_every_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = power_request(simulations=99, alpha=0.5)
    assert main(["apx", "power", str(_write(tmp_path, "p.json", request))]) == 1
    err = capsys.readouterr().err
    assert "refused: 2 violation(s)" in err
    assert "at $.simulations: input should be greater than or equal to 100" in err
    assert "at $.alpha:" in err


def test_population_follows_a_preregistration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest, comparison = campaign_documents(
        simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 0, record=True)
    )
    request = _write(tmp_path, "r.json", {"manifest": manifest, "comparison": comparison})
    assert main(["apx", "preregister", str(_write(tmp_path, "d.json", draft()))]) == 0
    prereg = _write(tmp_path, "prereg.json", json.loads(capsys.readouterr().out))
    args = ["apx", "population", "--preregistration", str(prereg), "--iterations", "500"]
    assert main([*args, str(request)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schemaVersion"] == "apx-ext-population/1"
    assert document["confirmatory"] is True
    assert document["apx01"]["interval"]["iterations"] == 500
    assert main(["apx", "population", "--format", "table", str(request)]) == 0
    out = capsys.readouterr().out
    assert "preregistration: none (exploratory)" in out
    assert "APx 0.1 paired bootstrap (95%, conditional on the frozen baseline)" in out


def test_population_refusals_exit_2_and_kernel_refusals_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest, comparison = campaign_documents(
        simulate(COMPONENTS, ASSUMPTIONS, SMALL, 7, 0, record=True)
    )
    short = {"manifest": manifest, "comparison": {"pairs": comparison["pairs"][:4]}}
    assert main(["apx", "population", str(_write(tmp_path, "s.json", short))]) == 2
    assert "APX-EXT-POP-PAIRS" in capsys.readouterr().err
    comparison["pairs"][0]["parent"]["costUSD"] = -1
    broken = {"manifest": manifest, "comparison": comparison}
    assert main(["apx", "population", str(_write(tmp_path, "b.json", broken))]) == 1
    assert "APX-VAL-NUMBER" in capsys.readouterr().err


def test_a_hostile_id_is_escaped_in_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from apconform.apx.population.presentation import _text

    assert _text("a\x1b[2Jb\u202e") == "a\\u001b[2Jb\\u202e"
