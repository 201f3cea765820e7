"""Sharing LinkML's work within a generation run gives what LinkML gives without it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("linkml")

import linkml_runtime.utils.schemaview as schemaview
from linkml_runtime.utils.schemaview import SchemaView

from apconform.dev.schema_sharing import loading_once, share_induced_slots


@pytest.fixture
def schemas(tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of common.yaml (small, imports only linkml:types), the working directory above it."""
    folder = tmp_path / "schemas"
    folder.mkdir()
    shutil.copy2(repo / "schemas/common.yaml", folder / "common.yaml")
    monkeypatch.chdir(tmp_path)
    return folder


def test_each_spelling_of_a_file_is_loaded_as_linkml_loads_it(schemas: Path) -> None:
    stock = schemaview.load_schema_wrap
    spellings = [
        ("schemas/common.yaml", {}),
        ("common.yaml", {"base_dir": "schemas"}),
        ("common.yaml", {"base_dir": str(schemas)}),
        (str(schemas / "common.yaml"), {}),
    ]
    expected = [stock(path, **kwargs) for path, kwargs in spellings]
    with loading_once():
        shared = [schemaview.load_schema_wrap(path, **kwargs) for path, kwargs in spellings]
    assert schemaview.load_schema_wrap is stock
    for want, got in zip(expected, shared, strict=True):
        assert got == want
        assert got.source_file == want.source_file
        assert type(got.source_file) is type(want.source_file)
    assert shared[0].source_file == "schemas/common.yaml"
    assert shared[1].source_file == str(schemas / "common.yaml")
    # Every caller gets its own copy: LinkML changes the schemas it is given.
    assert shared[0] is not shared[1]
    shared[0].description = "changed by a generator"
    with loading_once():
        again = schemaview.load_schema_wrap("schemas/common.yaml")
        assert again.description == expected[0].description


def test_an_import_is_one_object_for_every_view(schemas: Path) -> None:
    (schemas / "user.yaml").write_text(
        "id: https://example.org/user\nname: user\nimports:\n  - linkml:types\n  - common\n"
        "default_range: string\n",
        encoding="utf-8",
    )
    with loading_once():
        first = SchemaView("schemas/user.yaml")
        second = SchemaView("schemas/user.yaml")
        assert first.schema is not second.schema  # each view's own schema is its own copy
        assert "Ed25519Signature" in first.all_classes()
        assert "Ed25519Signature" in second.all_classes()
        common = [view.schema_map["common"] for view in (first, second)]
        assert common[0] is common[1]
        assert common[0].source_file == str(schemas / "common.yaml")
    plain = SchemaView("schemas/user.yaml")
    assert plain.all_classes().keys() == first.all_classes().keys()


def test_an_edited_file_is_read_again(schemas: Path) -> None:
    path = schemas / "common.yaml"
    with loading_once():
        first = schemaview.load_schema_wrap("schemas/common.yaml")
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace("name: apconform_common", "name: apconform_edited", 1), encoding="utf-8"
        )
        second = schemaview.load_schema_wrap("schemas/common.yaml")
    assert first.name == "apconform_common"
    assert second.name == "apconform_edited"


def test_a_file_that_is_not_there_is_reported_by_linkml(schemas: Path) -> None:
    with loading_once(), pytest.raises(FileNotFoundError):
        schemaview.load_schema_wrap("schemas/absent.yaml")


def test_induced_slots_are_answered_once_however_they_are_asked_for(schemas: Path) -> None:
    plain = SchemaView("schemas/common.yaml")
    view = share_induced_slots(SchemaView("schemas/common.yaml"))
    class_name = "Ed25519Signature"
    slot_name = view.class_slots(class_name)[0]
    positional = view.induced_slot(slot_name, class_name)
    assert view.induced_slot(slot_name, class_name=class_name) is positional
    assert view.induced_slot(slot_name, class_name, True) is positional
    assert positional == plain.induced_slot(slot_name, class_name)
    assert [s.name for s in view.class_induced_slots(class_name)] == [
        s.name for s in plain.class_induced_slots(class_name)
    ]
    assert view.class_induced_slots(class_name)[0] is positional
    assert os.path.basename(str(view.schema.source_file)) == "common.yaml"
