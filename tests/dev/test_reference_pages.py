"""The reference pages: libyaml's emitter and the indexed view give what LinkML gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("linkml")

from linkml_runtime.linkml_model.meta import ClassDefinitionName, SlotDefinitionName
from linkml_runtime.utils.schemaview import SchemaView

from apconform.dev.reference_pages import fast_safe_dumper, index_view, separate_headings

AWKWARD = {
    "name": ClassDefinitionName("ExecutionRecord"),
    "slots": [SlotDefinitionName("case_id"), SlotDefinitionName("run: id")],
    "description": (
        "A long description that runs well past eighty characters so that the emitter has to "
        "fold it, with 'quotes', \"double quotes\", a colon: here, a hash # there, and é ü ñ 中文."
    ),
    "multi": "first line\nsecond line\n\nafter a blank line\n",
    "pattern": "^[A-Z][A-Z0-9-]{2,63}$",
    "empty": "",
    "yes": "yes",
    "number_like": "0.10",
    "leading": " spaced ",
    "tab": "a\tb",
    "values": {"true": True, "int": 3, "float": 0.5, "none": None},
}


def test_libyaml_emitter_writes_the_same_bytes() -> None:
    dumper = fast_safe_dumper()
    if dumper is yaml.SafeDumper:
        pytest.skip("PyYAML was built without libyaml")
    options = {"sort_keys": False, "allow_unicode": True}
    fast = yaml.dump(AWKWARD, Dumper=dumper, **options)
    assert fast == yaml.dump(AWKWARD, Dumper=yaml.SafeDumper, **options)
    assert "name: ExecutionRecord\n" in fast
    assert "中文" in fast


def test_headings_after_a_table_row_get_a_blank_line() -> None:
    text = "| a | b |\n### Cardinality\n```\n| x |\n# not a heading\n```\n"
    assert separate_headings(text) == (
        "| a | b |\n\n### Cardinality\n```\n| x |\n# not a heading\n```\n"
    )


SCHEMA = """
id: https://example.org/pages
name: pages
imports: [linkml:types]
default_range: string
slots:
  ident: {}
  label: {}
  short_label: {is_a: label}
  tagged: {mixin: true}
  colour: {mixins: [tagged]}
classes:
  Thing:
    slots: [ident, label]
  Named:
    mixin: true
    slots: [short_label]
  Shape:
    is_a: Thing
    mixins: [Named]
    slots: [colour]
    attributes:
      sides: {range: integer}
  Square:
    is_a: Shape
    slot_usage:
      sides: {minimum_value: 4}
  Tag:
    mixins: [Named]
"""


def test_indexed_view_answers_as_schemaview(tmp_path: Path) -> None:
    path = tmp_path / "pages.yaml"
    path.write_text(SCHEMA, encoding="utf-8")
    plain = SchemaView(str(path))
    indexed = index_view(SchemaView(str(path)))
    flags = [{}, {"mixins": False}, {"is_a": False}, {"imports": False}]
    for name, slot in plain.all_slots().items():
        for induced in (False, True):
            assert indexed.get_classes_by_slot(slot, include_induced=induced) == (
                plain.get_classes_by_slot(slot, include_induced=induced)
            )
        for kwargs in flags:
            assert indexed.slot_children(name, **kwargs) == plain.slot_children(name, **kwargs)
    for name in plain.all_classes():
        for kwargs in flags:
            assert indexed.class_children(name, **kwargs) == plain.class_children(name, **kwargs)
    # The questions have answers here, so the comparison above compares something.
    assert indexed.get_classes_by_slot(plain.get_slot("ident"), include_induced=True) == [
        "Thing",
        "Shape",
        "Square",
    ]
    assert indexed.slot_children("label") == ["short_label"]
    assert indexed.slot_children("tagged") == ["colour"]
    assert indexed.class_children("Named") == ["Shape", "Tag"]
    assert indexed.class_children("Named", mixins=False) == []
    assert indexed.class_children("Thing") == ["Shape"]
