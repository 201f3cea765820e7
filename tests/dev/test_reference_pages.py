"""The reference pages' YAML: libyaml's emitter writes what PyYAML's Python emitter writes."""

from __future__ import annotations

import pytest
import yaml

pytest.importorskip("linkml")

from linkml_runtime.linkml_model.meta import ClassDefinitionName, SlotDefinitionName

from apconform.dev.reference_pages import fast_safe_dumper, separate_headings

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
