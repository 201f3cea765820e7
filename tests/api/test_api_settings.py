"""Settings reach worker processes through the environment; version finds the manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apconform.api import ApiSettings
from apconform.api import catalog as catalog_module
from apconform.conformance.clauses import load_clause_registry
from apconform.core.canonical import sha256_hex
from apconform.core.errors import UsageError


def test_settings_round_trip_through_the_environment() -> None:
    settings = ApiSettings(request_timeout=2.5, max_in_flight=8, threads=3)
    assert ApiSettings.from_env(settings.to_env()) == settings
    assert ApiSettings.from_env({}) == ApiSettings()


@pytest.mark.parametrize(
    "env",
    [
        {"APCONFORM_API_MAX_IN_FLIGHT": "many"},
        {"APCONFORM_API_REQUEST_TIMEOUT": "0"},
        {"APCONFORM_API_MAX_BODY_BYTES": "2000000"},
    ],
)
def test_bad_settings_are_usage_errors(env: dict[str, str]) -> None:
    with pytest.raises(UsageError):
        ApiSettings.from_env(env)


def test_version_reports_the_vector_manifest_digest_when_one_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = {"schemaVersion": "example", "vectors": [{"id": "a", "sha256": "0" * 64}]}
    (tmp_path / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    real = catalog_module.data_path

    def data_path(*parts: str) -> Path:
        return tmp_path / "MANIFEST.json" if parts == ("vectors", "MANIFEST.json") else real(*parts)

    clauses = load_clause_registry()
    without = catalog_module.version_report(clauses)
    monkeypatch.setattr(catalog_module, "data_path", data_path)
    report = catalog_module.version_report(clauses)
    assert report["vectorManifestSha256"] == sha256_hex(manifest)
    assert ("vectorManifestSha256" in without) == real("vectors", "MANIFEST.json").is_file()
