"""The inputs a run is sealed over, as one typed value: the only place their names are spelled.

A run is sealed over four JSON documents (the run configuration, the fixture,
the question set and the derivations) and the AP-1 text. Every face that takes
them (a run directory, a folder of sealed copies, a JSON or API body, the files
named on a command line) builds a :class:`SealedInputs` with one of its
constructors, and every loop over the documents goes through :data:`SEALED_NAMES`,
so a new face cannot spell the names again (a test greps ``src/`` for them).

The run directory's file layout (:data:`apconform.ap1.rundir.INPUT_FILES`) lies
below this layer; a test checks it holds exactly these names and the AP-1 text.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol

from apconform.ap1.rundir import INPUT_FILES, load_in, read_in
from apconform.core.files import load_path, read_text

__all__ = ["SEALED_NAMES", "NamedFiles", "SealedInputs", "read_text_file"]

_TEXT_LIMIT = 4 * 1024 * 1024
_TEXT = "ap1_text"


def read_text_file(path: Path) -> str:
    """Read a UTF-8 text file of at most 4 MiB: a regular file only, refused (never blocked on)
    when it is a directory, a FIFO or a device."""
    return read_text(path, max_bytes=_TEXT_LIMIT, what="an AP-1 text")


class NamedFiles(Protocol):
    """Where each input is (:class:`apconform.ap1.inputs.files.InputPaths`)."""

    @property
    def ap1_text(self) -> Path: ...


@dataclass(frozen=True)
class SealedInputs:
    """The four sealed JSON documents (as parsed JSON values) and the AP-1 text, if known."""

    config: Any
    fixture: Any
    questions: Any
    derivations: Any
    ap1_text: str | None = None

    @classmethod
    def from_mapping(cls, value: Mapping[str, object]) -> SealedInputs:
        """From a JSON or API body holding the four documents by name, and ``ap1Text`` when
        it is text (anything else there is left to the body's schema)."""
        text = value.get("ap1Text")
        return cls.from_documents(value, text if isinstance(text, str) else None)

    @classmethod
    def from_documents(cls, documents: Mapping[str, object], ap1_text: str | None) -> SealedInputs:
        """From the four documents by name (other members ignored) and the AP-1 text apart."""
        return cls(**{name: documents[name] for name in SEALED_NAMES}, ap1_text=ap1_text)

    @classmethod
    def from_folder(cls, folder: Path) -> SealedInputs:
        """From a folder of sealed copies (``config.json`` ... and, if there, ``ap1-text.md``)."""
        documents = {name: load_path(folder / f"{name}.json") for name in SEALED_NAMES}
        text = folder / "ap1-text.md"
        return cls(**documents, ap1_text=read_text_file(text) if text.is_file() else None)

    @classmethod
    def from_run_dir(
        cls, run_dir: Path, *, missing: Callable[[Path], Exception] | None = None
    ) -> SealedInputs:
        """From the sealed copies of a run directory, read without following links.

        ``missing`` makes the error raised for a JSON document that is not there (by
        default the reader's own); an absent AP-1 text is None.
        """
        documents = {}
        for name in SEALED_NAMES:
            path = run_dir / INPUT_FILES[name]
            if missing is not None and not os.path.lexists(path):
                raise missing(path)
            documents[name] = load_in(run_dir, INPUT_FILES[name])
        text_rel = INPUT_FILES["ap1Text"]
        text = (
            read_in(run_dir, text_rel, max_bytes=_TEXT_LIMIT, what="an AP-1 text").decode("utf-8")
            if os.path.lexists(run_dir / text_rel)
            else None
        )
        return cls(**documents, ap1_text=text)

    @classmethod
    def from_paths(cls, paths: NamedFiles) -> SealedInputs:
        """From the files named on a command line (an ``InputPaths``)."""
        documents = {name: load_path(getattr(paths, name)) for name in SEALED_NAMES}
        return cls(**documents, ap1_text=read_text_file(paths.ap1_text))

    def documents(self) -> dict[str, object]:
        """The four JSON documents by name, in the seal's order."""
        return {name: getattr(self, name) for name in SEALED_NAMES}


SEALED_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SealedInputs) if f.name != _TEXT)
"""The four sealed JSON documents' names, in the order the seal records them."""
