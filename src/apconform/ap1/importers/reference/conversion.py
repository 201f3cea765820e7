"""A published reference run as the kit's documents: the checks and conversions, without files.

Given what the reference published (its resolved configuration and printed
seal record), its input documents, the user's derivations, the AP-1 text and
the transcript's records in order, :func:`convert_reference_run` checks the
reference's own hashes, converts every input and every record, and answers
the sealed inputs, the converted executions with the reference's verdicts, and
the parts of the import record that follow from them. It reads and writes no
file, so the import command and the vector operation share it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from apconform.ap1.importers.reference.documents import (
    ConvertedConfig,
    convert_config,
    convert_fixture,
    convert_questions,
)
from apconform.ap1.importers.reference.import_record import DroppedClaim, GroundTruthCheck
from apconform.ap1.importers.reference.records import (
    IMPORT_RECORD,
    ConvertedExecution,
    ReferenceSource,
    check_engine,
    check_figure,
    convert_execution,
)
from apconform.ap1.inputs.config import load_config
from apconform.ap1.inputs.derivations.evaluation import DerivationError, evaluate
from apconform.ap1.inputs.items import delivered_context, load_questions, minimum_n_violations
from apconform.ap1.inputs.plan import RunInputs, load_run_inputs
from apconform.ap1.seal.reference import reference_seal_hashes
from apconform.core.canonical import sha256_hex, sha256_text
from apconform.core.errors import ApconformError, define_code

__all__ = ["IMPORT_SEAL", "ConvertedRun", "convert_reference_run", "reference_source"]

IMPORT_SEAL = define_code(
    "AP1-IMPORT-SEAL",
    "The published configuration or seal does not reproduce the reference's own hashes",
    "Give the report (or configuration and seal record) exactly as the reference published "
    "them; an edited value changes the recomputed hash, and the run is then not the one that "
    "was sealed.",
    exit_status=1,
)


@dataclass
class ConvertedRun:
    """Everything the import writes, before it writes it."""

    inputs: RunInputs
    executions: list[ConvertedExecution]
    hashes: dict[str, Any]
    config: ConvertedConfig
    dropped: list[DroppedClaim]
    ground_truth: list[GroundTruthCheck]
    lines: int
    printed: dict[str, str]
    """The published seal record, its hashes reproduced (so every value is printed text)."""


def _check_hashes(record: Mapping[str, object], config: dict[str, Any]) -> dict[str, Any]:
    hashes = reference_seal_hashes(config, record)
    problems = []
    if not hashes["configHashMatchesRecord"]:
        problems.append(
            f"the resolved configuration hashes to {hashes['configHash']} but the seal record "
            f"prints config_hash {record.get('config_hash')}"
        )
    if not hashes["sealHashMatchesRecord"]:
        problems.append(
            f"the seal record hashes to {hashes['sealHash']} but prints seal_hash "
            f"{record.get('seal_hash')}"
        )
    if problems:
        raise ApconformError(IMPORT_SEAL, "; ".join(problems))
    return hashes


def _printed_text(record: Mapping[str, object]) -> dict[str, str]:
    """The seal record once its hashes reproduced: reference_seal_hashes refuses any value
    that is not printed text, so this keeps every member."""
    return {name: value for name, value in record.items() if isinstance(value, str)}


def _claims(converted: ConvertedConfig, questions: object) -> list[DroppedClaim]:
    """Drop each claimed dimension whose minimum item count the question set misses."""
    document = converted.document
    dropped: list[DroppedClaim] = []
    kept = []
    question_set = load_questions(questions)
    for dimension in document["dimensionsClaimed"]:
        trial = dict(document, dimensionsClaimed=[dimension])
        problems = list(minimum_n_violations(question_set, load_config(trial)))
        if problems:
            dropped.append({"dimension": dimension, "reason": problems[0].message})
        else:
            kept.append(dimension)
    if "D2" in kept:
        kept.remove("D2")
        dropped.append({"dimension": "D2", "reason": D2_NOT_OBSERVABLE})
    document["dimensionsClaimed"] = kept or ["D7"]
    for entry in dropped:
        rule = "AP1-D2-2, AP1-D2-3" if entry["reason"] == D2_NOT_OBSERVABLE else "AP1-QST-2"
        converted.notes.append(
            f"the reference claims {entry['dimension']}, which the kit does not claim for this "
            f"import ({rule}): {entry['reason']}"
        )
    return dropped


D2_NOT_OBSERVABLE = (
    "a D2 mechanism class rests on the sampling parameters every round sent and the response "
    "echoed, and the reference keeps neither the request bytes nor the response envelopes of "
    "the rounds before the last, so the import cannot observe them"
)


@dataclass
class _Pair:
    engine: dict[str, object]
    engine_line: int
    figure: dict[str, object] | None = None
    figure_line: int | None = None


def _pairs(records: Iterator[tuple[int, dict[str, object]]], seal_hash: str) -> Iterator[_Pair]:
    current: _Pair | None = None
    for line, record in records:
        if record.get("seal_hash") != seal_hash:
            raise ApconformError(
                IMPORT_RECORD,
                f"line {line}: the record carries seal_hash {record.get('seal_hash')!r}, not the "
                f"published {seal_hash}",
            )
        kind = record.get("record_type")
        if kind == "figure_identification":
            if current is None or current.figure is not None:
                raise ApconformError(
                    IMPORT_RECORD,
                    f"line {line}: a figure-identification record follows no execution record",
                )
            check_figure(record, line, current.engine)
            current.figure, current.figure_line = record, line
            yield current
            current = None
            continue
        if kind is not None:
            raise ApconformError(IMPORT_RECORD, f"line {line}: unknown record_type {kind!r}")
        if current is not None:
            if current.engine.get("error_state") is None:
                raise ApconformError(
                    IMPORT_RECORD,
                    f"line {current.engine_line}: the execution has no figure-identification "
                    "record after it",
                )
            yield current
        check_engine(record, line)
        current = _Pair(record, line)
    if current is not None:
        if current.engine.get("error_state") is None:
            raise ApconformError(
                IMPORT_RECORD,
                f"line {current.engine_line}: the last execution has no figure-identification "
                "record after it",
            )
        yield current


def reference_source(
    printed: Mapping[str, object], config: Mapping[str, object]
) -> ReferenceSource:
    """The runner version and model a record's provenance names."""
    tag, commit = printed.get("runner_version_tag"), printed.get("runner_version_commit")
    if isinstance(tag, str) and tag:
        version = f"{tag} (commit {commit})" if isinstance(commit, str) and commit else tag
    else:
        version = "unversioned: the seal record prints no runner version (the August 2026 runs)"
    model = config.get("model")
    return ReferenceSource(version, model if isinstance(model, str) and model else "unnamed")


