"""The typed APx routes answer what `apconform apx ...` prints and refuse as the kernel does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import call
from fastapi import FastAPI

from apconform.api import typed
from apconform.apx import freeze, rebind
from apconform.apx.tutorial import tutorial_campaign, tutorial_manifest, tutorial_pairs
from apconform.cli import main
from apconform.conformance.vectors import load_vectors
from apconform.core.jsonload import loads
from apconform.core.jsonmemo import LoadedBody, MemberMemo


def _cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str, body: Any) -> Any:
    source = tmp_path / "input.json"
    source.write_text(json.dumps(body), encoding="utf-8")
    assert main(["apx", *args, str(source)]) == 0
    return json.loads(capsys.readouterr().out)


def _demo() -> dict[str, Any]:
    manifest, run = tutorial_campaign()
    return {"manifest": manifest, "run": run}


@pytest.mark.parametrize(
    ("path", "command", "make"),
    [
        ("/v1/apx/evaluate", "evaluate", _demo),
        ("/v1/apx/validate-run", "validate", _demo),
        ("/v1/apx/validate-manifest", "validate", lambda: {"manifest": _demo()["manifest"]}),
        (
            "/v1/apx/compare",
            "promote",
            lambda: {
                "manifest": tutorial_manifest(),
                "comparison": {"pairs": tutorial_pairs(tutorial_manifest(), [4.0, 5.0], [2, 3])},
                "options": {"iterations": 100, "seed": 7},
            },
        ),
    ],
)
def test_routes_answer_what_the_command_prints(
    api: FastAPI,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    path: str,
    command: str,
    make: Any,
) -> None:
    body = make()
    reply = call(api, "POST", path, json_body=body)
    assert reply.status == 200, reply.json
    assert reply.headers["content-type"] == "application/json"
    assert reply.json == _cli(capsys, tmp_path, command, body=body)


def test_evaluate_gives_the_demo_campaigns_figures(api: FastAPI) -> None:
    result = call(api, "POST", "/v1/apx/evaluate", json_body=_demo()).json
    assert (result["schemaVersion"], result["AP"], result["eligibility"]) == (
        "apx-result/0.1",
        9,
        "ELIGIBLE",
    )
    assert result["APx"] == pytest.approx(3.169925001442312)


def test_freeze_hashes_a_draft_as_the_command_does(
    api: FastAPI, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    draft = tutorial_manifest()
    for component in ("suite", "baseline", "evaluator", "environment"):
        del draft[component]["hash"]
    del draft["suite"]["taskSetHash"]
    reply = call(api, "POST", "/v1/apx/freeze", json_body=draft)
    assert reply.status == 200
    assert reply.json == tutorial_manifest() == _cli(capsys, tmp_path, "freeze", body=draft)


def test_a_refusal_is_the_kernels_with_every_violation(api: FastAPI) -> None:
    body = _demo()
    body["manifest"]["suite"]["id"] = "edited after freezing"
    body["run"]["wallHours"] = -1
    reply = call(api, "POST", "/v1/apx/evaluate", json_body=body)
    assert reply.status == 422
    assert reply.headers["content-type"] == "application/problem+json"
    problem = reply.json
    assert (problem["code"], problem["detail"], problem["path"]) == (
        "APX-MAN-HASH",
        "APx validation: suite frozen hash mismatch",
        "$.manifest.suite.hash",
    )
    assert [(v["code"], v["path"], v["message"]) for v in problem["violations"]] == [
        ("APX-MAN-HASH", "$.manifest.suite.hash", "APx validation: suite frozen hash mismatch"),
        (
            "APX-VAL-NUMBER",
            "$.run.wallHours",
            "APx validation: wallHours must be finite in [1e-9, 1000000]",
        ),
    ]


def test_freeze_refuses_a_draft_without_a_suite_in_the_kernels_words(api: FastAPI) -> None:
    draft = tutorial_manifest()
    del draft["suite"]
    problem = call(api, "POST", "/v1/apx/freeze", json_body=draft).json
    assert (problem["status"], problem["code"], problem["detail"]) == (
        422,
        "APX-VAL-OBJECT",
        "APx validation: suite must be an object",
    )


def test_lengths_count_utf16_units_so_a_schema_valid_body_can_be_refused(api: FastAPI) -> None:
    """200 astral characters are 200 code points (the schema allows 256) but 400 UTF-16 units."""
    body = _demo()
    body["run"]["id"] = "\U0001f600" * 200
    problem = call(api, "POST", "/v1/apx/evaluate", json_body=body).json
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "APX-VAL-STRING",
        "$.run.id",
    )


def test_a_member_the_kernel_ignores_must_still_meet_the_schema(
    api: FastAPI, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A synthetic baseline's protocol is never read by the kernel; the schema still types it."""
    manifest, run = tutorial_campaign()
    manifest["baseline"]["protocol"] = 5
    manifest = freeze(manifest)
    body = {"manifest": manifest, "run": rebind(manifest, run)}
    assert _cli(capsys, tmp_path, "evaluate", body=body)["AP"] == 9
    problem = call(api, "POST", "/v1/apx/evaluate", json_body=body).json
    assert (problem["status"], problem["code"]) == (422, "APC-DOC-REFUSED")
    assert [(v["code"], v["path"]) for v in problem["violations"]] == [
        ("APC-SCHEMA-VIOLATION", "$.manifest.baseline.protocol")
    ]


