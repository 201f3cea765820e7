"""The public entry points of the APx kernel: validate, evaluate and compare.

Each takes the generated models or plain JSON values and runs the checks in
the contract's order, collecting every violation; a refused input raises
:class:`~apconform.apx.errors.ApxRefused`. The ``*_document`` forms return
the JSON documents themselves (what the command line and the MCP server
print); the plain forms return them as typed models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from apconform.apx import errors
from apconform.apx.bootstrap import DEFAULT_ITERATIONS, DEFAULT_SEED
from apconform.apx.checks import MISSING, Checks, js_set_key
from apconform.apx.errors import ApxRefused, Collector
from apconform.apx.guard import guard
from apconform.apx.manifest import ClassCalibration, ManifestFacts, check_manifest
from apconform.apx.promotion import ScoredPair, build_promotion
from apconform.apx.result import build_result
from apconform.apx.run import check_run
from apconform.apx.scoring import score

if TYPE_CHECKING:
    # The typed models cost more to import than a whole evaluation of a small campaign; the
    # functions that return them import them when called.
    from apconform.models.apx import (
        BootstrapOptions,
        CampaignComparison,
        Manifest,
        Promotion,
        Result,
        Run,
    )

__all__ = [
    "ManifestCheck",
    "RunCheck",
    "compare",
    "compare_document",
    "compare_scored",
    "evaluate",
    "evaluate_document",
    "validate_manifest",
    "validate_run",
]

Path = tuple[str | int, ...]


def _plain(value: Any) -> Any:
    """A generated model as its JSON value (unknown members included); anything else as is."""
    if type(value) is dict:
        return value  # the usual case, decided without importing pydantic
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def _guard_into(value: Any, where: Path, collector: Collector) -> None:
    """Run the structural guard; on failure stop with everything collected so far."""
    try:
        guard(value, where)
    except ApxRefused as refused:
        collector.violations.extend(refused.violations)
        collector.raise_if_any()


@dataclass(frozen=True)
class ManifestCheck:
    """A manifest that passed validation, with the reference hours of each task class."""

    manifest: dict[str, Any]
    calibration: dict[str, ClassCalibration]

    @cached_property
    def model(self) -> Manifest:
        """The manifest as a typed model (built on first use)."""
        from apconform.models.apx import Manifest

        return Manifest.model_validate(self.manifest)

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": True,
            "calibration": {key: value.to_dict() for key, value in self.calibration.items()},
        }


@dataclass(frozen=True)
class RunCheck(ManifestCheck):
    """A run that passed validation against its manifest."""

    run: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def run_model(self) -> Run:
        """The run as a typed model (built on first use)."""
        from apconform.models.apx import Run

        return Run.model_validate(self.run)


def _manifest_facts(manifest: Any, where: Path, collector: Collector) -> ManifestFacts | None:
    _guard_into(manifest, where, collector)
    return check_manifest(manifest, where, collector)


def validate_manifest(
    manifest: Manifest | Mapping[str, Any], *, at: Sequence[str | int] = ()
) -> ManifestCheck:
    """Validate a frozen manifest and calibrate its task classes.

    Violation paths start at the manifest, or at ``at`` when the manifest sits
    inside a larger document (``at=("manifest",)`` gives ``$.manifest...``).
    """
    value = _plain(manifest)
    collector = Collector()
    facts = _manifest_facts(value, tuple(at), collector)
    collector.raise_if_any("manifest")
    assert facts is not None
    return ManifestCheck(value, facts.calibration)


def _run_checked(
    facts: ManifestFacts | None,
    manifest: Any,
    run: Any,
    where: Path,
    collector: Collector,
    *,
    guarded: bool = False,
) -> bool:
    """Guard (unless an enclosing document was guarded already) and check one run."""
    if not guarded:
        _guard_into(run, where, collector)
    return check_run(run, manifest, where, collector) and facts is not None


def validate_run(manifest: Manifest | Mapping[str, Any], run: Run | Mapping[str, Any]) -> RunCheck:
    """Validate a run against a frozen manifest; paths start at ``$.manifest`` and ``$.run``.

    As in the contract, the run's structure is guarded before the manifest is read.
    """
    manifest_value, run_value = _plain(manifest), _plain(run)
    collector = Collector()
    _guard_into(run_value, ("run",), collector)
    facts = _manifest_facts(manifest_value, ("manifest",), collector)
    check_run(run_value, manifest_value, ("run",), collector)
    collector.raise_if_any("run")
    assert facts is not None
    return RunCheck(manifest_value, facts.calibration, run_value)


def _score(facts: ManifestFacts, run: dict[str, Any], where: Path) -> dict[str, Any]:
    threshold = facts.manifest["evaluator"]["qualityThreshold"]
    scoring = score(run, facts.calibration, facts.slot_classes, threshold, where)
    return build_result(facts, run, scoring)


def evaluate_document(
    manifest: Manifest | Mapping[str, Any], run: Run | Mapping[str, Any]
) -> dict[str, Any]:
    """Score a run against a frozen manifest and return the apx-result/0.1 document."""
    manifest_value, run_value = _plain(manifest), _plain(run)
    collector = Collector()
    facts = _manifest_facts(manifest_value, ("manifest",), collector)
    valid = _run_checked(facts, manifest_value, run_value, ("run",), collector)
    collector.raise_if_any("run")
    assert facts is not None and valid
    return _score(facts, run_value, ("run",))


def evaluate(manifest: Manifest | Mapping[str, Any], run: Run | Mapping[str, Any]) -> Result:
    """Score a run against a frozen manifest; the result as a typed model."""
    from apconform.models.apx import Result

    return Result.model_validate(evaluate_document(manifest, run))


def _options(options: Any, collector: Collector) -> tuple[int, int]:
    """Bootstrap settings with the contract's defaults and checks (null options are refused)."""
    if options is None:
        collector.add(errors.OBJECT, ("options",), "options must be an object")
        return DEFAULT_ITERATIONS, DEFAULT_SEED
    given = options if type(options) is dict else {}
    iterations = given.get("iterations", MISSING)
    seed = given.get("seed", MISSING)
    iterations = DEFAULT_ITERATIONS if iterations is MISSING else iterations
    seed = DEFAULT_SEED if seed is MISSING else seed
    checks = Checks(collector)
    for name, value, high in (("iterations", iterations, 10_000), ("seed", seed, 4_294_967_295)):
        low = 100 if name == "iterations" else 0
        if checks.number(value, name, ("options", name), low, high) and value != int(value):
            collector.add(errors.INTEGER, ("options", name), f"{name} must be an integer")
    if collector:
        return DEFAULT_ITERATIONS, DEFAULT_SEED
    return int(iterations), int(seed)


