"""The schema reference pages (``docs/reference/``), rendered by LinkML's DocGenerator in memory.

The generator writes one file per element and renders each class, slot and enum
as YAML through PyYAML's pure-Python emitter; that emitter was about a third of
the pages' cost (1,604 dumps for 391 classes, 746 slots and 76 enums). Here the
same representer (LinkML's types registered on ``SafeDumper``) feeds libyaml's
emitter, and the pages are kept in memory instead of written to a temporary
folder and read back. The pages are the same bytes as with the stock generator
(compared file by file when this was written; ``tests/dev/test_reference_pages.py``
compares the two emitters on awkward text). Where PyYAML was built without
libyaml, the pure-Python emitter is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePosixPath
from typing import Any, cast

import yaml

__all__ = ["fast_safe_dumper", "index_view", "render_pages", "separate_headings"]


def fast_safe_dumper() -> type[yaml.SafeDumper]:
    """``SafeDumper`` with libyaml's emitter, or ``SafeDumper`` itself without libyaml.

    The class keeps ``SafeDumper``'s representers (LinkML registers its own types on
    that class), so only the writing of the events changes. libyaml accepts only
    exact ``str`` scalars; LinkML's names are ``str`` subclasses, passed on as the
    ``str`` they are.
    """
    try:
        from yaml.cyaml import CEmitter  # type: ignore[attr-defined]
    except ImportError:  # PyYAML built without libyaml
        return yaml.SafeDumper

    class Dumper(CEmitter, yaml.SafeDumper):
        __init__ = yaml.CSafeDumper.__init__

        def represent_scalar(self, tag: str, value: Any, style: str | None = None) -> Any:
            if type(value) is not str:
                value = str.__str__(value)
            return super().represent_scalar(tag, value, style)

    return cast("type[yaml.SafeDumper]", Dumper)


@contextmanager
def _fast_yaml(docgen: Any) -> Iterator[None]:
    """Within this block, the DocGenerator's YAML goes through :func:`fast_safe_dumper`."""
    from linkml_runtime.dumpers.yaml_dumper import YAMLDumper
    from linkml_runtime.utils.formatutils import remove_empty_items

    dumper = fast_safe_dumper()

    class FastYAMLDumper(YAMLDumper):  # type: ignore[misc]
        def dumps(self, element: Any, **kwargs: Any) -> str:
            # As YAMLDumper.dumps, with the faster Dumper (it has no pydantic elements here).
            return str(
                yaml.dump(
                    remove_empty_items(element, hide_protected_keys=True),
                    Dumper=dumper,
                    sort_keys=False,
                    allow_unicode=True,
                    **kwargs,
                )
            )

    stock = docgen.yaml_dumper
    docgen.yaml_dumper = FastYAMLDumper()
    try:
        yield
    finally:
        docgen.yaml_dumper = stock


def index_view(view: Any) -> Any:
    """Make ``view`` answer the pages' whole-schema questions from lists built once.

    Every slot page asks which classes use the slot (SchemaView lists the induced
    slots of every class again for each slot: 746 x 391 lists) and which slots are its
    children (every slot fetched again for each slot), every class page which classes
    are its children. The answers are computed as SchemaView computes them, in the
    same order, from each class's induced slot names and the list of all slots or
    classes, kept for the run; the view is not changed while the pages are written.
    Returns ``view``.
    """
    induced: dict[str, frozenset[str]] = {}
    slots: dict[bool, list[Any]] = {}
    classes: dict[bool, list[Any]] = {}

    def get_classes_by_slot(slot: Any, include_induced: bool = False) -> list[Any]:
        everything = view.all_classes()
        found = {name: None for name, c in everything.items() if slot.name in c.slots}
        if include_induced:
            for name in everything:
                names = induced.get(name)
                if names is None:
                    names = induced[name] = frozenset(
                        s.name for s in view.class_induced_slots(name)
                    )
                if slot.name in names:
                    found[name] = None
        return list(found)

    def listed(cache: dict[bool, list[Any]], imports: bool, names: Any, get: Any) -> list[Any]:
        if imports not in cache:
            cache[imports] = [get(x) for x in names(imports=imports)]
        return cache[imports]

    def children(elements: list[Any], parent: str, mixins: bool, is_a: bool) -> list[Any]:
        return [
            x.name
            for x in elements
            if (is_a and x.is_a == parent) or (mixins and parent in x.mixins)
        ]

    def slot_children(
        slot_name: str, imports: bool = True, mixins: bool = True, is_a: bool = True
    ) -> list[Any]:
        everything = listed(slots, imports, view.all_slots, view.get_slot)
        return children(everything, slot_name, mixins, is_a)

    def class_children(
        class_name: str, imports: bool = True, mixins: bool = True, is_a: bool = True
    ) -> list[Any]:
        everything = listed(classes, imports, view.all_classes, view.get_class)
        return children(everything, class_name, mixins, is_a)

    view.get_classes_by_slot = get_classes_by_slot
    view.slot_children = slot_children
    view.class_children = class_children
    return view


def render_pages(generator: Any) -> dict[str, str]:
    """Every page ``generator`` (a DocGenerator) writes, as {path in its folder: text}.

    The text is what reading the written file back gives (newlines as Python's text
    mode reads them); a later page with the same name replaces the earlier, as the
    file would be.
    """
    import linkml.generators.docgen as docgen

    pages: dict[str, str] = {}
    folder = "/pages"

    def write(text: str, directory: str, name: str) -> None:
        rel = PurePosixPath(directory, f"{name}.{generator._file_suffix()}").relative_to(folder)
        pages[str(rel)] = text.replace("\r\n", "\n").replace("\r", "\n")

    generator._write = write
    with _fast_yaml(docgen):
        generator.serialize(directory=folder)
    return {rel: pages[rel] for rel in sorted(pages)}


def separate_headings(text: str) -> str:
    """Put a blank line before every Markdown heading outside code fences.

    LinkML's templates write some headings ("### Cardinality and Requirements")
    straight after a table row; Markdown then reads the heading as table text and
    the page shows the hashes literally.
    """
    lines: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None and _is_heading(line) and lines and lines[-1].strip():
            lines.append("")
        lines.append(line)
    return "\n".join(lines)


def _is_heading(line: str) -> bool:
    hashes = len(line) - len(line.lstrip("#"))
    return 1 <= hashes <= 6 and line[hashes : hashes + 1] == " "