def test_extra_members_of_open_classes_are_accepted(api: FastAPI) -> None:
    manifest, run = tutorial_campaign()
    manifest["suite"]["notes"] = {"anything": [1, "two"]}
    manifest = freeze(manifest)
    body = {"manifest": manifest, "run": {**rebind(manifest, run), "x-vendor": True}}
    reply = call(api, "POST", "/v1/apx/evaluate", json_body={**body, "comment": "kept"})
    assert reply.status == 200
    assert reply.json["AP"] == 9


def test_typed_routes_document_their_models(api: FastAPI) -> None:
    document = call(api, "GET", "/v1/openapi.json").json
    bodies = {
        path: item["post"]["requestBody"]["content"]["application/json"]["schema"]
        for path, item in document["paths"].items()
        if path.startswith("/v1/apx/")
    }
    answers = {
        path: document["paths"][path]["post"]["responses"]["200"]["content"]["application/json"][
            "schema"
        ]
        for path in bodies
    }
    expected = {
        "/v1/apx/validate-manifest": ("ApxManifestRequest", "ApxValidation"),
        "/v1/apx/validate-run": ("EvaluationRequest", "ApxValidation"),
        "/v1/apx/freeze": ("ApxManifestDraft", "Manifest"),
        "/v1/apx/evaluate": ("EvaluationRequest", "Result"),
        "/v1/apx/compare": ("PromotionRequest", "Promotion"),
    }
    for path, (body, answer) in expected.items():
        assert bodies[path] == {"$ref": f"#/components/schemas/{body}"}
        assert answers[path] == {"$ref": f"#/components/schemas/{answer}"}
    schemas = document["components"]["schemas"]
    suite = schemas["ApxSuiteDraft"]
    assert "hash" not in suite["required"] and "hash" in schemas["Suite"]["required"]
    assert suite["properties"]["hash"]["pattern"] == "^[0-9a-f]{64}$"
    assert schemas["Run"]["additionalProperties"] is True
    assert schemas["BaselineAttempt"]["properties"]["hours"]["minimum"] == 1e-9


class _Forgetful(MemberMemo):
    """Remembers nothing: every body is parsed by the loader and validated whole, as before
    members were remembered."""

    def loads(self, data: bytes, *, source: str = "<input>") -> LoadedBody:
        return LoadedBody(loads(data, source=source))


def test_evaluate_answers_alike_with_remembered_members_byte_for_byte(
    api: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every apx.evaluate vector, the demo and bodies the route refuses: the same status and
    # bytes whether the members are new, seen twice or remembered, as with the whole-body
    # loader; and evaluating leaves the remembered values as they were parsed.
    inputs = [v.vector.input for v in load_vectors() if v.vector.operation == "apx.evaluate"]
    demo = _demo()
    inputs += [demo, {**demo, "extra": [1]}, {**demo, "run": {**demo["run"], "runId": 7}}]
    inputs += [{"manifest": demo["manifest"]}, {**demo, "manifest": {}}]
    bodies = [json.dumps(value).encode("utf-8") for value in inputs]
    bodies += [bodies[0][:-1] + b', "run": {}}', b'{"manifest": 1e999}']
    headers = [("content-type", "application/json"), ("x-request-id", "compare")]

    def replies(memo: MemberMemo) -> list[tuple[int, bytes]]:
        monkeypatch.setattr(typed, "_MEMBERS", memo)
        return [
            (reply.status, reply.body)
            for reply in (
                call(api, "POST", "/v1/apx/evaluate", body=body, headers=headers) for body in bodies
            )
        ]

    before = replies(_Forgetful())
    memo = MemberMemo()
    for _ in range(3):  # new, seen twice (remembered), remembered and proved
        assert replies(memo) == before
    assert {status for status, _ in before} >= {200, 400, 422}
    assert len(memo) >= 4
    for (_, text), entry in memo._order.items():
        assert json.dumps(entry.value) == json.dumps(loads(text))