def compare_scored(
    manifest: Manifest | Mapping[str, Any],
    comparison: CampaignComparison | Mapping[str, Any],
    options: BootstrapOptions | Mapping[str, Any] | None = MISSING,
) -> tuple[dict[str, Any], list[ScoredPair]]:
    """The promotion of :func:`compare_document` and every pair's two scored results.

    For analyses built on the same comparison (the population interval), so the
    runs are validated and scored once.
    """
    manifest_value, comparison_value = _plain(manifest), _plain(comparison)
    collector = Collector()
    _guard_into(comparison_value, ("comparison",), collector)
    facts = _manifest_facts(manifest_value, ("manifest",), collector)
    checks = Checks(collector)
    pairs: list[Any] = []
    if checks.object(comparison_value, "campaign comparison", ("comparison",)):
        found = comparison_value.get("pairs", MISSING)
        if checks.array(found, "pairs", ("comparison", "pairs"), 100, 1):
            pairs = found
    iterations, seed = _options({} if options is MISSING else _plain(options), collector)
    scored = _score_pairs(facts, manifest_value, pairs, collector)
    collector.raise_if_any("comparison")
    assert facts is not None
    return build_promotion(manifest_value, scored, iterations, seed), scored


def compare_document(
    manifest: Manifest | Mapping[str, Any],
    comparison: CampaignComparison | Mapping[str, Any],
    options: BootstrapOptions | Mapping[str, Any] | None = MISSING,
) -> dict[str, Any]:
    """Compare paired campaigns on one frozen manifest; the apx-promotion/0.1 document.

    ``options`` may set ``iterations`` (100..10000, default 2000) and ``seed``
    (0..4294967295, default 20260907); passing None is refused.
    """
    return compare_scored(manifest, comparison, options)[0]


def _score_pairs(
    facts: ManifestFacts | None, manifest: Any, pairs: list[Any], collector: Collector
) -> list[ScoredPair]:
    checks = Checks(collector)
    scored: list[ScoredPair] = []
    for index, pair in enumerate(pairs):
        where: Path = ("comparison", "pairs", index)
        if not checks.object(pair, "pair", where):
            continue
        results = []
        for side in ("parent", "candidate"):
            run = pair.get(side, MISSING)
            at = (*where, side)
            if _run_checked(facts, manifest, run, at, collector, guarded=True):
                assert facts is not None
                try:
                    results.append(_score(facts, run, at))
                except ApxRefused as refused:
                    collector.violations.extend(refused.violations)
        if len(results) != 2:
            continue
        parent, candidate = pair["parent"], pair["candidate"]
        if parent["independenceId"] != candidate["independenceId"]:
            collector.add(
                errors.PAIR_INDEPENDENCE,
                (*where, "candidate", "independenceId"),
                "paired campaigns must share independenceId",
            )
            continue
        if parent["assistanceMode"] != candidate["assistanceMode"]:
            collector.add(
                errors.PAIR_MODE,
                (*where, "candidate", "assistanceMode"),
                "paired assistance modes must match",
            )
            continue
        scored.append(ScoredPair(parent["independenceId"], parent, candidate, *results))
    if not collector and scored:
        independence = [pair.independence_id for pair in scored]
        if len({js_set_key(value) for value in independence}) != len(independence):
            collector.add(
                errors.DUPLICATE,
                ("comparison", "pairs"),
                "independent campaign IDs contains duplicates",
            )
        run_ids = [run["id"] for pair in scored for run in (pair.parent_run, pair.candidate_run)]
        if len(set(run_ids)) != len(run_ids):
            collector.add(
                errors.DUPLICATE, ("comparison", "pairs"), "comparison run IDs contains duplicates"
            )
    return scored


def compare(
    manifest: Manifest | Mapping[str, Any],
    comparison: CampaignComparison | Mapping[str, Any],
    options: BootstrapOptions | Mapping[str, Any] | None = MISSING,
) -> Promotion:
    """Compare paired campaigns; the promotion as a typed model."""
    from apconform.models.apx import Promotion

    return Promotion.model_validate(compare_document(manifest, comparison, options))