def _convert_all(
    records: Iterable[tuple[int, dict[str, object]]],
    inputs: RunInputs,
    seal_hash: str,
    source: ReferenceSource,
) -> tuple[list[ConvertedExecution], int]:
    repeats: Counter[tuple[object, object]] = Counter()  # (condition, item), text once checked
    limit = inputs.config.repeats
    out: list[ConvertedExecution] = []
    lines = 0
    seen: dict[str, int] = {}
    for pair in _pairs(iter(records), seal_hash):
        # an executed record is unique (its timestamp, the response id); a VOID one never
        # reached the model, and repeats of an underivable item may be written alike
        void = pair.engine.get("error_state") == "VOID"
        digest = sha256_hex(pair.engine)
        first = pair.engine_line if void else seen.setdefault(digest, pair.engine_line)
        if first != pair.engine_line:
            raise ApconformError(
                IMPORT_RECORD,
                f"line {pair.engine_line}: the execution on lines {_lines_of(pair)} repeats the "
                f"one on lines {first}-{first + 1} (the same engine record); a run records each "
                "execution once, so a repeated record would be scored twice",
            )
        key = (pair.engine["condition"], pair.engine["item_id"])
        repeats[key] += 1
        if repeats[key] > limit:
            raise ApconformError(
                IMPORT_RECORD,
                f"line {pair.engine_line}: {key[0]}/{key[1]} has more than the configured "
                f"{limit} repeats",
            )
        out.append(
            convert_execution(
                pair.engine,
                pair.figure,
                (pair.engine_line, pair.figure_line),
                repeats[key],
                inputs,
                source,
            )
        )
        lines = pair.figure_line or pair.engine_line
    return out, lines


def _lines_of(pair: _Pair) -> str:
    return (
        f"{pair.engine_line}-{pair.figure_line}"
        if pair.figure_line is not None
        else str(pair.engine_line)
    )


def _ground_truth(
    inputs: RunInputs, executions: list[ConvertedExecution]
) -> list[GroundTruthCheck]:
    """The reference's recorded final of each item beside the supplied derivation's."""
    seen: dict[str, str] = {}
    for execution in executions:
        final = execution.verdict.get("groundTruthFinal")
        if isinstance(final, str):
            seen.setdefault(execution.record["itemId"], final)
    out: list[GroundTruthCheck] = []
    for item_id, recorded in sorted(seen.items()):
        item = inputs.items[item_id]
        try:
            mine: Decimal | None = evaluate(
                inputs.derivation_of[item_id], delivered_context(inputs.fixture, item)
            ).final
        except DerivationError:
            mine = None
        try:
            theirs: Decimal | None = Decimal(recorded)
        except InvalidOperation:
            theirs = None
        out.append(
            {
                "itemId": item_id,
                "referenceFinal": recorded,
                "derivationFinal": None if mine is None else format(mine, "f"),
                "agrees": mine is not None and theirs is not None and mine == theirs,
            }
        )
    return out


def convert_reference_run(
    *,
    config: dict[str, Any],
    printed: Mapping[str, object],
    fixture: object,
    questions: object,
    derivations: object,
    ap1_text: str,
    records: Iterable[tuple[int, dict[str, object]]],
) -> ConvertedRun:
    """Check and convert one published run (see the module docstring)."""
    hashes = _check_hashes(printed, config)
    questions_document = convert_questions(questions)
    converted = convert_config(
        config,
        config_hash=hashes["configHash"],
        seal_hash=hashes["sealHash"],
        ap1_text_sha256=sha256_text(ap1_text),
    )
    dropped = _claims(converted, questions_document)
    inputs = load_run_inputs(
        config=converted.document,
        fixture=convert_fixture(fixture),
        questions=questions_document,
        derivations=derivations,
        ap1_text=ap1_text,
    )
    executions, lines = _convert_all(
        records, inputs, hashes["sealHash"], reference_source(printed, config)
    )
    return ConvertedRun(
        inputs=inputs,
        executions=executions,
        hashes=hashes,
        config=converted,
        dropped=dropped,
        ground_truth=_ground_truth(inputs, executions),
        lines=lines,
        printed=_printed_text(printed),
    )
