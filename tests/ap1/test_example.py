"""The worked example meets what it promises: size, categories, chained derivations, all checks."""

from __future__ import annotations

from collections import Counter
from typing import Any

from apconform.ap1.inputs.files import example_paths, load_inputs
from apconform.cli import main


def test_the_worked_example_is_large_chained_and_sealable() -> None:
    for config in ("config-mock.json", "config.json"):
        inputs = load_inputs(example_paths(config))  # raises unless every seal check passes
    items = inputs.questions.items
    derivable = [item for item in items if item.derivable]
    assert len(derivable) >= 40
    per_category = Counter(item.category for item in derivable)
    assert len(per_category) >= 4 and min(per_category.values()) >= 10
    for item in derivable:
        derivation = inputs.derivation_of[item.id]
        assert len(derivation.intermediates) >= 3, item.id
        assert len(derivation.sourceFields) <= 6, item.id
    assert [i.id for i in items if not i.derivable] == ["Q51", "Q52"]
    for entity in inputs.fixture.entities:
        directions = [f.label for f in entity.fields if f.name == "direction"]
        assert directions and directions[0] in ("asset", "liability", "expense")


def test_the_example_documents_validate(capsys: Any) -> None:
    folder = example_paths().config.parent
    for kind, name in (
        ("ap1-config", "config.json"),
        ("ap1-config", "config-mock.json"),
        ("ap1-fixture", "fixture.json"),
        ("ap1-questions", "questions.json"),
        ("ap1-derivations", "derivations.json"),
    ):
        assert main(["validate", "--type", kind, str(folder / name)]) == 0
    assert capsys.readouterr().out.count("valid ap1-") == 5
