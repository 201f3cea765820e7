"""The typed APx routes: validate, freeze, evaluate and compare (promote), as the CLI does them.

Each is the route of the APx vector operation of the same name
(``POST /v1/apx/evaluate`` is ``apx.evaluate``), typed: the body is the
generated model of what ``apconform apx ...`` reads and the answer the model of
what it prints. The kernel runs first, on the body as sent, so a refusal is
the kernel's (its order, its codes, the reference kernel's wording in the
first violation, every violation with its path, status 422); then the body is
checked against its documented model, because the kernel ignores members it
does not read (a synthetic baseline's ``protocol``, for instance) that the
schema still constrains. The kernel's own rules go further than the schema:
it binds hashes to the data, relates members to each other, and counts string
lengths in UTF-16 code units where JSON Schema counts code points; a body the
schema accepts can therefore still be refused, always with 422.
"""

from __future__ import annotations

from typing import Any

from apconform.api.routes.operations import operation_path
from apconform.api.typed import TypedRoute
from apconform.apx import evaluate_document, freeze, validate_manifest, validate_run
from apconform.apx.checks import MISSING
from apconform.apx.kernel import compare_document
from apconform.models.api import ApxManifestDraft, ApxManifestRequest, ApxValidation
from apconform.models.apx import EvaluationRequest, Manifest, Promotion, PromotionRequest, Result

__all__ = ["APX_ROUTES"]


def _member(document: Any, name: str) -> Any:
    """A member of the body, or the kernel's marker for an absent one (as the CLI reads it)."""
    return document.get(name, MISSING) if type(document) is dict else MISSING


def _validate_manifest(value: Any) -> dict[str, Any]:
    return validate_manifest(_member(value, "manifest"), at=("manifest",)).to_dict()


def _validate_run(value: Any) -> dict[str, Any]:
    return validate_run(_member(value, "manifest"), _member(value, "run")).to_dict()


def _evaluate(value: Any) -> dict[str, Any]:
    return evaluate_document(_member(value, "manifest"), _member(value, "run"))


def _compare(value: Any) -> dict[str, Any]:
    return compare_document(
        _member(value, "manifest"), _member(value, "comparison"), _member(value, "options")
    )


def _demo() -> dict[str, Any]:
    from apconform.apx.tutorial import tutorial_campaign

    manifest, run = tutorial_campaign()
    return {"manifest": manifest, "run": run}


def _demo_draft() -> dict[str, Any]:
    from apconform.apx.tutorial import tutorial_manifest

    draft = tutorial_manifest()
    for component in ("suite", "baseline", "evaluator", "environment"):
        del draft[component]["hash"]
    del draft["suite"]["taskSetHash"]
    return draft


def _demo_comparison() -> dict[str, Any]:
    from apconform.apx.tutorial import tutorial_manifest, tutorial_pairs

    manifest = tutorial_manifest()
    pairs = tutorial_pairs(manifest, [4.0, 5.0, 6.0], [2.0, 2.5, 3.0])
    return {"manifest": manifest, "comparison": {"pairs": pairs}, "options": {"iterations": 200}}


_KERNEL = (
    " The APx kernel checks the body first, in the reference kernel's order; a refusal is a "
    "422 problem whose detail is the reference kernel's message and whose violations list "
    "every fault with its code and path. The kernel's rules go beyond the schema (hash "
    "bindings, relations between members, string lengths in UTF-16 code units), so a "
    "schema-valid body can still be refused."
)

APX_ROUTES = (
    TypedRoute(
        path=operation_path("apx.validate_manifest"),
        operation="apx.validate_manifest",
        operation_id="apx_validate_manifest",
        tag="apx",
        summary="Validate a frozen APx manifest and calibrate its task classes",
        description="The HTTP form of `apconform apx validate` given {manifest}." + _KERNEL,
        body=ApxManifestRequest,
        answer=ApxValidation,
        run=_validate_manifest,
        what="manifest request",
        answer_description="The manifest passed every check; the calibration of each class.",
        examples=(("demo", lambda: {"manifest": _demo()["manifest"]}),),
    ),
    TypedRoute(
        path=operation_path("apx.validate_run"),
        operation="apx.validate_run",
        operation_id="apx_validate_run",
        tag="apx",
        summary="Validate an APx run against its frozen manifest",
        description="The HTTP form of `apconform apx validate` given {manifest, run}." + _KERNEL,
        body=EvaluationRequest,
        answer=ApxValidation,
        run=_validate_run,
        what="evaluation request",
        answer_description="The manifest and the run passed every check.",
        examples=(("demo", _demo),),
    ),
    TypedRoute(
        path=operation_path("apx.freeze"),
        operation="apx.freeze",
        operation_id="apx_freeze",
        tag="apx",
        summary="Freeze an APx manifest: compute taskSetHash and the four component hashes",
        description=(
            "The HTTP form of `apconform apx freeze` given a manifest draft. Freezing checks "
            "nothing beyond what it needs to hash (the kernel refuses a draft without the four "
            "components or without suite.slots, with 422), so a frozen manifest can still be "
            "refused by validate-manifest; the body must nevertheless meet the draft schema."
        ),
        body=ApxManifestDraft,
        answer=Manifest,
        run=freeze,
        what="manifest draft",
        answer_description="The frozen manifest: the draft with its hashes (re)computed.",
        examples=(("demo", _demo_draft),),
    ),
    TypedRoute(
        path=operation_path("apx.evaluate"),
        operation="apx.evaluate",
        operation_id="apx_evaluate",
        tag="apx",
        summary="Score an APx run against its frozen manifest (apx-result/0.1)",
        description="The HTTP form of `apconform apx evaluate` (unsigned)." + _KERNEL,
        body=EvaluationRequest,
        answer=Result,
        run=_evaluate,
        what="evaluation request",
        answer_description="The apx-result/0.1 document.",
        examples=(("demo", _demo),),
        remembers_members=True,
    ),
    TypedRoute(
        path=operation_path("apx.compare"),
        operation="apx.compare",
        operation_id="apx_compare",
        tag="apx",
        summary="Compare paired APx campaigns: the promotion recommendation (apx-promotion/0.1)",
        description=(
            "The HTTP form of `apconform apx promote` (unsigned; `options` carries the "
            "bootstrap iterations and seed the command takes as flags)." + _KERNEL
        ),
        body=PromotionRequest,
        answer=Promotion,
        run=_compare,
        what="promotion request",
        answer_description="The apx-promotion/0.1 document; it never authorises deployment.",
        examples=(("demo", _demo_comparison),),
    ),
)
"""Every typed APx route; each takes the path of the vector operation of the same name."""
